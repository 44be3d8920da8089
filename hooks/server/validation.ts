// Shape checks on Metacontroller v2 hook requests (before a hook runs) and on hook responses
// (before anything is sent): a malformed request is a 400, a malformed response is a 500,
// never a 200 that Metacontroller would read as "delete every child".
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { HookKind } from '../types.js';
import { isRecord } from '../../domain/records.js';

/** Which Metacontroller request a body is: decided from the body, not from configuration. */
export type RequestFlavour = 'composite' | 'decorator' | 'customize';

export type ShapeCheck = { ok: true; flavour: RequestFlavour } | { ok: false; flavour: RequestFlavour; details: string[]; error?: string };

/**
 * Kubernetes names: a custom resource's name is a DNS-1123 subdomain. A namespace is a DNS-1123
 * label, but a subdomain (dots allowed) is all a hook needs to read one.
 */
const DNS_LABEL = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN = `${DNS_LABEL}(?:\\.${DNS_LABEL})*`;

const namedObject = {
  type: 'object',
  required: ['metadata'],
  properties: {
    metadata: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 253, pattern: `^${DNS_SUBDOMAIN}$` },
        namespace: { type: 'string', maxLength: 63, pattern: `^(?:${DNS_SUBDOMAIN})?$` },
      },
    },
    spec: { type: 'object' },
    status: { type: 'object' },
  },
} as const;

const objectMap = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'object' } },
} as const;

/**
 * A sync request: the object the hook is about under `subject`, what it owns under `owned`.
 * Metacontroller always sends both maps (`{}` when empty): a hook would read a missing map as
 * "nothing there".
 */
const syncRequest = (subject: string, owned: string): object => ({
  type: 'object',
  required: [subject, owned, 'related', 'finalizing'],
  properties: {
    controller: { type: 'object' },
    [subject]: namedObject,
    [owned]: objectMap,
    related: objectMap,
    finalizing: { type: 'boolean' },
  },
});

const requestSchemas: Record<RequestFlavour, object> = {
  composite: syncRequest('parent', 'children'),
  decorator: syncRequest('object', 'attachments'),
  customize: {
    type: 'object',
    required: ['parent'],
    properties: { controller: { type: 'object' }, parent: namedObject },
  },
};

const childList = {
  type: 'array',
  items: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
} as const;
const stringOrNullMap = { type: 'object', additionalProperties: { type: ['string', 'null'] } } as const;

// Exactly the documented response keys: v2 hooks are decoded strictly.
const responseSchemas: Record<RequestFlavour, object> = {
  composite: {
    type: 'object',
    required: ['status', 'children'],
    additionalProperties: false,
    properties: {
      status: { type: 'object' },
      children: childList,
      resyncAfterSeconds: { type: 'number' },
      finalized: { type: 'boolean' },
    },
  },
  decorator: {
    type: 'object',
    required: ['attachments'],
    additionalProperties: false,
    properties: {
      labels: stringOrNullMap,
      annotations: stringOrNullMap,
      status: { type: ['object', 'null'] },
      attachments: childList,
      resyncAfterSeconds: { type: 'number' },
      finalized: { type: 'boolean' },
    },
  },
  customize: {
    type: 'object',
    required: ['relatedResources'],
    additionalProperties: false,
    properties: {
      relatedResources: {
        type: 'array',
        items: {
          type: 'object',
          required: ['apiVersion', 'resource'],
          properties: { apiVersion: { type: 'string' }, resource: { type: 'string' } },
        },
      },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });

function compileAll(schemas: Record<RequestFlavour, object>): Record<RequestFlavour, ValidateFunction> {
  return {
    composite: ajv.compile(schemas.composite),
    decorator: ajv.compile(schemas.decorator),
    customize: ajv.compile(schemas.customize),
  };
}

const requestValidators = compileAll(requestSchemas);
const responseValidators = compileAll(responseSchemas);

/** Decorator requests carry `object`, composite ones `parent`; customize is chosen by the route. */
function flavourOf(hook: HookKind, body: unknown): RequestFlavour {
  if (hook === 'customize') return 'customize';
  return isRecord(body) && 'object' in body && !('parent' in body) ? 'decorator' : 'composite';
}

/** A key as a detail names it: its first hundred characters, so a huge key never fills an answer or a log line. */
function short(key: string): string {
  return key.length > 100 ? `${key.slice(0, 100)}…` : key;
}

/** Ajv's messages name paths and expectations only, never the offending values. */
function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 20).map((e) => `${e.instancePath === '' ? '/' : e.instancePath.split('/').map(short).join('/')} ${e.message ?? 'is invalid'}`);
}

export function checkRequest(hook: HookKind, body: unknown): ShapeCheck {
  const flavour = flavourOf(hook, body);
  const validate = requestValidators[flavour];
  if (!validate(body)) return { ok: false, flavour, details: describe(validate.errors) };
  const misplaced = flavour === 'customize' ? [] : misplacedObjects(body as Record<string, unknown>, flavour);
  return misplaced.length === 0
    ? { ok: true, flavour }
    : { ok: false, flavour, details: misplaced, error: 'observed objects are malformed or filed under the wrong keys' };
}

/** A JSON pointer token, shortened: details name where, never echo what. */
function token(key: string): string {
  return short(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Kubernetes keeps spec and status as objects, when they are there at all. */
function hasObjectParts(obj: Record<string, unknown>): boolean {
  return ['spec', 'status'].every((part) => obj[part] === undefined || isRecord(obj[part]));
}

/** `Kind.apiVersion`, the outer key Metacontroller files an object under; undefined when unreadable. */
function typeKey(obj: Record<string, unknown>): string | undefined {
  return typeof obj.kind === 'string' && typeof obj.apiVersion === 'string' ? `${obj.kind}.${obj.apiVersion}` : undefined;
}

/** `namespace/name`, or `name` without a namespace: the inner key; undefined when unreadable. */
function nameKey(metadata: Record<string, unknown>): string | undefined {
  const { name, namespace = '' } = metadata;
  if (typeof name !== 'string' || name === '' || typeof namespace !== 'string') return undefined;
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** Whether `obj` is a Kubernetes object that Metacontroller files under `outer` and `inner`: it builds both keys from the object itself. */
function isFiledAt(obj: unknown, outer: string, inner: string): boolean {
  if (!isRecord(obj) || !isRecord(obj.metadata) || !hasObjectParts(obj)) return false;
  return typeKey(obj) === outer && nameKey(obj.metadata) === inner;
}

/** The namespace the subject's children live in (owner references never cross namespaces). */
function subjectNamespace(body: Record<string, unknown>, flavour: RequestFlavour): string | undefined {
  const subject = body[flavour === 'decorator' ? 'object' : 'parent'];
  return isRecord(subject) && isRecord(subject.metadata) ? text(subject.metadata.namespace) : undefined;
}

/** Problems with one object map: entries that are not the objects their keys name. */
function mapProblems(map: unknown, field: string, home: string | undefined, owned: boolean): string[] {
  const problems: string[] = [];
  for (const [outer, objects] of Object.entries(isRecord(map) ? map : {})) {
    for (const [inner, obj] of Object.entries(isRecord(objects) ? objects : {})) {
      const elsewhere = owned && home !== undefined && !inner.startsWith(`${home}/`);
      if (elsewhere || !isFiledAt(obj, outer, inner))
        problems.push(`/${field}/${token(outer)}/${token(inner)} is not a well-formed object filed under its keys`);
    }
  }
  return problems;
}

/**
 * Observed objects that are not what their map keys say: of another kind, version, name or
 * namespace, not Kubernetes objects at all (no metadata, a spec or status that is not an
 * object), or children outside the parent's namespace. A hook would read past such an entry,
 * and a 200 without it would make Metacontroller delete the child.
 */
function misplacedObjects(body: Record<string, unknown>, flavour: RequestFlavour): string[] {
  const home = subjectNamespace(body, flavour);
  const owned = flavour === 'decorator' ? 'attachments' : 'children';
  const problems = [...mapProblems(body[owned], owned, home, true), ...mapProblems(body.related, 'related', home, false)];
  return problems.length <= 20 ? problems : [...problems.slice(0, 20), `and ${problems.length - 20} more observed objects`];
}

export function checkResponse(flavour: RequestFlavour, response: unknown): ShapeCheck {
  const validate = responseValidators[flavour];
  return validate(response) ? { ok: true, flavour } : { ok: false, flavour, details: describe(validate.errors) };
}

export interface RequestTarget {
  namespace?: string;
  name?: string;
  /** Which version of the parent the hook was handed: Metacontroller's cache can be behind. */
  resourceVersion?: string;
}

/** Namespace, name and resourceVersion of the object a request is about, for log lines; absent when unreadable. */
export function targetOf(body: unknown): RequestTarget {
  if (!isRecord(body)) return {};
  const target = isRecord(body.parent) ? body.parent : body.object;
  const metadata = isRecord(target) ? target.metadata : undefined;
  if (!isRecord(metadata)) return {};
  const out: RequestTarget = {};
  for (const key of ['namespace', 'name', 'resourceVersion'] as const) {
    const value = metadata[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
