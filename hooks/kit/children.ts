// Observed objects and the children a hook returns: lookup by kind and name (objects of a kind
// are found by group whatever version the rule used, from the parent's namespace, sorted by
// name), owner references, and a child echoed as observed.
import type { KObject, OwnerReference } from '../../domain/k8s.js';
import { compareText, objectsInNamespace as objectsOf, type ObjectMap } from '../../domain/metacontroller.js';
import { CONTROLLER_UID_LABEL } from '../../domain/capi/types.js';

export { compareText, objectsOf };

/** The object called `name`, if any (none for an empty name). */
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
  const labels = Object.fromEntries(Object.entries(obj.metadata.labels ?? {}).filter(([key]) => key !== CONTROLLER_UID_LABEL));
  const owners = (obj.metadata.ownerReferences ?? []).filter((ref) => ref.controller !== true);
  const annotations = Object.fromEntries(
    annotationKeys.flatMap((key) => {
      const value = obj.metadata.annotations?.[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  const metadata: KObject['metadata'] = { name: obj.metadata.name ?? '', labels };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  if (owners.length > 0) metadata.ownerReferences = owners;
  const out: KObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
  for (const field of fields) {
    if (obj[field] !== undefined) out[field] = obj[field];
  }
  return out;
}

/** Every observed child, in object-map key order then name order, echoed with its spec. */
export function echoAllChildren(children: ObjectMap): KObject[] {
  const out: KObject[] = [];
  for (const outer of Object.keys(children).sort()) {
    const inner = children[outer] ?? {};
    for (const key of Object.keys(inner).sort()) {
      const obj = inner[key];
      if (obj !== undefined) out.push(echoChild(obj, ['spec']));
    }
  }
  return out;
}

/** Children sorted by name. */
export function sortedByName(children: KObject[]): KObject[] {
  return children.sort((a, b) => compareText(a.metadata.name ?? '', b.metadata.name ?? ''));
}

/** Children sorted by kind, then name (locale order). */
export function sortedByKindAndName(children: KObject[]): KObject[] {
  return [...children].sort((a, b) => `${a.kind}/${a.metadata.name ?? ''}`.localeCompare(`${b.kind}/${b.metadata.name ?? ''}`));
}
