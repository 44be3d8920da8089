// Metacontroller's client-side apply ("dynamic-apply", pkg/dynamic/apply): a 3-way merge of
// observed, last-applied and desired, in the style of `kubectl apply`.
//  * keys present in last-applied but missing from desired are removed from observed;
//  * keys in desired are set recursively (maps merged, scalars replaced);
//  * lists whose items (in last-applied and desired) are all objects sharing one conventional
//    key (containerPort, port, mountPath, name, uid, ip, path, tried in that order) are merged
//    item by item as a map on that key; other lists are replaced by desired.
// Afterwards status and read-only metadata are reverted to observed (children's status can
// never be set through apply).
import type { JsonObject, KObject } from '../kube/objects.js';
import { deepCopy, isObject } from '../kube/objects.js';

export const LIST_MAP_KEYS = ['containerPort', 'port', 'mountPath', 'name', 'uid', 'ip', 'path'] as const;

const READ_ONLY_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'managedFields'];

/** The conventional key every object item of every list carries, or undefined. */
export function detectListMapKey(...lists: unknown[][]): string | undefined {
  let candidates: Set<string> | undefined;
  for (const item of lists.flat()) {
    if (!isObject(item)) return undefined;
    const present = LIST_MAP_KEYS.filter((key) => key in item);
    candidates = candidates === undefined ? new Set(present) : new Set(present.filter((key) => candidates?.has(key)));
  }
  return LIST_MAP_KEYS.find((key) => candidates?.has(key));
}

function mergeKeyOf(item: unknown, key: string): string {
  const value = isObject(item) ? item[key] : undefined;
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function listToMap(list: unknown[], key: string): JsonObject {
  const map: JsonObject = {};
  for (const item of list) {
    if (isObject(item)) map[mergeKeyOf(item, key)] = item;
  }
  return map;
}

function mergeListMap(key: string, observed: unknown[], lastApplied: unknown[], desired: unknown[]): unknown[] {
  const merged = mergeObject(listToMap(observed, key), listToMap(lastApplied, key), listToMap(desired, key));
  // Desired items first, in desired order; then items others added, in observed order.
  const order = [...desired, ...observed].map((item) => mergeKeyOf(item, key));
  const result: unknown[] = [];
  for (const itemKey of new Set(order)) {
    if (itemKey in merged) result.push(merged[itemKey]);
  }
  return result;
}

function mergeArray(observed: unknown[], lastApplied: unknown, desired: unknown[]): unknown[] {
  const last = Array.isArray(lastApplied) ? lastApplied : [];
  const key = detectListMapKey(last, desired);
  return key === undefined ? desired : mergeListMap(key, observed, last, desired);
}

function mergeValue(observed: unknown, lastApplied: unknown, desired: unknown): unknown {
  if (isObject(observed) && isObject(desired)) {
    return mergeObject(observed, isObject(lastApplied) ? lastApplied : {}, desired);
  }
  if (Array.isArray(observed) && Array.isArray(desired)) return mergeArray(observed, lastApplied, desired);
  return desired;
}

/** Mutates and returns `observed`. */
function mergeObject(observed: JsonObject, lastApplied: JsonObject, desired: JsonObject): JsonObject {
  for (const key of Object.keys(lastApplied)) {
    if (!(key in desired)) Reflect.deleteProperty(observed, key);
  }
  for (const [key, value] of Object.entries(desired)) {
    observed[key] = mergeValue(observed[key], lastApplied[key], value);
  }
  return observed;
}

/** merge(observed, lastApplied, desired) on copies; inputs are not modified. */
export function threeWayMerge(observed: JsonObject, lastApplied: JsonObject | undefined, desired: JsonObject): JsonObject {
  return mergeObject(deepCopy(observed), deepCopy(lastApplied ?? {}), deepCopy(desired));
}

/** Put back status and the read-only metadata fields of `observed` into `merged`. */
export function revertReadOnly(merged: KObject, observed: KObject): KObject {
  const result: KObject = { ...merged, metadata: { ...merged.metadata } };
  for (const field of READ_ONLY_METADATA) {
    if (field in observed.metadata) result.metadata[field] = deepCopy(observed.metadata[field]);
    else Reflect.deleteProperty(result.metadata, field);
  }
  if ('status' in observed) result.status = deepCopy(observed.status);
  else delete result.status;
  return result;
}
