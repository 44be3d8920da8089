// Reading Metacontroller v2 requests: a malformed body is a HookInputError (HTTP 400, never a 200
// that would delete children). One reader per request shape: composite sync and finalize,
// customize, decorator sync.
import type { KObject } from '../../domain/k8s.js';
import { isKObject, type ObjectMap } from '../../domain/metacontroller.js';
import { isRecord } from '../../domain/records.js';
import { HookInputError } from './errors.js';

/** A CompositeController sync or finalize request. */
export interface CompositeRequest {
  /** The CompositeController object, when Metacontroller sends it. */
  controller: KObject | undefined;
  parent: KObject;
  /** The parent's namespace. */
  namespace: string;
  children: ObjectMap;
  related: ObjectMap;
  finalizing: boolean;
}

/** A customize request: which related objects the parent wants. */
export interface CustomizeRequest {
  controller: KObject | undefined;
  parent: KObject;
}

/** A DecoratorController sync request. */
export interface DecoratorRequest {
  controller: KObject | undefined;
  object: KObject;
  related: ObjectMap;
  finalizing: boolean;
}

function requireObject(value: unknown, field: string, kind: string): KObject {
  if (!isKObject(value)) throw new HookInputError(`${field} must be a Kubernetes object`);
  if (value.kind !== kind) throw new HookInputError(`${field} must be a ${kind}, got ${value.kind}`);
  if (typeof value.metadata.name !== 'string' || typeof value.metadata.namespace !== 'string') {
    throw new HookInputError(`${field} must have metadata.name and metadata.namespace`);
  }
  return value;
}

function objectMap(value: unknown, field: string): ObjectMap {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new HookInputError(`${field} must be an object map`);
  return value as ObjectMap;
}

function requireBody(request: unknown): Record<string, unknown> {
  if (!isRecord(request)) throw new HookInputError('request must be a JSON object');
  return request;
}

function controllerOf(request: Record<string, unknown>): KObject | undefined {
  return isKObject(request.controller) ? request.controller : undefined;
}

export function parseComposite(request: unknown, parentKind: string): CompositeRequest {
  const body = requireBody(request);
  const parent = requireObject(body.parent, 'parent', parentKind);
  return {
    controller: controllerOf(body),
    parent,
    namespace: parent.metadata.namespace ?? '',
    children: objectMap(body.children, 'children'),
    related: objectMap(body.related, 'related'),
    finalizing: body.finalizing === true,
  };
}

export function parseCustomize(request: unknown, parentKind: string): CustomizeRequest {
  const body = requireBody(request);
  return { controller: controllerOf(body), parent: requireObject(body.parent, 'parent', parentKind) };
}

export function parseDecorator(request: unknown, targetKind: string): DecoratorRequest {
  const body = requireBody(request);
  return {
    controller: controllerOf(body),
    object: requireObject(body.object, 'object', targetKind),
    related: objectMap(body.related, 'related'),
    finalizing: body.finalizing === true,
  };
}

/**
 * The `kind` object at `field` of a decorator's sync (`object`) or customize (`parent`) request,
 * read leniently: only its kind and a metadata object are required.
 */
export function decoratorTarget(request: unknown, field: 'object' | 'parent', kind: string): KObject {
  const target = isRecord(request) ? request[field] : undefined;
  if (!isRecord(target) || target.kind !== kind || !isRecord(target.metadata)) {
    throw new HookInputError(`not a ${kind} decorator request`, [`${field} must be a ${kind}`]);
  }
  return target as KObject;
}
