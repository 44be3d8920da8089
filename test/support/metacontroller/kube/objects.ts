// Kubernetes objects as plain JSON (the stand-in never converts them to typed models, so hooks
// see exactly what the API server returned), plus the small helpers every part needs.
// Test/dev support only: see docs/dev/metacontroller-standin.md.

import type { KObject as DomainObject, ObjectMeta as DomainMeta, OwnerReference } from '../../../../domain/k8s.js';

export type { OwnerReference };

/** Ironhook's ObjectMeta, open to whatever else the API server returns (managedFields, …). */
export interface ObjectMeta extends DomainMeta {
  [key: string]: unknown;
}

export interface KObject extends DomainObject {
  metadata: ObjectMeta;
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** Deep equality of decoded JSON values (key order ignored, like reflect.DeepEqual on maps). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]));
}

/** JSON with map keys sorted, as Go's encoding/json writes maps (used for the last-applied annotation). */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item)).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

export function nameOf(obj: KObject): string {
  return obj.metadata.name ?? '';
}

export function namespaceOf(obj: KObject): string {
  return obj.metadata.namespace ?? '';
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKey(obj: KObject): string {
  const namespace = namespaceOf(obj);
  return namespace === '' ? nameOf(obj) : `${namespace}/${nameOf(obj)}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function labelsOf(obj: KObject): Record<string, string> {
  return obj.metadata.labels ?? {};
}

export function annotationsOf(obj: KObject): Record<string, string> {
  return obj.metadata.annotations ?? {};
}

export function controllerOf(obj: KObject): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
}

export function isDeleting(obj: KObject): boolean {
  return typeof obj.metadata.deletionTimestamp === 'string';
}

export function hasFinalizer(obj: KObject, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** The API group of an apiVersion (`""` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** A controller ownerReference pointing at `owner`, as Metacontroller sets on children. */
export function controllerRefTo(owner: KObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: nameOf(owner), uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** Finalizers the garbage collector handles itself (foreground deletion, orphaning). */
export function hasGCFinalizer(obj: KObject): boolean {
  return (obj.metadata.finalizers ?? []).some((name) => name === 'foregroundDeletion' || name === 'orphan');
}

export function describe(obj: KObject): string {
  return `${obj.kind} ${objectKey(obj)}`;
}
