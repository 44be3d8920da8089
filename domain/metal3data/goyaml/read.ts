// sigs.k8s.io/yaml.Marshal does not hand the value to go-yaml: it writes it with encoding/json
// and lets go-yaml v2 read that JSON text back (as YAML flow) before writing YAML. Most values come
// back unchanged; this module models the rest, which encoding/json's escaping explains: it escapes
// C0 controls, \, ", <, >, &, U+2028 and U+2029 and writes every other character raw.
// - go-yaml's reader refuses a raw DEL, C1 control (but NEL), U+FFFE or U+FFFF: the whole
//   document fails ("control characters are not allowed").
// - NEL is a line break to go-yaml: inside the quoted scalar it folds as a line break does (spaces
//   around it dropped; one break reads as a space, n breaks as n-1 newlines), and a line that then
//   starts with --- or ... and a blank is a document marker, which fails.
// - A key is a "simple key", which go-yaml allows only on one line and within 1024 characters of
//   JSON text from its opening quote to the colon: a longer or multi-line key fails.
// - encoding/json has no text for NaN and the infinities: the marshal fails before go-yaml.
import type { YamlValue } from './value.js';

/** The error yaml.Marshal returns (the document is not written). */
export class GoYamlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoYamlError';
  }
}

const yamlError = (problem: string): GoYamlError => new GoYamlError(`yaml: ${problem}`);

const NEL = '\u0085';
const MAX_SIMPLE_KEY_JSON = 1022;

/** A character go-yaml's reader refuses, as encoding/json leaves it raw. */
function refused(code: number): boolean {
  return (code >= 0x7f && code <= 0x9f && code !== 0x85) || code === 0xfffe || code === 0xffff;
}

function checkCharacters(s: string): void {
  for (const ch of s) {
    if (refused(ch.codePointAt(0) ?? 0)) throw yamlError('control characters are not allowed');
  }
}

/** `---` or `...` then a raw blank (space or NEL; the closing quote is none) at `i`. */
function documentMarkerAt(chars: readonly string[], i: number): boolean {
  const marker = chars.slice(i, i + 3).join('');
  const after = chars[i + 3];
  return (marker === '---' || marker === '...') && (after === ' ' || after === NEL);
}

/** The blanks after `i`: where they end, the line breaks among them, the spaces before the first. */
function blankRun(chars: readonly string[], from: number): { end: number; breaks: number; spaces: string } {
  let end = from;
  let breaks = 0;
  let spaces = '';
  for (; chars[end] === ' ' || chars[end] === NEL; end++) {
    if (chars[end] === NEL) breaks += 1;
    else if (breaks === 0) spaces += ' ';
  }
  return { end, breaks, spaces };
}

/** Where the characters from `from` up to the next raw blank end. */
function contentEnd(chars: readonly string[], from: number): number {
  let end = from;
  while (end < chars.length && chars[end] !== ' ' && chars[end] !== NEL) end++;
  return end;
}

/** Blanks without a break stay; one break folds into a space, n breaks into n-1 newlines. */
function joinedBlanks(run: { breaks: number; spaces: string }): string {
  if (run.breaks === 0) return run.spaces;
  return run.breaks === 1 ? ' ' : '\n'.repeat(run.breaks - 1);
}

/** libyaml's scan of a double-quoted scalar over the raw blanks (spaces and NELs) of `s`. */
function foldLineBreaks(s: string): string {
  const chars = Array.from(s);
  let out = '';
  let i = 0;
  let lineStart = false;
  for (;;) {
    if (lineStart && documentMarkerAt(chars, i)) throw yamlError('found unexpected document indicator');
    const end = contentEnd(chars, i);
    out += chars.slice(i, end).join('');
    if (end >= chars.length) return out;
    const run = blankRun(chars, end);
    lineStart = chars[run.end - 1] === NEL;
    out += joinedBlanks(run);
    i = run.end;
  }
}

function readString(s: string): string {
  checkCharacters(s);
  return s.includes(NEL) ? foldLineBreaks(s) : s;
}

/** How many characters encoding/json writes for `ch` (HTML escaping on, as json.Marshal does). */
function jsonLength(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if ('"\\\b\f\n\r\t'.includes(ch)) return 2;
  return code < 0x20 || '<>&'.includes(ch) || code === 0x2028 || code === 0x2029 ? 6 : 1;
}

function readKey(key: string): string {
  const read = readString(key);
  let length = 0;
  for (const ch of key) length += jsonLength(ch);
  if (key.includes(NEL) || length > MAX_SIMPLE_KEY_JSON) throw yamlError("did not find expected ',' or '}'");
  return read;
}

/** encoding/json has no text for NaN and the infinities. */
function readNumber(value: number): number {
  if (Number.isFinite(value)) return value;
  const text = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  throw new GoYamlError(`error marshaling into JSON: json: unsupported value: ${text}`);
}

/** The value go-yaml v2 reads back from encoding/json's text for `value`; throws GoYamlError. */
export function readBack(value: YamlValue): YamlValue {
  if (typeof value === 'string') return readString(value);
  if (Array.isArray(value)) return value.map(readBack);
  if (typeof value === 'number') return readNumber(value);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [readKey(key), readBack(item)]));
}
