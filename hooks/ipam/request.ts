// Reading Metacontroller v2 requests for the IPAM controllers: shape checks that turn a malformed
// body into HookInputError (HTTP 400, never a 200 that would delete children), object-map access
// by kind regardless of version, and the Cluster API settings read from the controller object.
import type { KObject } from '../../domain/k8s.js';
import { compareText, isKObject, objectsInNamespace as objectsOfKind, type ObjectMap } from '../../domain/metacontroller.js';
import { CAPI_GROUP, CAPI_IPAM_GROUP } from '../../domain/ipam/types.js';
import { HookInputError } from '../types.js';
import { isRecord } from '../../domain/records.js';

export { compareText, isRecord, objectsOfKind };

export interface ParsedComposite {
  controller: KObject | undefined;
  parent: KObject;
  children: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
}

export interface ParsedDecorator {
  controller: KObject | undefined;
  object: KObject;
  related: ObjectMap;
  finalizing: boolean;
}

/** Cluster API IPAM is served when the controller declares CAPI IPAddress children (or rules). */
export interface CapiVersions {
  /** `ipam.cluster.x-k8s.io/<version>` */
  ipam: string;
  /** `cluster.x-k8s.io/<version>`, the same version as the IPAM group. */
  cluster: string;
}

function objectMap(value: unknown, field: string): ObjectMap {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new HookInputError(`${field} must be an object map`);
  return value as ObjectMap;
}

function requireObject(value: unknown, field: string, kind: string): KObject {
  if (!isKObject(value)) throw new HookInputError(`${field} must be a Kubernetes object`);
  if (value.kind !== kind) throw new HookInputError(`${field} must be a ${kind}, got ${value.kind}`);
  if (typeof value.metadata.name !== 'string' || typeof value.metadata.namespace !== 'string') {
    throw new HookInputError(`${field} must have metadata.name and metadata.namespace`);
  }
  return value;
}

export function parseComposite(request: unknown, parentKind: string): ParsedComposite {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  return {
    controller: isKObject(request.controller) ? request.controller : undefined,
    parent: requireObject(request.parent, 'parent', parentKind),
    children: objectMap(request.children, 'children'),
    related: objectMap(request.related, 'related'),
    finalizing: request.finalizing === true,
  };
}

export function parseDecorator(request: unknown, targetKind: string): ParsedDecorator {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  return {
    controller: isKObject(request.controller) ? request.controller : undefined,
    object: requireObject(request.object, 'object', targetKind),
    related: objectMap(request.related, 'related'),
    finalizing: request.finalizing === true,
  };
}

export function parseCustomize(request: unknown, parentKind: string): { controller: KObject | undefined; parent: KObject } {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  return {
    controller: isKObject(request.controller) ? request.controller : undefined,
    parent: requireObject(request.parent, 'parent', parentKind),
  };
}


function childRules(controller: KObject | undefined): Array<{ apiVersion: string; resource: string }> {
  const spec = controller?.spec;
  if (!isRecord(spec) || !Array.isArray(spec.childResources)) return [];
  return spec.childResources.filter(
    (rule): rule is { apiVersion: string; resource: string } =>
      isRecord(rule) && typeof rule.apiVersion === 'string' && typeof rule.resource === 'string',
  );
}

/** CAPI support is on exactly when the CompositeController lists CAPI IPAddresses as children. */
export function capiVersionsOf(controller: KObject | undefined): CapiVersions | undefined {
  const rule = childRules(controller).find(
    (r) => r.resource === 'ipaddresses' && r.apiVersion.startsWith(`${CAPI_IPAM_GROUP}/`),
  );
  if (rule === undefined) return undefined;
  const version = rule.apiVersion.slice(CAPI_IPAM_GROUP.length + 1);
  return { ipam: rule.apiVersion, cluster: `${CAPI_GROUP}/${version}` };
}

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function recordField(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (typeof item === 'string') out[key] = item;
  }
  return out;
}
