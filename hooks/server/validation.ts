// Shape checks on Metacontroller v2 hook requests (before a hook runs) and on hook responses
// (before anything is sent): a malformed request is a 400, a malformed response is a 500,
// never a 200 that Metacontroller would read as "delete every child".
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { HookKind } from '../types.js';
import { isRecord } from '../../domain/records.js';

/** Which Metacontroller request a body is: decided from the body, not from configuration. */
export type RequestFlavour = 'composite' | 'decorator' | 'customize';

export type ShapeCheck = { ok: true; flavour: RequestFlavour } | { ok: false; flavour: RequestFlavour; details: string[] };

const namedObject = {
  type: 'object',
  required: ['metadata'],
  properties: {
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1 }, namespace: { type: 'string' } },
    },
  },
} as const;

const objectMap = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'object' } },
} as const;

/** A sync request: the object the hook is about under `subject`, what it owns under `owned`. */
const syncRequest = (subject: string, owned: string): object => ({
  type: 'object',
  required: [subject, owned, 'finalizing'],
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

/** Ajv's messages name paths and expectations only, never the offending values. */
function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 20).map((e) => `${e.instancePath === '' ? '/' : e.instancePath} ${e.message ?? 'is invalid'}`);
}

export function checkRequest(hook: HookKind, body: unknown): ShapeCheck {
  const flavour = flavourOf(hook, body);
  const validate = requestValidators[flavour];
  return validate(body) ? { ok: true, flavour } : { ok: false, flavour, details: describe(validate.errors) };
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
