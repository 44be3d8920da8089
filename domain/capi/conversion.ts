// v1beta1 ↔ v1beta2 conversion of Cluster API provider objects, lossless both ways.
//
// Each kind supplies the field mapping (a KindConverter). This module does the rest: it checks
// group and versions, copies metadata, and keeps what the target version cannot express in an
// annotation on the converted object, so converting back restores it:
//
//   conversion.ironhook.dev/v1beta1  on a v1beta2 object: fields only v1beta1 has
//   conversion.ironhook.dev/v1beta2  on a v1beta1 object: fields only v1beta2 has
//
// Converting towards version V consumes (and removes) the annotation named V and writes the
// annotation named after the source version when something was dropped. Pure: no clock, no I/O.
import type { KObject, ObjectReference } from '../k8s.js';
import { canonicalJSON } from '../canonical.js';
import { groupOf, versionOf, type InfraVersion, type Metal3ObjectRef, type ReferenceExtras } from './types.js';
import { isRecord } from '../records.js';

const CONVERSION_ANNOTATION_PREFIX = 'conversion.ironhook.dev/';

export function conversionAnnotation(version: InfraVersion): string {
  return `${CONVERSION_ANNOTATION_PREFIX}${version}`;
}

/** Everything of an object except apiVersion, kind and metadata (spec, status, …). */
export type Body = Record<string, unknown>;
/** Data only one version can hold, kept in an annotation while the object lives in the other. */
export type Kept = Record<string, unknown>;

export interface Converted {
  body: Body;
  /** What the target version cannot hold; empty when nothing was dropped. */
  kept: Kept;
}

/** The field mapping of one kind. `restore` is what an earlier conversion kept (may be empty). */
export interface KindConverter {
  readonly group: string;
  readonly kind: string;
  up(body: Body, restore: Kept): Converted;
  down(body: Body, restore: Kept): Converted;
}

export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

function parseKept(text: string | undefined): Kept {
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function infraVersion(version: string): InfraVersion | undefined {
  return version === 'v1beta1' || version === 'v1beta2' ? version : undefined;
}

function bodyOf(obj: KObject): Body {
  const body: Body = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') body[key] = value;
  }
  return body;
}

function withAnnotations(obj: KObject, annotations: Record<string, string>): KObject['metadata'] {
  const rest = Object.fromEntries(Object.entries(obj.metadata).filter(([key]) => key !== 'annotations')) as KObject['metadata'];
  return Object.keys(annotations).length === 0 ? rest : { ...rest, annotations };
}

/** Converts one object to `desiredAPIVersion`; an object already in that version is returned as is. */
export function convertObject(obj: KObject, desiredAPIVersion: string, converters: readonly KindConverter[]): KObject {
  if (obj.apiVersion === desiredAPIVersion) return obj;
  const group = groupOf(obj.apiVersion);
  if (groupOf(desiredAPIVersion) !== group) throw new ConversionError(`cannot convert ${obj.apiVersion} to ${desiredAPIVersion}: different groups`);
  const converter = converters.find((c) => c.group === group && c.kind === obj.kind);
  if (converter === undefined) throw new ConversionError(`no conversion for kind ${obj.kind} in group ${group}`);
  const from = infraVersion(versionOf(obj.apiVersion));
  const to = infraVersion(versionOf(desiredAPIVersion));
  if (from === undefined || to === undefined) throw new ConversionError(`cannot convert ${obj.kind} from ${obj.apiVersion} to ${desiredAPIVersion}`);
  const restore = parseKept(obj.metadata.annotations?.[conversionAnnotation(to)]);
  const ours = new Set([conversionAnnotation(to), conversionAnnotation(from)]);
  const annotations = Object.fromEntries(Object.entries(obj.metadata.annotations ?? {}).filter(([key]) => !ours.has(key)));
  const result = to === 'v1beta2' ? converter.up(bodyOf(obj), restore) : converter.down(bodyOf(obj), restore);
  if (Object.keys(result.kept).length > 0) annotations[conversionAnnotation(from)] = canonicalJSON(result.kept);
  return { apiVersion: desiredAPIVersion, kind: obj.kind, metadata: withAnnotations(obj, annotations), ...result.body };
}

// --- Helpers the kind converters share ------------------------------------------------------

/** A v1beta1 ObjectReference as a v1beta2 Metal3ObjectRef plus the extras it cannot hold. */
export function splitReference(ref: unknown): { ref: Metal3ObjectRef; extras: ReferenceExtras } | undefined {
  if (!isRecord(ref)) return undefined;
  const { name, namespace, ...extras } = ref as ObjectReference;
  const out: Metal3ObjectRef = {};
  if (name !== undefined) out.name = name;
  if (namespace !== undefined) out.namespace = namespace;
  return { ref: out, extras };
}

/** A Metal3ObjectRef back as an ObjectReference, with kept extras when they still apply. */
export function joinReference(ref: unknown, kept: unknown): ObjectReference | undefined {
  if (!isRecord(ref)) return undefined;
  const saved = isRecord(kept) ? kept : {};
  const sameTarget = saved.name === ref.name && saved.namespace === ref.namespace;
  const extras = sameTarget && isRecord(saved.extras) ? saved.extras : {};
  return { ...extras, ...(ref as ObjectReference) };
}

/** What to keep for one reference: the extras with the name/namespace they belonged to. */
export function referenceKept(ref: Metal3ObjectRef, extras: ReferenceExtras): Kept | undefined {
  if (Object.keys(extras).length === 0) return undefined;
  return { extras, ...(ref.name !== undefined && { name: ref.name }), ...(ref.namespace !== undefined && { namespace: ref.namespace }) };
}

export { isRecord };
