// Loading the CRDs under manifests/crds and the manifests under examples/, and validating objects
// against a CRD's openAPIV3Schema with ajv (the CEL rules are checked by the e2e tests only).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import type { KObject } from '../../domain/k8s.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CRD_DIR = join(ROOT, 'manifests', 'crds');
export const EXAMPLES_DIR = join(ROOT, 'examples');

/** An OpenAPI v3 schema node as CRDs use it (structural subset plus the x-kubernetes extensions). */
export interface SchemaNode {
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  anyOf?: SchemaNode[];
  pattern?: string;
  maxLength?: number;
  maxItems?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [key: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
  schema: { openAPIV3Schema: SchemaNode };
}

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    versions: CrdVersion[];
  };
}

export interface LoadedCrd {
  file: string;
  crd: Crd;
  version: CrdVersion;
  schema: SchemaNode;
}

/** All documents of a YAML file (empty documents dropped). */
export function readManifests(path: string): KObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => doc.toJS() as KObject | null)
    .filter((doc): doc is KObject => doc !== null);
}

export function loadCrds(): LoadedCrd[] {
  return readdirSync(CRD_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const [crd] = readManifests(join(CRD_DIR, file)) as unknown as Crd[];
      const version = crd!.spec.versions[0]!;
      return { file, crd: crd!, version, schema: version.schema.openAPIV3Schema };
    });
}

export function crdByKind(crds: LoadedCrd[], kind: string): LoadedCrd {
  const found = crds.find((c) => c.crd.spec.names.kind === kind);
  if (found === undefined) {
    throw new Error(`no CRD for kind ${kind}`);
  }
  return found;
}

/** Every schema node with its JSON-ish path (".spec.bmc.address", ".spec.raid.hardwareRAIDVolumes[]"). */
export function walkSchema(node: SchemaNode, visit: (node: SchemaNode, path: string) => void, path = ''): void {
  visit(node, path);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    walkSchema(child, visit, `${path}.${name}`);
  }
  if (node.items !== undefined) {
    walkSchema(node.items, visit, `${path}[]`);
  }
  if (typeof node.additionalProperties === 'object') {
    walkSchema(node.additionalProperties, visit, `${path}{}`);
  }
  node.anyOf?.forEach((alternative, index) => {
    walkSchema(alternative, visit, `${path}<${index}>`);
  });
}

/** The node at a property path like "spec.raid.hardwareRAIDVolumes[]". */
export function schemaAt(root: SchemaNode, path: string): SchemaNode {
  let node: SchemaNode | undefined = root;
  for (const part of path.split('.')) {
    const name = part.replace(/\[\]$/u, '');
    node = node?.properties?.[name];
    if (part.endsWith('[]')) {
      node = node?.items;
    }
  }
  if (node === undefined) {
    throw new Error(`no schema node at ${path}`);
  }
  return node;
}

/**
 * A copy of the schema where every object with properties rejects unknown ones. The API server
 * prunes unknown fields silently, so without this a misspelt field would pass unnoticed.
 */
export function closedSchema(node: SchemaNode): SchemaNode {
  const copy: SchemaNode = { ...node };
  if (node.properties !== undefined) {
    copy.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, closedSchema(v)]));
    if (node.additionalProperties === undefined && Object.keys(node.properties).length > 0) {
      copy.additionalProperties = false;
    }
  }
  if (node.items !== undefined) {
    copy.items = closedSchema(node.items);
  }
  if (typeof node.additionalProperties === 'object') {
    copy.additionalProperties = closedSchema(node.additionalProperties);
  }
  return copy;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function newAjv(): Ajv {
  // strict: false lets ajv skip the x-kubernetes-* keywords it does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const validators = new Map<string, ValidateFunction>();

/** An ajv validator for the CRD's schema; `closed` rejects unknown properties (see closedSchema). */
export function validatorFor(loaded: LoadedCrd, closed = true): ValidateFunction {
  const key = `${loaded.file}:${String(closed)}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    const schema = closed ? closedSchema(loaded.schema) : loaded.schema;
    validate = newAjv().compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** ajv's errors as short "path message" strings, for readable assertion failures. */
export function schemaErrors(loaded: LoadedCrd, object: unknown, closed = true): string[] {
  const validate = validatorFor(loaded, closed);
  if (validate(object)) {
    return [];
  }
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

export interface InvalidCase {
  file: string;
  layer: 'schema' | 'cel';
  expect: string;
}

export function invalidCases(): InvalidCase[] {
  const [doc] = readManifests(join(EXAMPLES_DIR, 'invalid', 'cases.yaml')) as unknown as { cases: InvalidCase[] }[];
  return doc!.cases;
}

export function exampleFiles(folder: string): string[] {
  return readdirSync(join(EXAMPLES_DIR, folder))
    .filter((file) => file.endsWith('.yaml') && file !== 'cases.yaml')
    .sort()
    .map((file) => join(EXAMPLES_DIR, folder, file));
}

/** The regular expressions a CEL rule passes to matches() as raw string literals r'...'. */
export function regexesIn(rule: string): string[] {
  return [...rule.matchAll(/matches\(r'([^']*)'\)/gu)].map((m) => m[1]!);
}

/** All x-kubernetes-validations of a schema with the path of the node that carries them. */
export function rulesOf(schema: SchemaNode): { path: string; rule: ValidationRule }[] {
  const found: { path: string; rule: ValidationRule }[] = [];
  walkSchema(schema, (node, path) => {
    for (const rule of node['x-kubernetes-validations'] ?? []) {
      found.push({ path, rule });
    }
  });
  return found;
}
