// One CompositeController sync of one parent, in upstream's order (§6.1):
//  1. parent from cache; not matching the label selector and without our finalizer -> stop
//  2. finalizer bookkeeping (add with a finalize hook unless deleting; remove without one)
//  3. claim children   4. related objects (customize)
//  5. call finalize (deleting or no longer matching, with a finalize hook) or sync
//  6. resyncAfterSeconds   7. finalized -> remove finalizer   8. validate child labels
//  9. reconcile children (parent alive, or deleting with our finalizer and no GC finalizer)
// 10. status via /status (hook status + observedGeneration; only when different), then the
//     step-9 errors.
import type { CompositeResponse } from '../core/decode.js';
import { decodeCompositeResponse } from '../core/decode.js';
import { buildObjectMap } from '../core/object-map.js';
import { labelMatcher, parentSelector } from '../core/selector.js';
import type { Matcher } from '../core/selector.js';
import type { CompositeController } from '../core/types.js';
import type { WorkQueue } from '../core/queue.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { deepCopy, deepEqual, describe, hasFinalizer, hasGCFinalizer, isDeleting, labelsOf, nameOf, namespaceOf } from '../kube/objects.js';
import { isConflict, isNotFound } from '../kube/rest.js';
import { setFinalizer } from '../kube/ops.js';
import type { HookClient } from '../hooks/webhook.js';
import type { ChildType } from './apply.js';
import { defaultNamespaces, manageChildren } from './apply.js';
import { claimChildren } from './claim.js';
import type { CustomizeManager } from './customize.js';
import type { Runtime, SyncReport } from './runtime.js';
import { aggregate } from './runtime.js';

export interface CompositeState {
  runtime: Runtime;
  cc: CompositeController;
  label: string;
  parentInfo: ResourceInfo;
  parentInformer: Informer;
  childTypes: Map<string, ChildType & { informer: Informer }>;
  hooks: { sync?: HookClient; finalize?: HookClient };
  customize: CustomizeManager;
  /** spec.parentResource.labelSelector (absent = every object). */
  parentMatcher: Matcher;
  finalizer: string;
  queue: WorkQueue;
}

/** Step 2: GET+PUT the finalizer in or out; returns the parent to continue with. */
async function syncFinalizer(state: CompositeState, parent: KObject): Promise<KObject | undefined> {
  const want = state.hooks.finalize !== undefined;
  if (want && isDeleting(parent)) return parent;
  if (hasFinalizer(parent, state.finalizer) === want) return parent;
  const updated = await state.runtime.ops.atomicUpdate(state.parentInfo, namespaceOf(parent), nameOf(parent), (obj) => setFinalizer(obj, state.finalizer, want));
  state.runtime.log.info(4, `${state.label}: ${want ? 'added' : 'removed'} finalizer on ${describe(parent)}`);
  return updated;
}

async function removeFinalizer(state: CompositeState, parent: KObject): Promise<KObject | undefined> {
  state.runtime.log.info(4, `${state.label}: finalized, removing finalizer from ${describe(parent)}`);
  return state.runtime.ops.atomicUpdate(state.parentInfo, namespaceOf(parent), nameOf(parent), (obj) => setFinalizer(obj, state.finalizer, false));
}

/** Step 8: children must match the parent selector; with generateSelector add controller-uid. */
export function validateChildLabels(children: KObject[], parent: KObject, generateSelector: boolean): KObject[] {
  const matches = labelMatcher(parentSelector(parent, generateSelector));
  return children.map((child) => {
    const copy = deepCopy(child);
    if (generateSelector && copy.metadata.labels?.['controller-uid'] === undefined) {
      copy.metadata.labels = { ...(copy.metadata.labels ?? {}), 'controller-uid': parent.metadata.uid ?? '' };
    }
    if (!matches(labelsOf(copy))) {
      throw new Error(`labels on desired child ${copy.kind} ${nameOf(copy)} don't match parent selector`);
    }
    return copy;
  });
}

/** Step 10: status = hook status + observedGeneration, written only if the live one differs. */
async function updateStatus(state: CompositeState, parent: KObject, status: Record<string, unknown>): Promise<void> {
  const { ops } = state.runtime;
  const desired = { ...status, observedGeneration: parent.metadata.generation ?? 0 };
  try {
    const live = await ops.get(state.parentInfo, namespaceOf(parent), nameOf(parent));
    if (live.metadata.uid !== parent.metadata.uid || deepEqual(live.status, desired)) return;
    state.runtime.log.info(4, `${state.label}: updating status of ${describe(parent)}`);
    await ops.updateStatus(state.parentInfo, { ...live, status: desired });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}

function shouldManageChildren(state: CompositeState, parent: KObject | undefined): parent is KObject {
  if (parent === undefined) return false;
  return !isDeleting(parent) || (hasFinalizer(parent, state.finalizer) && !hasGCFinalizer(parent));
}

/** Steps 3-5: claim, related, call the hook. */
async function callHook(state: CompositeState, parent: KObject, finalizing: boolean, report: SyncReport): Promise<{ response: CompositeResponse; observed: KObject[] }> {
  const hook = finalizing ? state.hooks.finalize : state.hooks.sync;
  if (hook === undefined) throw new Error(`${state.label}: no ${finalizing ? 'finalize' : 'sync'} hook defined`);
  const matches = labelMatcher(parentSelector(parent, state.cc.spec.generateSelector === true));
  const types = [...state.childTypes.values()];
  const claim = { runtime: state.runtime, parent, parentInfo: state.parentInfo, matches, controller: state.label };
  const { children, errors } = await claimChildren(claim, types);
  const failed = aggregate(errors);
  if (failed !== undefined) throw failed;
  const related = await state.customize.related(parent);
  const version = hook.endpoint.version;
  const childMap = buildObjectMap(types.map((t) => ({ apiVersion: t.rule.apiVersion, kind: t.info.kind })), children, { version, parentNamespaced: state.parentInfo.namespaced });
  report.hook = finalizing ? 'finalize' : 'sync';
  const text = await hook.call({ controller: state.cc, parent, children: childMap, related, finalizing });
  return { response: decodeCompositeResponse(text, hook.endpoint.strict), observed: children };
}

interface Outcome {
  parent: KObject;
  finalizing: boolean;
  response: CompositeResponse;
  observed: KObject[];
}

/** Steps 7-10. */
async function applyResponse(state: CompositeState, outcome: Outcome, report: SyncReport): Promise<void> {
  const { parent: owner, finalizing, response, observed } = outcome;
  let parent: KObject | undefined = owner;
  if (finalizing) report.detail.push(`finalized=${String(response.finalized)}`);
  if (finalizing && response.finalized) parent = await removeFinalizer(state, owner);
  const context = { runtime: state.runtime, owner, types: state.childTypes, controller: state.label };
  const desired = defaultNamespaces(context, validateChildLabels(response.children, owner, state.cc.spec.generateSelector === true));
  const errors = shouldManageChildren(state, parent) ? await manageChildren({ ...context, owner: parent }, observed, desired) : [];
  await updateStatus(state, owner, response.status);
  const failed = aggregate(errors);
  if (failed !== undefined) throw failed;
}

export async function syncParent(state: CompositeState, key: string, report: SyncReport): Promise<void> {
  const cached = state.parentInformer.get(key);
  if (cached === undefined) return;
  const matches = state.parentMatcher(labelsOf(cached));
  if (!matches && !hasFinalizer(cached, state.finalizer)) return;
  const parent = await syncFinalizer(state, cached);
  if (parent === undefined) return;
  const finalizing = state.hooks.finalize !== undefined && (isDeleting(parent) || !matches);
  const { response, observed } = await callHook(state, parent, finalizing, report);
  if (response.resyncAfterSeconds > 0) state.queue.addAfter(key, response.resyncAfterSeconds * 1000);
  await applyResponse(state, { parent, finalizing, response, observed }, report);
}
