// Translates a CRD's openAPIV3Schema (a Kubernetes structural schema) into the JSON Schema that
// json-schema-to-typescript reads, so the generated types say what the API server stores:
//
// - objects are closed unless the schema says otherwise (the API server prunes unknown fields);
//   `additionalProperties` (a map) and `x-kubernetes-preserve-unknown-fields` open them;
// - `x-kubernetes-int-or-string` is `number | string`, `nullable` adds `null`, an object without
//   fields is `Record<string, never>`;
// - anyOf / oneOf / allOf / not only validate in a structural schema (the type is in the node
//   itself), so they go, as do CEL rules, formats, patterns and bounds;
// - `title` would name a type, so only the kind's own object, spec and status get one.
import type { compile } from 'json-schema-to-typescript';

/** The schema json-schema-to-typescript compiles (its JSON Schema draft 4 type). */
type JSONSchema4 = Parameters<typeof compile>[0];

/** A node of a CRD schema, as YAML parses it. */
export interface CrdSchema {
  type?: string;
  description?: string;
  properties?: Record<string, CrdSchema>;
  additionalProperties?: CrdSchema | boolean;
  items?: CrdSchema;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [keyword: string]: unknown;
}

/** Keywords passed on to the generator; everything else only validates. */
const KEPT = ['type', 'description', 'required', 'enum'] as const;

function kept(node: CrdSchema): JSONSchema4 {
  const out: JSONSchema4 = {};
  for (const key of KEPT) if (node[key] !== undefined) out[key] = node[key] as never;
  return out;
}

/** `properties`, `items` and `additionalProperties` of an object or array node. */
function children(node: CrdSchema, out: JSONSchema4): void {
  if (node.properties !== undefined) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, child]) => [name, translate(child)]));
  }
  if (node.items !== undefined) out.items = translate(node.items);
  if (typeof node.additionalProperties === 'object') out.additionalProperties = translate(node.additionalProperties);
  else if (node.additionalProperties === true || node['x-kubernetes-preserve-unknown-fields'] === true) out.additionalProperties = true;
}

function withNull(schema: JSONSchema4): JSONSchema4 {
  if (schema.tsType !== undefined) return { ...schema, tsType: `${schema.tsType} | null` };
  if (schema.enum !== undefined) return schema.enum.includes(null) ? schema : { ...schema, enum: [...schema.enum, null] };
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
}

function described(node: CrdSchema, schema: JSONSchema4): JSONSchema4 {
  return node.description === undefined ? schema : { ...schema, description: node.description };
}

/** A node whose fields the generator types one by one. */
function structural(node: CrdSchema): JSONSchema4 {
  const out = kept(node);
  children(node, out);
  // An object without fields keeps none (the API server prunes them all): only `{}` fits.
  const empty = Object.keys(out.properties ?? {}).length === 0 && out.additionalProperties === undefined;
  if (node.type === 'object' && empty) out.tsType = 'Record<string, never>';
  return out;
}

/** One schema node in the generator's terms. */
export function translate(node: CrdSchema): JSONSchema4 {
  let out: JSONSchema4;
  if (node['x-kubernetes-int-or-string'] === true) out = described(node, { tsType: 'number | string' });
  else if (node.type === undefined && node['x-kubernetes-preserve-unknown-fields'] === true) out = described(node, { tsType: 'unknown' });
  else out = structural(node);
  return node.nullable === true ? withNull(out) : out;
}

/**
 * The whole object of `kind` with named spec and status. `metadata` is the API server's
 * ObjectMeta, which a CRD does not describe, so it stays an open object here.
 */
export function generatorSchema(root: CrdSchema, kind: string): JSONSchema4 {
  const out = translate(root);
  out.title = kind;
  const props = out.properties ?? {};
  if (props.metadata !== undefined) props.metadata = { tsType: '{ [field: string]: unknown }' };
  for (const [name, suffix] of [
    ['spec', 'Spec'],
    ['status', 'Status'],
  ] as const) {
    const node = props[name];
    if (node !== undefined) props[name] = { ...node, title: `${kind}${suffix}` };
  }
  return out;
}
