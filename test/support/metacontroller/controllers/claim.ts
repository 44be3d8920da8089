// Claiming children (§6.3, Kubernetes' ControllerRefManager as Metacontroller uses it):
// candidates are objects of each child type in the parent's namespace (everywhere for a
// cluster-scoped parent) that this parent controls or that have no controller at all.
//  * ours + selector matches        -> claimed
//  * ours + no match                -> released (ownerReference removed), unless the parent is deleting
//  * orphan + match, nobody deleting -> adopted after an uncached check that the parent still
//                                      exists with the same UID and is not being deleted
import type { Informer } from '../kube/informer.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { KObject } from '../kube/objects.js';
import { controllerOf, controllerRefTo, describe, isDeleting, labelsOf, nameOf, namespaceOf } from '../kube/objects.js';
import { isNotFound } from '../kube/rest.js';
import type { Matcher } from '../core/selector.js';
import type { Runtime } from './runtime.js';
import { errorMessage } from './runtime.js';

export interface ClaimContext {
  runtime: Runtime;
  parent: KObject;
  parentInfo: ResourceInfo;
  matches: Matcher;
  controller: string;
}

interface Claimer {
  context: ClaimContext;
  canAdopt: () => Promise<boolean>;
  errors: Error[];
}

/** One uncached GET of the parent per sync, shared by all adoptions. */
function adoptionCheck(context: ClaimContext): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return async () => {
    answer ??= context.runtime.ops
      .find(context.parentInfo, namespaceOf(context.parent), nameOf(context.parent))
      .then((fresh) => fresh !== undefined && fresh.metadata.uid === context.parent.metadata.uid && !isDeleting(fresh));
    return answer;
  };
}

async function release(claimer: Claimer, info: ResourceInfo, child: KObject): Promise<void> {
  const { context } = claimer;
  const uid = context.parent.metadata.uid;
  context.runtime.log.info(4, `${context.controller}: releasing ${describe(child)}`);
  await context.runtime.ops.atomicUpdate(info, namespaceOf(child), nameOf(child), (obj) => {
    const refs = obj.metadata.ownerReferences ?? [];
    if (!refs.some((ref) => ref.uid === uid)) return false;
    obj.metadata.ownerReferences = refs.filter((ref) => ref.uid !== uid);
    return true;
  });
}

async function adopt(claimer: Claimer, info: ResourceInfo, child: KObject): Promise<KObject | undefined> {
  const { context } = claimer;
  if (!(await claimer.canAdopt())) return undefined;
  context.runtime.log.info(4, `${context.controller}: adopting ${describe(child)}`);
  const adopted = await context.runtime.ops.atomicUpdate(info, namespaceOf(child), nameOf(child), (obj) => {
    if (controllerOf(obj) !== undefined || obj.metadata.uid !== child.metadata.uid) return false;
    obj.metadata.ownerReferences = [...(obj.metadata.ownerReferences ?? []), controllerRefTo(context.parent)];
    return true;
  });
  const ref = adopted === undefined ? undefined : controllerOf(adopted);
  return ref?.uid === context.parent.metadata.uid ? { ...(adopted as KObject), apiVersion: child.apiVersion, kind: child.kind } : undefined;
}

/** The claimed version of `child`, or undefined when it is not (or no longer) ours. */
async function claimOne(claimer: Claimer, info: ResourceInfo, child: KObject): Promise<KObject | undefined> {
  const { parent, matches } = claimer.context;
  const ref = controllerOf(child);
  const parentDeleting = isDeleting(parent);
  if (ref !== undefined && ref.uid !== parent.metadata.uid) return undefined;
  const match = matches(labelsOf(child));
  if (ref !== undefined) {
    if (!match && !parentDeleting) await release(claimer, info, child);
    return match ? child : undefined;
  }
  if (parentDeleting || !match || isDeleting(child)) return undefined;
  return adopt(claimer, info, child);
}

async function claimSafely(claimer: Claimer, info: ResourceInfo, child: KObject): Promise<KObject | undefined> {
  try {
    return await claimOne(claimer, info, child);
  } catch (error) {
    if (!isNotFound(error)) claimer.errors.push(new Error(`claim ${describe(child)}: ${errorMessage(error)}`));
    return undefined;
  }
}

/** Claimed children of every type; errors are thrown together after all types were tried. */
export async function claimChildren(context: ClaimContext, types: { info: ResourceInfo; informer: Informer }[]): Promise<{ children: KObject[]; errors: Error[] }> {
  const claimer: Claimer = { context, canAdopt: adoptionCheck(context), errors: [] };
  const namespace = context.parentInfo.namespaced ? namespaceOf(context.parent) : undefined;
  const claimed = await Promise.all(
    types.flatMap(({ info, informer }) => informer.list(namespace).map(async (child) => claimSafely(claimer, info, child))),
  );
  return { children: claimed.filter((child): child is KObject => child !== undefined), errors: claimer.errors };
}
