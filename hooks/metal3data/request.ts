// Reading Metacontroller v2 requests for the Metal3Data controllers: a malformed body is a
// HookInputError (HTTP 400, never a 200 that would delete children); objects of a kind are
// found by group whatever version the rule used, from the parent's namespace, sorted by name.
import type { KObject, OwnerReference } from '../../domain/k8s.js';
import { compareText, isKObject, objectsInNamespace as objectsOf, type ObjectMap } from '../../domain/metacontroller.js';
import { canonicalize } from '../../domain/canonical.js';
import { CONTROLLER_UID_LABEL } from '../../domain/capi/types.js';
import { HookInputError } from '../types.js';
import { isRecord } from '../../domain/records.js';

export { isRecord };

export interface Composite {
  parent: KObject;
  namespace: string;
  children: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
}

export type Rec = Record<string, unknown>;

export function rec(value: unknown): Rec {
  return isRecord(value) ? value : {};
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function requireParent(value: unknown, kind: string): KObject {
  if (!isKObject(value)) throw new HookInputError('parent must be a Kubernetes object');
  if (value.kind !== kind) throw new HookInputError(`parent must be a ${kind}, got ${value.kind}`);
  if (typeof value.metadata.name !== 'string' || typeof value.metadata.namespace !== 'string') {
    throw new HookInputError('parent must have metadata.name and metadata.namespace');
  }
  return value;
}

function objectMap(value: unknown, field: string): ObjectMap {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new HookInputError(`${field} must be an object map`);
  return value as ObjectMap;
}

export function parseComposite(request: unknown, kind: string): Composite {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  const parent = requireParent(request.parent, kind);
  return {
    parent,
    namespace: parent.metadata.namespace ?? '',
    children: objectMap(request.children, 'children'),
    related: objectMap(request.related, 'related'),
    finalizing: request.finalizing === true,
  };
}

export function parseCustomize(request: unknown, kind: string): KObject {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  return requireParent(request.parent, kind);
}

export function named(objects: readonly KObject[], name: string): KObject | undefined {
  return name === '' ? undefined : objects.find((obj) => obj.metadata.name === name);
}

export function isDeleting(obj: KObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined;
}

/** The owner reference of `kind` in `group`, if any. */
export function ownerOf(obj: KObject, kind: string, group: string): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((ref) => ref.kind === kind && (ref.apiVersion === group || ref.apiVersion.startsWith(`${group}/`)));
}

/**
 * A child returned as observed: what the hook owns of it (labels without Metacontroller's
 * selector label, non-controller owner references, the given top-level fields). Children are
 * updated OnDelete, so this only keeps them from being deleted.
 */
export function echoChild(obj: KObject, fields: readonly string[], annotationKeys: readonly string[] = []): KObject {
  const labels = Object.fromEntries(
    Object.entries(obj.metadata.labels ?? {})
      .filter(([key]) => key !== CONTROLLER_UID_LABEL)
      .sort(([a], [b]) => compareText(a, b)),
  );
  const owners = (obj.metadata.ownerReferences ?? []).filter((ref) => ref.controller !== true);
  const annotations = Object.fromEntries(annotationKeys.flatMap((key) => {
    const value = obj.metadata.annotations?.[key];
    return value === undefined ? [] : [[key, value]];
  }));
  const metadata: KObject['metadata'] = { name: obj.metadata.name ?? '', labels };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  if (owners.length > 0) metadata.ownerReferences = owners;
  const out: KObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
  for (const field of fields) {
    if (obj[field] !== undefined) out[field] = obj[field];
  }
  return out;
}

export { compareText, objectsOf };

/** A child with its keys sorted at every level, so equal children are equal text (metacontroller.md F3). */
export function canonicalChild(obj: KObject): KObject {
  return canonicalize(obj) as KObject;
}
