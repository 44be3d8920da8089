// Metacontroller's children/related maps (`Kind.apiVersion` → `namespace/name` → object), built
// from a list of objects for hook requests in unit tests.
import type { KObject } from '../../domain/k8s.js';
import type { ObjectMap } from '../../domain/metacontroller.js';

export function objectMap(...objects: KObject[]): ObjectMap {
  const out: ObjectMap = {};
  for (const o of objects) {
    const key = `${o.kind}.${o.apiVersion}`;
    const name = o.metadata.namespace === undefined ? (o.metadata.name ?? '') : `${o.metadata.namespace}/${o.metadata.name ?? ''}`;
    out[key] = { ...(out[key] ?? {}), [name]: o };
  }
  return out;
}
