// One-step mutations of a known-good hook request, each named by what it does and whether it
// is hostile: a hostile request is one the hook cannot read as meaning anything, so it must be
// answered with a non-200 or with every observed child the un-mutated request keeps.
import fc from 'fast-check';
import { awkwardTimestamp, hostileValue, isObject, nearValue, pathsIn, valueAt, withValue, type Json, type JsonPath } from './fuzz-json.js';

export interface Mutation {
  kind: string;
  /** The hook cannot interpret the result: dropping an observed child on it is a bug. */
  hostile: boolean;
  path: JsonPath;
  request: Json;
}

type Body = { [key: string]: Json };

/** Where observed objects live in a request: composite `children`, decorator `attachments`, and `related`. */
const OBJECT_MAPS = ['children', 'attachments', 'related'] as const;
const SUBJECTS = ['parent', 'object'] as const;
const ALL_ROOTS = ['controller', ...SUBJECTS, ...OBJECT_MAPS, 'finalizing'];
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/** `[map, outerKey, innerKey]` of every observed object in the request. */
function observedPaths(request: Json): JsonPath[] {
  if (!isObject(request)) return [];
  return OBJECT_MAPS.flatMap((map) => {
    const outer = request[map];
    if (!isObject(outer)) return [];
    return Object.entries(outer).flatMap(([key, inner]) => (isObject(inner) ? Object.keys(inner).map((name) => [map, key, name]) : []));
  });
}

function pick<T>(items: readonly T[]): fc.Arbitrary<T | undefined> {
  return items.length === 0 ? fc.constant(undefined) : fc.integer({ min: 0, max: items.length - 1 }).map((i) => items[i]);
}

/** The request with `value` at `path` (removed when undefined); the request itself when there is no path. */
function mutation(kind: string, hostile: boolean, request: Json, [path, value]: [JsonPath | undefined, Json | undefined]): Mutation {
  return path === undefined ? { kind: 'valid', hostile: false, path: [], request } : { kind, hostile, path, request: withValue(request, path, value) };
}

/** A leaf replaced by another value of its type (a near-valid edit). */
function nearEdit(request: Json, leaves: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  return pick(leaves).chain((path) =>
    path === undefined
      ? fc.constant(mutation('near', false, request, [path, undefined]))
      : nearValue(valueAt(request, path) as Json).map((v) => mutation('near', false, request, [path, v])),
  );
}

/** Any field replaced by a value of any type, size or depth. */
function hostileEdit(request: Json, paths: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  return fc.tuple(pick(paths), hostileValue).map(([path, v]) => mutation('hostile-value', true, request, [path, v]));
}

function removal(request: Json, paths: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  return pick(paths).map((path) =>
    mutation('delete-field', path !== undefined && path.length > 1 && OBJECT_MAPS.includes(path[0] as never), request, [path, undefined]),
  );
}

function timestampEdit(request: Json, leaves: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  const stamps = leaves.filter((p) => {
    const value = valueAt(request, p);
    return typeof value === 'string' && TIMESTAMP.test(value);
  });
  return fc.tuple(pick(stamps), awkwardTimestamp).map(([path, v]) => mutation('timestamp', true, request, [path, v]));
}

const FOREIGN: readonly [string, string][] = [
  ['v1', 'Secret'],
  ['v1', 'ConfigMap'],
  ['metal3.io/v1alpha1', 'BareMetalHost'],
  ['ironhook.dev/v1alpha1', 'HostOperation'],
  ['ipam.metal3.io/v1alpha2', 'IPAddress'],
];

/** An observed object whose kind or apiVersion does not match the map key it is under. */
function wrongKind(request: Json, observed: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  return fc.tuple(pick(observed), fc.constantFrom(...FOREIGN)).map(([path, [apiVersion, kind]]) => {
    const current = path === undefined ? undefined : valueAt(request, path);
    if (path === undefined || !isObject(current)) return mutation('child-wrong-kind', true, request, [undefined, undefined]);
    return mutation('child-wrong-kind', true, request, [path, { ...current, apiVersion, kind }]);
  });
}

const GARBAGE: readonly Json[] = [
  {},
  { metadata: 5 },
  { kind: 'X' },
  { apiVersion: 'v1', kind: 'Secret', metadata: {} },
  { apiVersion: 7, kind: [], metadata: { name: {} } },
];

/** An observed object replaced by something that is not a Kubernetes object, or renamed. */
function garbageChild(request: Json, observed: readonly JsonPath[]): fc.Arbitrary<Mutation> {
  return fc.tuple(pick(observed), fc.oneof(fc.constantFrom(...GARBAGE), fc.constant<Json>('rename'))).map(([path, v]) => {
    const current = path === undefined ? undefined : valueAt(request, path);
    if (v === 'rename' && isObject(current) && isObject(current.metadata)) {
      return mutation('child-renamed', true, request, [path, { ...current, metadata: { ...current.metadata, name: 'fuzz-other-name' } }]);
    }
    return mutation('child-garbage', true, request, [path, v === 'rename' ? {} : v]);
  });
}

/** The whole body, or one of its maps, of the wrong type or missing. */
function topLevel(request: Json): fc.Arbitrary<Mutation> {
  const keys = isObject(request) ? Object.keys(request) : [];
  return fc
    .tuple(pick(keys), fc.oneof(hostileValue, fc.constant(undefined)))
    .map(([key, v]) =>
      key === undefined
        ? mutation('valid', false, request, [undefined, undefined])
        : mutation(v === undefined ? 'top-missing' : 'top-hostile', true, request, [[key], v]),
    );
}

export function mutations(request: Body): fc.Arbitrary<Mutation> {
  const paths = pathsIn(request, ALL_ROOTS);
  const leaves = paths.filter((p) => {
    const v = valueAt(request, p);
    return !isObject(v ?? null) && !Array.isArray(v);
  });
  const observed = observedPaths(request);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(mutation('valid', false, request, [undefined, undefined])) },
    { weight: 4, arbitrary: nearEdit(request, leaves) },
    { weight: 4, arbitrary: hostileEdit(request, paths) },
    { weight: 2, arbitrary: removal(request, paths) },
    { weight: 2, arbitrary: timestampEdit(request, leaves) },
    { weight: 2, arbitrary: wrongKind(request, observed) },
    { weight: 2, arbitrary: garbageChild(request, observed) },
    { weight: 1, arbitrary: topLevel(request) },
  );
}
