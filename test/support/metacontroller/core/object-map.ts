// The object maps in hook requests (`children`, `attachments`, `related`): outer key
// `Kind.apiVersion` (`ConfigMap.v1`, `Widget.acme.io/v1`), inner key by hook version:
//   v2: `namespace/name` for namespaced objects, `name` for cluster-scoped ones;
//   v1: `name`, except `namespace/name` for namespaced objects of a cluster-scoped parent.
import type { KObject } from '../kube/objects.js';
import { nameOf, namespaceOf } from '../kube/objects.js';

export type ObjectMap = Record<string, Record<string, KObject>>;
export type HookVersion = 'v1' | 'v2';

export interface TypeRef {
  apiVersion: string;
  kind: string;
}

export function typeKey(type: TypeRef): string {
  return `${type.kind}.${type.apiVersion}`;
}

/** Kinds contain no dots, so the first dot separates kind and apiVersion. */
export function splitTypeKey(key: string): TypeRef {
  const dot = key.indexOf('.');
  return dot < 0 ? { kind: key, apiVersion: '' } : { kind: key.slice(0, dot), apiVersion: key.slice(dot + 1) };
}

export function innerKey(obj: KObject, version: HookVersion, parentNamespaced: boolean): string {
  const namespace = namespaceOf(obj);
  if (namespace === '') return nameOf(obj);
  if (version === 'v1' && parentNamespaced) return nameOf(obj);
  return `${namespace}/${nameOf(obj)}`;
}

export interface MapOptions {
  version: HookVersion;
  parentNamespaced: boolean;
}

/**
 * A map with every declared type present (possibly `{}`) and each object under the type it
 * was read as. Objects of undeclared types are left out.
 */
export function buildObjectMap(types: TypeRef[], objects: KObject[], options: MapOptions): ObjectMap {
  const map: ObjectMap = {};
  for (const type of types) map[typeKey(type)] = {};
  for (const obj of objects) {
    const inner = map[typeKey(obj)];
    if (inner !== undefined) inner[innerKey(obj, options.version, options.parentNamespaced)] = obj;
  }
  return map;
}

/** Flatten a map back into its objects (in key order, for deterministic processing). */
export function mapObjects(map: ObjectMap): KObject[] {
  return Object.keys(map)
    .sort()
    .flatMap((type) => {
      const inner = map[type] ?? {};
      return Object.keys(inner)
        .sort()
        .map((key) => inner[key] as KObject);
    });
}
