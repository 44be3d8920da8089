// Decoding of hook responses as Metacontroller does it (§4 of the reference): field names are
// case-sensitive; type mismatches always fail; in strict mode (v2 default) unknown and
// duplicated fields of the typed parts fail too, in loose mode they are ignored. Missing fields
// take zero values. Every child/attachment must be an object with a `kind`.
import type { JsonObject, KObject } from '../kube/objects.js';
import { isObject } from '../kube/objects.js';
import { duplicateKeyPaths } from './json-scan.js';
import type { LabelSelector } from './selector.js';

type Shape = 'string' | 'number' | 'boolean' | 'object' | { array: Shape } | { map: Shape } | { fields: Record<string, Shape> };

interface Context {
  strict: boolean;
  duplicates: Set<string>;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function mismatch(path: string, expected: string, value: unknown): Error {
  return new Error(`json: cannot unmarshal ${typeName(value)} into field "${path.slice(1) || '(root)'}" of type ${expected}`);
}

function checkFields(value: JsonObject, fields: Record<string, Shape>, path: string, context: Context): void {
  for (const [key, item] of Object.entries(value)) {
    const shape = fields[key];
    if (context.strict && context.duplicates.has(`${path}.${key}`)) throw new Error(`json: duplicate field "${path.slice(1)}${path === '' ? '' : '.'}${key}"`);
    if (shape === undefined) {
      if (context.strict) throw new Error(`json: unknown field "${path.slice(1)}${path === '' ? '' : '.'}${key}"`);
      continue;
    }
    check(item, shape, `${path}.${key}`, context);
  }
}

function checkScalar(value: unknown, shape: 'string' | 'number' | 'boolean' | 'object', path: string): void {
  const ok = shape === 'object' ? isObject(value) : typeof value === shape;
  if (!ok) throw mismatch(path, shape, value);
}

/** Null is accepted everywhere (Go decodes it to the zero value). */
function check(value: unknown, shape: Shape, path: string, context: Context): void {
  if (value === null) return;
  if (typeof shape === 'string') {
    checkScalar(value, shape, path);
    return;
  }
  if ('array' in shape) {
    if (!Array.isArray(value)) throw mismatch(path, 'array', value);
    value.forEach((item, index) => {
      check(item, shape.array, `${path}[${String(index)}]`, context);
    });
    return;
  }
  if (!isObject(value)) throw mismatch(path, 'object', value);
  if ('map' in shape) {
    for (const [key, item] of Object.entries(value)) check(item, shape.map, `${path}.${key}`, context);
    return;
  }
  checkFields(value, shape.fields, path, context);
}

const SELECTOR: Shape = {
  fields: {
    matchLabels: { map: 'string' },
    matchExpressions: { array: { fields: { key: 'string', operator: 'string', values: { array: 'string' } } } },
  },
};

const RELATED_RULE: Shape = {
  fields: { apiVersion: 'string', resource: 'string', labelSelector: SELECTOR, namespaceSelector: SELECTOR, namespace: 'string', names: { array: 'string' } },
};

const SHAPES = {
  composite: { fields: { status: 'object', children: { array: 'object' }, resyncAfterSeconds: 'number', finalized: 'boolean' } },
  decorator: {
    fields: { labels: { map: 'string' }, annotations: { map: 'string' }, status: 'object', attachments: { array: 'object' }, resyncAfterSeconds: 'number', finalized: 'boolean' },
  },
  customize: { fields: { relatedResources: { array: RELATED_RULE } } },
} satisfies Record<string, Shape>;

/** Parse and type-check one response body; returns the top-level object. */
function decode(text: string, shape: Shape, strict: boolean): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`can't unmarshal response: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed)) throw new Error(`can't unmarshal response: expected a JSON object, got ${typeName(parsed)}`);
  check(parsed, shape, '', { strict, duplicates: new Set(strict ? duplicateKeyPaths(text) : []) });
  return parsed;
}

/** Objects of `children` / `attachments`: each must carry a kind. */
function objectList(value: unknown, field: string): KObject[] {
  const list = Array.isArray(value) ? value : [];
  return list.map((item, index) => {
    if (!isObject(item)) throw new Error(`${field}[${String(index)}]: Object 'Kind' is missing in 'null'`);
    if (typeof item.kind !== 'string' || item.kind === '') throw new Error(`${field}[${String(index)}]: Object 'Kind' is missing in '${JSON.stringify(item)}'`);
    return { ...item, metadata: isObject(item.metadata) ? item.metadata : {} } as KObject;
  });
}

export interface CompositeResponse {
  /** Never null: a missing or null status means `{}`. */
  status: JsonObject;
  children: KObject[];
  resyncAfterSeconds: number;
  finalized: boolean;
}

export function decodeCompositeResponse(text: string, strict: boolean): CompositeResponse {
  const body = decode(text, SHAPES.composite, strict);
  return {
    status: isObject(body.status) ? body.status : {},
    children: objectList(body.children, 'children'),
    resyncAfterSeconds: typeof body.resyncAfterSeconds === 'number' ? body.resyncAfterSeconds : 0,
    finalized: body.finalized === true,
  };
}

export interface DecoratorResponse {
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  /** null = leave the status unchanged. */
  status: JsonObject | null;
  attachments: KObject[];
  resyncAfterSeconds: number;
  finalized: boolean;
}

export function decodeDecoratorResponse(text: string, strict: boolean): DecoratorResponse {
  const body = decode(text, SHAPES.decorator, strict);
  return {
    labels: (isObject(body.labels) ? body.labels : {}) as Record<string, string | null>,
    annotations: (isObject(body.annotations) ? body.annotations : {}) as Record<string, string | null>,
    status: isObject(body.status) ? body.status : null,
    attachments: objectList(body.attachments, 'attachments'),
    resyncAfterSeconds: typeof body.resyncAfterSeconds === 'number' ? body.resyncAfterSeconds : 0,
    finalized: body.finalized === true,
  };
}

export interface RelatedRule {
  apiVersion: string;
  resource: string;
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespace?: string;
  names?: string[];
}

/** A null selector, namespace or name list is the same as an absent one. */
function normaliseRule(rule: JsonObject): RelatedRule {
  const clean = Object.fromEntries(Object.entries(rule).filter(([, value]) => value !== null && value !== ''));
  const defaults: RelatedRule = { apiVersion: '', resource: '' };
  return Object.assign(defaults, clean);
}

export function decodeCustomizeResponse(text: string, strict: boolean): RelatedRule[] {
  const body = decode(text, SHAPES.customize, strict);
  const rules = Array.isArray(body.relatedResources) ? body.relatedResources : [];
  return rules.map((rule) => normaliseRule(isObject(rule) ? rule : {}));
}
