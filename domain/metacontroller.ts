// Metacontroller hook version v2 request and response bodies (reference/metacontroller.md §5).
import type { KObject } from './k8s.js';

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

export interface DecoratorSyncRequest {
  controller: KObject;
  object: KObject;
  attachments: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
}

export interface DecoratorSyncResponse {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  status: Record<string, unknown> | null;
  attachments: KObject[];
  resyncAfterSeconds?: number;
  finalized?: boolean;
}

export interface CustomizeRequest {
  controller: KObject;
  parent: KObject;
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
export function objectMapKey(kind: string, apiVersion: string): string {
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
