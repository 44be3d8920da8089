// One DecoratorController sync of one target (§5.6, §6.1 "DecoratorController differs"):
// no claiming (attachments are the objects this target controls that carry our annotation),
// the hook's labels/annotations are merged into the target (null deletes), its status (when
// not null) replaces .status through /status if the resource has it, then one full PUT for
// labels, annotations, status without subresource and finalizer removal (404/409 swallowed),
// then attachments are reconciled like children.
import type { DecoratorResponse } from '../core/decode.js';
import { decodeDecoratorResponse } from '../core/decode.js';
import { buildObjectMap } from '../core/object-map.js';
import type { DecoratorController } from '../core/types.js';
import { DECORATOR_ANNOTATION } from '../core/types.js';
import type { WorkQueue } from '../core/queue.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { annotationsOf, controllerOf, deepCopy, deepEqual, hasFinalizer, hasGCFinalizer, isDeleting, nameOf, namespaceOf } from '../kube/objects.js';
import { isConflict, isNotFound } from '../kube/rest.js';
import { setFinalizer } from '../kube/ops.js';
import type { ChildType } from './apply.js';
import { defaultNamespaces, manageChildren } from './apply.js';
import type { CustomizeManager } from './customize.js';
import type { ResolvedHooks } from './hooks.js';
import type { Runtime, SyncReport } from './runtime.js';
import { aggregate } from './runtime.js';

export interface TargetType {
  info: ResourceInfo;
  informer: Informer;
  /** Whether an object is selected by one of the resources[] rules of this type. */
  matches: (obj: KObject) => boolean;
}

export interface DecoratorState {
  runtime: Runtime;
  dc: DecoratorController;
  label: string;
  targets: Map<string, TargetType>;
  attachmentTypes: Map<string, ChildType & { informer: Informer }>;
  hooks: ResolvedHooks;
  customize: CustomizeManager;
  finalizer: string;
  queue: WorkQueue;
}

/** Queue keys are `<apiVersion>|<resource>|<namespace/name>`: a decorator has several target types. */
export function targetKey(info: Pick<ResourceInfo, 'apiVersion' | 'resource'>, objectKey: string): string {
  return `${info.apiVersion}|${info.resource}|${objectKey}`;
}

export function splitTargetKey(key: string): { typeKey: string; objectKey: string } {
  const second = key.indexOf('|', key.indexOf('|') + 1);
  return { typeKey: key.slice(0, second), objectKey: key.slice(second + 1) };
}

/** Merge returned labels/annotations (null deletes); undefined when nothing changes. */
export function mergeStringMap(current: Record<string, string> | undefined, changes: Record<string, string | null>): Record<string, string> | undefined {
  const merged = { ...(current ?? {}), ...changes };
  const result = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null));
  return deepEqual(result, current ?? {}) ? undefined : result;
}

function attachmentsOf(state: DecoratorState, target: KObject, namespaced: boolean): KObject[] {
  const namespace = namespaced ? namespaceOf(target) : undefined;
  return [...state.attachmentTypes.values()].flatMap(({ informer }) =>
    informer.list(namespace).filter((obj) => controllerOf(obj)?.uid === target.metadata.uid && annotationsOf(obj)[DECORATOR_ANNOTATION] === nameOf(state.dc)),
  );
}

/** One target being synced. */
interface Step {
  state: DecoratorState;
  type: TargetType;
  report: SyncReport;
}

/** Labels, annotations, status without subresource, finalizer: changed in `obj`; returns whether any did. */
function changeMetadata(step: Step, obj: KObject, response: DecoratorResponse, removeFinalizer: boolean): boolean {
  const labels = mergeStringMap(obj.metadata.labels, response.labels);
  const annotations = mergeStringMap(obj.metadata.annotations, response.annotations);
  if (labels !== undefined) obj.metadata.labels = labels;
  if (annotations !== undefined) obj.metadata.annotations = annotations;
  const status = !step.type.info.hasStatus && response.status !== null && !deepEqual(obj.status, response.status);
  if (status) obj.status = response.status;
  const finalizer = removeFinalizer && setFinalizer(obj, step.state.finalizer, false);
  return labels !== undefined || annotations !== undefined || status || finalizer;
}

async function writeTarget(step: Step, target: KObject, response: DecoratorResponse, removeFinalizer: boolean): Promise<KObject | undefined> {
  const { ops } = step.state.runtime;
  const { info } = step.type;
  let current = deepCopy(target);
  if (info.hasStatus && response.status !== null && !deepEqual(current.status, response.status)) {
    current = { ...(await ops.updateStatus(info, { ...current, status: response.status })), apiVersion: target.apiVersion, kind: target.kind };
  }
  if (!changeMetadata(step, current, response, removeFinalizer)) return current;
  step.state.runtime.log.info(4, `${step.state.label}: updating ${current.kind} ${namespaceOf(current)}/${nameOf(current)}`);
  return { ...(await ops.update(info, current)), apiVersion: target.apiVersion, kind: target.kind };
}

async function writeTargetSafely(step: Step, target: KObject, response: DecoratorResponse, removeFinalizer: boolean): Promise<KObject | undefined> {
  try {
    return await writeTarget(step, target, response, removeFinalizer);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (isConflict(error)) return target;
    throw error;
  }
}

async function syncFinalizer(step: Step, target: KObject): Promise<KObject | undefined> {
  const { state, type } = step;
  const want = state.hooks.finalize !== undefined;
  if ((want && isDeleting(target)) || hasFinalizer(target, state.finalizer) === want) return target;
  state.runtime.log.info(4, `${state.label}: ${want ? 'adding' : 'removing'} finalizer on ${target.kind} ${nameOf(target)}`);
  return state.runtime.ops.atomicUpdate(type.info, namespaceOf(target), nameOf(target), (obj) => setFinalizer(obj, state.finalizer, want));
}

function shouldManage(state: DecoratorState, target: KObject | undefined): target is KObject {
  return target !== undefined && (!isDeleting(target) || (hasFinalizer(target, state.finalizer) && !hasGCFinalizer(target)));
}

async function callHook(step: Step, target: KObject, finalizing: boolean): Promise<{ response: DecoratorResponse; observed: KObject[] }> {
  const { state, type } = step;
  const hook = finalizing ? state.hooks.finalize : state.hooks.sync;
  if (hook === undefined) throw new Error(`${state.label}: no ${finalizing ? 'finalize' : 'sync'} hook defined`);
  const observed = attachmentsOf(state, target, type.info.namespaced);
  const related = await state.customize.related(target);
  const types = [...state.attachmentTypes.values()].map((t) => ({ apiVersion: t.rule.apiVersion, kind: t.info.kind }));
  const attachments = buildObjectMap(types, observed, { version: hook.endpoint.version, parentNamespaced: type.info.namespaced });
  step.report.hook = finalizing ? 'finalize' : 'sync';
  const text = await hook.call({ controller: state.dc, object: target, attachments, related, finalizing });
  return { response: decodeDecoratorResponse(text, hook.endpoint.strict), observed };
}

function desiredAttachments(state: DecoratorState, owner: KObject, response: DecoratorResponse): KObject[] {
  const annotated = response.attachments.map((obj) => ({ ...obj, metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), [DECORATOR_ANNOTATION]: nameOf(state.dc) } } }));
  return defaultNamespaces({ runtime: state.runtime, owner, types: state.attachmentTypes, controller: state.label }, annotated);
}

async function applyResponse(step: Step, target: KObject, finalizing: boolean, outcome: { response: DecoratorResponse; observed: KObject[] }): Promise<void> {
  const { state } = step;
  const { response, observed } = outcome;
  if (finalizing) step.report.detail.push(`finalized=${String(response.finalized)}`);
  const desired = desiredAttachments(state, target, response);
  const written = await writeTargetSafely(step, target, response, finalizing && response.finalized);
  const context = { runtime: state.runtime, owner: target, types: state.attachmentTypes, controller: state.label };
  const errors = shouldManage(state, written) ? await manageChildren(context, observed, desired) : [];
  const failed = aggregate(errors);
  if (failed !== undefined) throw failed;
}

export async function syncTarget(state: DecoratorState, key: string, report: SyncReport): Promise<void> {
  const { typeKey, objectKey } = splitTargetKey(key);
  const type = state.targets.get(typeKey);
  const cached = type?.informer.get(objectKey);
  if (type === undefined || cached === undefined) return;
  const matches = type.matches(cached);
  if (!matches && !hasFinalizer(cached, state.finalizer)) return;
  const step: Step = { state, type, report };
  const target = await syncFinalizer(step, cached);
  if (target === undefined) return;
  const finalizing = state.hooks.finalize !== undefined && (isDeleting(target) || !matches);
  const outcome = await callHook(step, target, finalizing);
  if (outcome.response.resyncAfterSeconds > 0) state.queue.addAfter(key, outcome.response.resyncAfterSeconds * 1000);
  await applyResponse(step, target, finalizing, outcome);
}
