// Reconciling children / attachments (§6.4, dynamic-apply): delete observed objects that are no
// longer desired, create missing ones (last-applied annotation + controller ownerReference),
// update existing ones per update strategy after a 3-way merge. Errors are collected per
// object and returned, never thrown, so the parent status is still written afterwards.
import { threeWayMerge, revertReadOnly } from '../core/merge.js';
import { typeKey } from '../core/object-map.js';
import type { ChildRule, UpdateMethod } from '../core/types.js';
import { LAST_APPLIED_ANNOTATION, updateMethod } from '../core/types.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { JsonObject, KObject } from '../kube/objects.js';
import { controllerRefTo, deepCopy, deepEqual, describe, isDeleting, isObject, objectKey, stableStringify } from '../kube/objects.js';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/rest.js';
import type { Runtime } from './runtime.js';
import { errorMessage } from './runtime.js';

export interface ChildType {
  rule: ChildRule;
  info: ResourceInfo;
}

export interface ApplyContext {
  runtime: Runtime;
  owner: KObject;
  /** Declared child types by `Kind.apiVersion`. */
  types: Map<string, ChildType>;
  /** For log lines: `CompositeController foo`. */
  controller: string;
}

const identity = (obj: KObject): string => `${typeKey(obj)}|${objectKey(obj)}`;

/** The resource of a desired object: a declared type, or (undeclared, F5) found by discovery. */
function resolveType(context: ApplyContext, obj: KObject): { info: ResourceInfo; method: UpdateMethod } {
  const declared = context.types.get(typeKey(obj));
  if (declared !== undefined) return { info: declared.info, method: updateMethod(declared.rule) };
  const info = context.runtime.discovery.forKind(obj.apiVersion, obj.kind);
  if (info === undefined) throw new Error(`can't find resource for kind ${obj.kind} in apiVersion ${obj.apiVersion}`);
  return { info, method: 'OnDelete' };
}

/** Namespace defaulting: namespaced children default to the owner's namespace. */
export function defaultNamespaces(context: ApplyContext, desired: KObject[]): KObject[] {
  return desired.map((child) => {
    const copy = deepCopy(child);
    const namespaced = resolveType(context, copy).info.namespaced;
    if (!namespaced) delete copy.metadata.namespace;
    else if ((copy.metadata.namespace ?? '') === '') copy.metadata.namespace = context.owner.metadata.namespace ?? '';
    return copy;
  });
}

function withLastApplied(desired: KObject): KObject {
  const obj = deepCopy(desired);
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: stableStringify(desired) };
  return obj;
}

function lastAppliedOf(observed: KObject): JsonObject | undefined {
  const text = observed.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (text === undefined || text === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The object an InPlace update would write, or undefined when nothing would change. */
export function mergedUpdate(observed: KObject, desired: KObject): KObject | undefined {
  const merged = threeWayMerge(observed, lastAppliedOf(observed), withLastApplied(desired)) as KObject;
  const result = revertReadOnly(merged, observed);
  return deepEqual(result, observed) ? undefined : result;
}

async function createChild(context: ApplyContext, desired: KObject): Promise<void> {
  const { info } = resolveType(context, desired);
  const obj = withLastApplied(desired);
  obj.metadata.ownerReferences = [...(obj.metadata.ownerReferences ?? []), controllerRefTo(context.owner)];
  context.runtime.log.info(4, `${context.controller}: creating ${describe(obj)}`);
  try {
    await context.runtime.ops.create(info, obj);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    context.runtime.log.info(4, `${context.controller}: ${describe(obj)} already exists (not ours): ${errorMessage(error)}`);
  }
}

async function updateChild(context: ApplyContext, observed: KObject, desired: KObject): Promise<void> {
  const { info, method } = resolveType(context, desired);
  const merged = mergedUpdate(observed, desired);
  if (merged === undefined) return;
  const log = context.runtime.log;
  log.info(5, `${context.controller}: ${describe(observed)} differs from desired: ${JSON.stringify(merged)}`);
  if (isDeleting(observed)) {
    log.info(4, `${context.controller}: not updating ${describe(observed)}: pending deletion`);
    return;
  }
  if (method === 'OnDelete') return;
  try {
    if (method === 'Recreate' || method === 'RollingRecreate') {
      log.info(4, `${context.controller}: deleting ${describe(observed)} to recreate it`);
      await context.runtime.ops.deleteExact(info, observed);
      return;
    }
    log.info(4, `${context.controller}: updating ${describe(observed)} in place`);
    await context.runtime.ops.update(info, merged);
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}

async function deleteChild(context: ApplyContext, observed: KObject, info: ResourceInfo): Promise<void> {
  if (isDeleting(observed)) return;
  context.runtime.log.info(4, `${context.controller}: deleting ${describe(observed)}`);
  try {
    await context.runtime.ops.deleteExact(info, observed);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

async function collect(errors: Error[], what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    errors.push(new Error(`${what}: ${errorMessage(error)}`));
  }
}

/** Delete undesired, then create/update desired; returns the errors met on the way. */
export async function manageChildren(context: ApplyContext, observed: KObject[], desired: KObject[]): Promise<Error[]> {
  const errors: Error[] = [];
  const wanted = new Map(desired.map((obj) => [identity(obj), obj]));
  const present = new Map(observed.map((obj) => [identity(obj), obj]));
  const deletions = observed
    .filter((obj) => !wanted.has(identity(obj)))
    .map(async (obj) => {
      const type = context.types.get(typeKey(obj));
      if (type !== undefined) await collect(errors, `delete ${describe(obj)}`, async () => deleteChild(context, obj, type.info));
    });
  await Promise.all(deletions);
  const writes = desired.map(async (obj) => {
    const existing = present.get(identity(obj));
    const what = `${existing === undefined ? 'create' : 'update'} ${describe(obj)}`;
    await collect(errors, what, async () => (existing === undefined ? createChild(context, obj) : updateChild(context, existing, obj)));
  });
  await Promise.all(writes);
  return errors;
}
