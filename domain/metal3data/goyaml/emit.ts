// YAML text exactly as go-yaml v2's Marshal writes it for JSON-like values: keys
// in go-yaml's "natural" order, block style, sequences inside mappings not indented, empty
// collections as [] and {}, strings quoted only when plain text would read back differently.
import { readBack } from './read.js';
import { codePoints, stringStyle } from './resolve.js';
import { isGoDigit, isGoLetter } from './unicode.js';
import type { YamlValue } from './value.js';
import { BEST_INDENT, Writer } from './writer.js';

export type { YamlValue } from './value.js';
type YamlMap = { [key: string]: YamlValue };

const MAX_SIMPLE_KEY_BYTES = 128;

const digitValue = (ch: string): bigint => BigInt((ch.codePointAt(0) ?? 48) - 48);

/** A run of digits' value as keyList.Less adds it up: in an int64, which wraps on overflow. */
function digitRun(chars: string[], from: number, start: bigint): { end: number; value: bigint } {
  let end = from;
  let value = start;
  for (; end < chars.length && isGoDigit(chars[end] ?? ''); end++) value = BigInt.asIntN(64, value * 10n + digitValue(chars[end] ?? '0'));
  return { end, value };
}

/** The value a run of digits starts from: 1 when a '0' continues a number with non-zero digits. */
function runStart(a: string[], b: string[], i: number): bigint {
  if (a[i] !== '0' && b[i] !== '0') return 0n;
  for (let j = i - 1; j >= 0 && isGoDigit(a[j] ?? ''); j--) {
    if (a[j] !== '0') return 1n;
  }
  return 0n;
}

const codeOf = (ch: string): number => ch.codePointAt(0) ?? 0;

function compareAt(a: string[], b: string[], i: number): number {
  const x = a[i] ?? '';
  const y = b[i] ?? '';
  const xl = isGoLetter(x);
  const yl = isGoLetter(y);
  if (xl && yl) return codeOf(x) - codeOf(y);
  if (xl || yl) return yl ? -1 : 1;
  return compareDigits(a, b, i);
}

/** Runs of digits compare by value, then by length; anything else by code point. */
function compareDigits(a: string[], b: string[], i: number): number {
  const start = runStart(a, b, i);
  const ra = digitRun(a, i, start);
  const rb = digitRun(b, i, start);
  if (ra.value !== rb.value) return ra.value < rb.value ? -1 : 1;
  if (ra.end !== rb.end) return ra.end - rb.end;
  return codeOf(a[i] ?? '') - codeOf(b[i] ?? '');
}

/** go-yaml v2's keyList.Less for string keys, as a comparator. */
export function compareKeys(left: string, right: string): number {
  const a = codePoints(left);
  const b = codePoints(right);
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] !== b[i]) return compareAt(a, b, i);
  }
  return a.length - b.length;
}

function special(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  return value > 0 ? '.inf' : '-.inf';
}

const INT64_END = 2 ** 63;
const UINT64_END = 2 ** 64;

/**
 * An integral double as go-yaml reads back encoding/json's text for it: an int64 (exact), a uint64
 * (the shortest decimal, which is what encoding/json writes), or nothing when only a float holds it.
 */
function integerText(value: number): string | undefined {
  if (value >= -INT64_END && value < INT64_END) return BigInt(value).toString();
  return value >= INT64_END && value < UINT64_END ? String(value) : undefined;
}

/**
 * Numbers as go-yaml v2 writes them after the JSON round trip: what reads back as an integer is
 * written as one, anything else through strconv.FormatFloat(f, 'g', -1, 64), the specials in
 * YAML's spellings.
 */
export function formatGoFloat(value: number): string {
  if (!Number.isFinite(value)) return special(value);
  const integer = Number.isInteger(value) ? integerText(value) : undefined;
  if (integer !== undefined) return integer;
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  // Shortest 'g' switches to an exponent below 1e-4 and from 1e6 on (strconv's eprec = 6).
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

function isMap(value: YamlValue): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyCollection(value: YamlValue): boolean {
  return (Array.isArray(value) && value.length === 0) || (isMap(value) && Object.keys(value).length === 0);
}

class Emitter {
  readonly w = new Writer();

  scalarText(value: string | number | boolean | null): string {
    if (value === null) return 'null';
    if (typeof value === 'number') return formatGoFloat(value);
    return String(value);
  }

  /** A scalar node; `indent` is the enclosing collection's indent. */
  scalar(value: string | number | boolean | null, indent: number, simpleKey: boolean): void {
    this.w.indent = indent + BEST_INDENT;
    if (typeof value !== 'string') {
      this.w.plain(this.scalarText(value), false);
      return;
    }
    const style = stringStyle(value, simpleKey);
    if (style === 'plain') this.w.plain(value, !simpleKey);
    else if (style === 'single') this.w.single(value, !simpleKey);
    else if (style === 'double') this.w.double(value, !simpleKey);
    else this.w.literal(value);
  }

  emptyCollection(value: YamlValue): void {
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    this.w.indicator(open, true, true, false);
    this.w.indicator(close, false, false, false);
  }

  /** Any node; `indent` is the enclosing collection's indent, `inMapping` whether it is a value. */
  node(value: YamlValue, indent: number, inMapping: boolean): void {
    if (isEmptyCollection(value)) this.emptyCollection(value);
    // libyaml's indentless sequence: a mapping's value, unless the ':' began its line (a complex key's).
    else if (Array.isArray(value)) this.sequence(value, inMapping && !this.w.indention ? indent : indent + BEST_INDENT);
    else if (isMap(value)) this.mapping(value, indent + BEST_INDENT);
    else this.scalar(value, indent, false);
  }

  sequence(items: YamlValue[], indent: number): void {
    for (const item of items) {
      this.w.writeIndent(indent);
      this.w.indicator('-', true, false, true);
      this.node(item, indent, false);
    }
  }

  private simpleKey(key: string): boolean {
    return new TextEncoder().encode(key).length <= MAX_SIMPLE_KEY_BYTES && !/[\r\n\u0085\u2028\u2029]/u.test(key);
  }

  mapping(map: YamlMap, indent: number): void {
    for (const key of Object.keys(map).sort(compareKeys)) {
      const value = map[key] ?? null;
      this.w.writeIndent(indent);
      if (this.simpleKey(key)) {
        this.scalar(key, indent, true);
        this.w.indicator(':', false, false, false);
      } else {
        this.w.indicator('?', true, false, true);
        this.scalar(key, indent, false);
        this.w.writeIndent(indent);
        this.w.indicator(':', true, false, true);
      }
      this.node(value, indent, true);
    }
  }
}

/**
 * The document sigs.k8s.io/yaml.Marshal writes for `value` (a root mapping, sequence or scalar):
 * go-yaml v2's reading of the value's JSON text, written out; throws GoYamlError where
 * yaml.Marshal returns an error.
 */
export function goYaml(input: YamlValue): string {
  const value = readBack(input);
  const emitter = new Emitter();
  if (isEmptyCollection(value)) {
    emitter.w.text = Array.isArray(value) ? '[]' : '{}';
    emitter.w.column = 2;
  } else if (Array.isArray(value)) emitter.sequence(value, 0);
  else if (isMap(value)) emitter.mapping(value, 0);
  else emitter.scalar(value, 0, false);
  emitter.w.writeIndent(0);
  return emitter.w.text;
}
