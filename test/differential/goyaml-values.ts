// Random JSON values for the go-yaml sweep: nested objects and arrays whose keys and strings
// mix every character class go-yaml treats specially, strings that read back as other YAML types,
// and numbers from every formatting regime of strconv and encoding/json.
import fc from 'fast-check';

/** Characters with a meaning somewhere between encoding/json, go-yaml's reader, scanner and emitter. */
const TRICKY_CHARS = [
  // YAML indicators (first character or anywhere)
  ...Array.from('-?:,[]{}#&*!|>\'"%@`'),
  // blanks and line breaks: encoding/json escapes \t \n \r and U+2028/9 but writes NEL raw
  ' ',
  '\t',
  '\n',
  '\r',
  '\u0085',
  '\u2028',
  '\u2029',
  // control characters: C0 escaped by encoding/json; DEL and C1 raw (go-yaml's reader refuses them)
  '\u0000',
  '\u0001',
  '\u0007',
  '\u0008',
  '\u000b',
  '\u000c',
  '\u001b',
  '\u001f',
  '\u00a0',
  // the edges of libyaml's printable ranges, the byte-order mark and noncharacters
  '\ud7ff',
  '\ue000',
  '\ufeff',
  '\ufffd',
  // beyond ASCII: Latin-1, CJK, non-BMP (not printable for libyaml: escaped)
  'é',
  'ß',
  '中',
  '😀',
  '\u{10000}',
  '\u{10ffff}',
  // HTML characters encoding/json escapes (they lengthen a key's JSON text)
  '<',
  '>',
  '&',
  '\\',
  '/',
  // pieces of numbers, bools, nulls and timestamps
  '.',
  '_',
  '+',
  '~',
  '=',
  'a',
  'x',
  'e',
  'E',
  'y',
  'n',
  'o',
  'T',
  'Z',
  '0',
  '1',
  '7',
  '9',
];

/** Characters go-yaml's reader refuses raw (encoding/json leaves them raw): rare, each fails a document. */
const REFUSED_CHARS = ['\u007f', '\u0080', '\u0084', '\u0086', '\u009f', '\ufffe', '\uffff'];

/** Strings go-yaml would resolve to something other than a string if they were written plain. */
const LOOKALIKES = [
  ...['true', 'True', 'TRUE', 'false', 'yes', 'Yes', 'no', 'NO', 'on', 'Off', 'y', 'Y', 'n', 'N'],
  ...['null', 'Null', 'NULL', '~', '', '<<', '=', '!', '&a', '*a', '!!str', '%TAG'],
  ...['0', '-0', '+0', '00', '012', '08', '0o17', '0O17', '0x1F', '0X1f', '0xZZ', '0b101', '0B2', '-0x1', '+12'],
  ...['1_000', '_1', '1__0', '0x_1', '1.5', '.5', '-.5', '5.', '1e3', '1E+3', '1e-7', '1e999', '-1e999', '1.2.3'],
  ...['.inf', '.Inf', '.INF', '-.inf', '+.inf', '.nan', '.NaN', 'nan', 'inf', 'Infinity', '-Infinity', 'NaN'],
  ...['9223372036854775807', '9223372036854775808', '18446744073709551615', '18446744073709551616', '-9223372036854775809'],
  ...['12:30', '1:20:30', '-1:30.5', '12:34:56:12:34:56', '12:60', '190:20:30', '2001:db8::1', '::1', 'fe80::'],
  ...['2026-11-29', '2026-1-2', '2024-02-29', '2023-02-29', '2026-13-01', '2026-11-29T10:00:00Z', '2026-11-29t10:00:00.5+01:00'],
  ...['2026-11-29 10:00:00', '2026-11-29 1:2:3.45', '2026-11-29T25:00:00Z', '2026-11-29T10:00:00', '20261129'],
  ...['---', '...', '--- x', '... x', '-', '- x', '?', '? x', ':', ': x', 'a: b', 'a:b', '#', 'a #b', 'a#b'],
  ...['key:', 'http://x', '[a]', '{a}', 'a,b', '"x"', "'x'", "it's", '|', '>', '@x', '`x'],
];

/** A string's code points with any lone surrogate replaced, as the API server's JSON decoder does. */
function wellFormed(s: string): string {
  return Array.from(s, (ch) => (/^[\uD800-\uDFFF]$/u.test(ch) ? '\uFFFD' : ch)).join('');
}

const trickyChar = fc.oneof({ arbitrary: fc.constantFrom(...TRICKY_CHARS), weight: 400 }, { arbitrary: fc.constantFrom(...REFUSED_CHARS), weight: 1 });

const charRun = (maxLength: number): fc.Arbitrary<string> => fc.array(trickyChar, { maxLength }).map((cs) => cs.join(''));

const word = fc.oneof(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 9 }), charRun(6), fc.constantFrom(...LOOKALIKES));

/** Long text with spaces: the emitter folds at the first space past column 80. */
const longText = fc
  .tuple(fc.array(word, { minLength: 8, maxLength: 45 }), fc.constantFrom(' ', '  ', ' \u0085', '\u0085'))
  .map(([words, sep]) => words.join(sep));

/** Around 1022 characters: the longest JSON text go-yaml still reads as a simple key. */
const veryLong = fc
  .tuple(fc.integer({ min: 1000, max: 1030 }), fc.constantFrom('k', 'é', '😀', '<', ' ', 'a b'))
  .map(([n, unit]) => Array.from(unit.repeat(n)).slice(0, n).join(''));

const baseString = fc.oneof(
  { arbitrary: fc.constantFrom(...LOOKALIKES), weight: 4 },
  { arbitrary: charRun(12), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 16 }).map(wellFormed), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }).map(wellFormed), weight: 2 },
  { arbitrary: fc.string({ maxLength: 16 }), weight: 2 },
  { arbitrary: longText, weight: 2 },
  { arbitrary: veryLong, weight: 1 },
);

/** Leading and trailing spaces, breaks and byte-order marks around any string. */
const affix = fc.constantFrom('', '', '', '', ' ', '  ', '\n', '\u0085', '\ufeff', '\t', '-', ':', '"');

const trickyString: fc.Arbitrary<string> = fc.tuple(affix, baseString, affix).map(([a, s, b]) => `${a}${s}${b}`);

/** Keys: mostly without NEL, which go-yaml never reads in a key (each one fails the document). */
const trickyKey = fc.oneof({ arbitrary: trickyString.map((s) => s.replaceAll('\u0085', '\u2028')), weight: 9 }, { arbitrary: trickyString, weight: 1 });

/**
 * Integral doubles beyond 2^53 that Go may serve as an int64 literal Ironhook cannot tell apart
 * (documented deviation "integers beyond 2^53", docs/compatibility.md): from 2^63 on (and below
 * -2^63) only a float64 can hold them, and both sides agree.
 */
function lossyInteger(d: number): boolean {
  return Number.isInteger(d) && Math.abs(d) > 2 ** 53 && (Math.abs(d) < 2 ** 63 || d === -(2 ** 63));
}

/**
 * Numbers from every regime: small ints, the safe-integer edge, 'f' and 'e' JSON text, 'g' YAML
 * text; without the lossy integers (see lossyInteger).
 */
const anyNumber: fc.Arbitrary<number> = fc
  .oneof(
    fc.integer({ min: -1000, max: 100_000 }),
    fc.maxSafeInteger(),
    fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 2 ** 63, -(2 ** 63) * 1.0000000000000002, 2 ** 64, 2 ** 70, 1e19, 1e20, 1e21, 1e22, 1e100),
    fc.constantFrom(1e-7, 1e-6, 0.000001, 0.00001, 0.0001, 1234567.5, 123456.5, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1, -2.5e-300),
    fc.tuple(fc.integer({ min: -99, max: 99 }), fc.integer({ min: -30, max: 30 })).map(([m, e]) => Number(`${String(m)}e${String(e)}`)),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  )
  .filter((d) => !lossyInteger(d));

interface JsonTree {
  value: unknown;
  array: unknown[];
  object: Record<string, unknown>;
}

const scalar = fc.oneof(
  { arbitrary: trickyString, weight: 6 },
  { arbitrary: anyNumber, weight: 2 },
  { arbitrary: fc.constantFrom(true, false, null), weight: 1 },
);

const tree = fc.letrec<JsonTree>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(trickyKey, tie('value'), { maxKeys: 4 }),
}));

/** Any JSON value: a scalar, or nested arrays and objects. */
export const jsonValue: fc.Arbitrary<unknown> = tree.value;
