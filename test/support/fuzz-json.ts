// Generators of hostile JSON for the fuzz tests: values of the wrong type, huge arrays, deep
// nesting, awkward unicode (lone surrogates, RTL overrides, NUL), prototype-named keys and
// timestamps out of range or malformed; and one-field mutations of a known-good document.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonPath = readonly (string | number)[];

/** Strings a parser or a name builder may trip over. */
export const awkwardString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud83dy',
    '\u202eevil\u202c',
    '\u05e9\u05dc\u05d5\u05dd',
    '\ufeff',
    'e\u0301',
    '\u{1f4a5}'.repeat(50),
    '../../etc/passwd',
    '%00',
    '${jndi}',
    '__proto__',
    'constructor',
    'toString',
    'NaN',
    '-1',
    '1e309',
    'null',
    'x'.repeat(70_000),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Timestamps far in the past or future, out of range, or not timestamps at all. */
export const awkwardTimestamp: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '2026-13-45T25:61:61Z',
  '2026-11-29',
  '2026-11-29T10:00:00+14:00',
  '2026-11-29T10:00:00.123456789Z',
  'not-a-time',
  '',
  1_764_410_400,
  -1,
  null,
);

const DEEP = '\u0000fuzz-deep:';
const DEEP_TOKEN = /"\\u0000fuzz-deep:(array|object):(\d+)"/g;

/**
 * Stands for a value nested `depth` levels deep. Neither JSON.stringify nor structuredClone
 * survive ten thousand levels, so the value only exists in the text fuzzText sends.
 */
function deepToken(depth: number, shape: 'array' | 'object'): string {
  return `${DEEP}${shape}:${depth}`;
}

export function isDeepToken(value: Json | undefined): boolean {
  return typeof value === 'string' && value.startsWith(DEEP);
}

/** The JSON text of `doc`, with every deep token expanded into its nesting. */
export function fuzzText(doc: Json): string {
  return JSON.stringify(doc).replace(DEEP_TOKEN, (_, shape: string, depth: string) => {
    const n = Number(depth);
    return shape === 'array' ? `${'['.repeat(n)}"bottom"${']'.repeat(n)}` : `${'{"d":'.repeat(n)}"bottom"${'}'.repeat(n)}`;
  });
}

/** Values of any type, including large and deep ones. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Json>(null, true, false, 0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 1, '', [], {}) },
  { weight: 3, arbitrary: awkwardString },
  { weight: 2, arbitrary: awkwardTimestamp },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.constantFrom<Json>(deepToken(3_000, 'object'), deepToken(20_000, 'object'), deepToken(100_000, 'array')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Json>(
      Array.from({ length: 20_000 }, (_, i) => i),
      Array.from({ length: 3_000 }, (_, i) => ({ name: `n${i}`, kind: 'X' })),
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(awkwardString, fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>, { maxKeys: 4 }) },
);

/** A value of the same JSON type as `value`, but a different one (a near-valid edit). */
export function nearValue(value: Json): fc.Arbitrary<Json> {
  if (typeof value === 'string')
    return fc.oneof(
      awkwardString,
      fc.string({ maxLength: 12 }),
      awkwardTimestamp.filter((t) => typeof t === 'string'),
    );
  if (typeof value === 'number')
    return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1));
  if (typeof value === 'boolean') return fc.constant(!value);
  if (Array.isArray(value)) return fc.constantFrom<Json>([], value.slice(1), [...value, ...value]);
  return fc.constant<Json>(value === null ? {} : {});
}

export function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every path in `doc` under one of `roots`, breadth first, at most `limit` of them. */
export function pathsIn(doc: Json, roots: readonly string[], limit = 4_000): JsonPath[] {
  const out: JsonPath[] = [];
  const queue: { path: JsonPath; value: Json }[] = [];
  if (isObject(doc)) for (const root of roots) if (root in doc) queue.push({ path: [root], value: doc[root] as Json });
  while (queue.length > 0 && out.length < limit) {
    const next = queue.shift() as { path: JsonPath; value: Json };
    out.push(next.path);
    if (Array.isArray(next.value)) next.value.forEach((v, i) => queue.push({ path: [...next.path, i], value: v }));
    else if (isObject(next.value)) for (const [k, v] of Object.entries(next.value)) queue.push({ path: [...next.path, k], value: v });
  }
  return out;
}

export function valueAt(doc: Json, path: JsonPath): Json | undefined {
  let current: Json | undefined = doc;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === 'number') current = current[key];
    else if (isObject(current) && typeof key === 'string') current = Object.hasOwn(current, key) ? current[key] : undefined;
    else return undefined;
  }
  return current;
}

/** A deep copy of `doc` with the value at `path` replaced (or removed when `value` is undefined). */
export function withValue(doc: Json, path: JsonPath, value: Json | undefined): Json {
  const copy = structuredClone(doc);
  if (path.length === 0) return value ?? null;
  const parent = valueAt(copy, path.slice(0, -1));
  const last = path[path.length - 1] as string | number;
  if (Array.isArray(parent) && typeof last === 'number') {
    if (value === undefined) parent.splice(last, 1);
    else parent[last] = value;
  } else if (isObject(parent) && typeof last === 'string') {
    if (value === undefined) Reflect.deleteProperty(parent, last);
    else Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
