// Metacontroller hook version v2 request and response bodies.
import type { KObject } from './k8s.js';
import { isRecord } from './records.js';

/** `Kind.group/version` → `namespace/name` (or `name` for cluster-scoped objects) → object. */
export type ObjectMap = Record<string, Record<string, KObject>>;

export interface CompositeSyncRequest {
  controller: KObject;
  parent: KObject;
  children: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
}

export interface CompositeSyncResponse {
  status: Record<string, unknown>;
  children: KObject[];
  resyncAfterSeconds?: number;
  finalized?: boolean;
}

export interface DecoratorSyncResponse {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  status: Record<string, unknown> | null;
  attachments: KObject[];
  resyncAfterSeconds?: number;
  finalized?: boolean;
}

export interface RelatedResourceRule {
  apiVersion: string;
  resource: string;
  labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  namespaceSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  namespace?: string;
  names?: string[];
}

export interface CustomizeResponse {
  relatedResources: RelatedResourceRule[];
}

/** The outer key of an object map: `Kind.version` for the core group, `Kind.group/version` otherwise. */
function objectMapKey(kind: string, apiVersion: string): string {
  return `${kind}.${apiVersion}`;
}

/** The objects of one kind in an object map, sorted by key so iteration order is deterministic. */
export function objectsOf(map: ObjectMap, kind: string, apiVersion: string): KObject[] {
  const inner = map[objectMapKey(kind, apiVersion)] ?? {};
  return Object.keys(inner)
    .sort()
    .map((key) => inner[key])
    .filter((obj): obj is KObject => obj !== undefined);
}

/** A Kubernetes object as JSON: kind, apiVersion and metadata present. */
export function isKObject(value: unknown): value is KObject {
  return isRecord(value) && typeof value.kind === 'string' && typeof value.apiVersion === 'string' && isRecord(value.metadata);
}

/** Code-point order (not locale order), so sorted output is the same on every machine. */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Every object of `kind` in `group` (`''` for the core group), whatever version the rule used,
 * from `namespace`, sorted by name. Related objects may come from other namespaces (v2 label
 * rules), so the namespace is checked.
 */
export function objectsInNamespace(map: ObjectMap, kind: string, group: string, namespace: string): KObject[] {
  const prefix = group === '' ? `${kind}.` : `${kind}.${group}/`;
  const found: KObject[] = [];
  for (const outer of Object.keys(map)) {
    if (!outer.startsWith(prefix) || (group === '' && outer.includes('/'))) continue;
    for (const obj of Object.values(map[outer] ?? {})) {
      if (isKObject(obj) && obj.metadata.namespace === namespace) found.push(obj);
    }
  }
  return found.sort((a, b) => compareText(a.metadata.name ?? '', b.metadata.name ?? ''));
}
