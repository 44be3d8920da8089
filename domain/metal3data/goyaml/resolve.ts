// Which style go-yaml v2 (the emitter behind upstream's rendered Secrets) picks
// for a string: plain unless the plain text would read back as something else (a number, bool,
// null, timestamp or sexagesimal float), then the libyaml-port scalar analysis that can still
// force single or double quotes. Only strings are analysed here; numbers and bools are plain.

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

const BOOL_AND_NULL = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/u;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/u;
const GO_DECIMAL_OR_OCTAL = /^[-+]?(0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/u;
const GO_PREFIXED = /^([-+]?)0([xXbB])([0-9a-fA-F]+)$/u;
const UINT64_MAX = (1n << 64n) - 1n;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/u;
const TIMESTAMP_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/u;
const TIMESTAMP_TIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)$/u;

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

function validClock(parts: (string | undefined)[]): boolean {
  const [h, m, s] = parts.map((p) => Number(p ?? '0'));
  return (h ?? 0) < 24 && (m ?? 0) < 60 && (s ?? 0) < 60;
}

/** Go's time.Parse with the layouts go-yaml v2 accepts for unquoted timestamps. */
export function isTimestamp(s: string): boolean {
  const date = TIMESTAMP_DATE.exec(s) ?? TIMESTAMP_TIME.exec(s);
  if (date === null) return false;
  const [, y, mo, d, h1, mi1, s1, h2, mi2, s2] = date;
  if (!validDate(Number(y), Number(mo), Number(d))) return false;
  return h1 !== undefined ? validClock([h1, mi1, s1]) : validClock([h2, mi2, s2]);
}

function finiteFloat(text: string): boolean {
  return Number.isFinite(Number(text));
}

/** strconv.ParseInt/ParseUint with base 0 on a 0x… or 0b… literal (within 64 bits). */
function prefixedInt(plain: string): boolean {
  const match = GO_PREFIXED.exec(plain);
  if (match === null) return false;
  const [, , base, digits = ''] = match;
  const binary = base === 'b' || base === 'B';
  if (binary && !/^[01]+$/u.test(digits)) return false;
  return BigInt(`0${binary ? 'b' : 'x'}${digits}`) <= UINT64_MAX;
}

/** Would a plain scalar starting with a digit or sign read back as a number or timestamp? */
function numericLike(s: string): boolean {
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (GO_DECIMAL_OR_OCTAL.test(plain) || prefixedInt(plain)) return true;
  return YAML_STYLE_FLOAT.test(plain) && finiteFloat(plain);
}

/** The code points of a string (Go ranges over runes, not UTF-16 units). */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

type Hint = 'map' | 'dot' | 'number' | 'none';

/** go-yaml's resolve table: the first character says what a plain scalar might be. */
function hintOf(s: string): Hint {
  const first = s.charAt(0);
  if (s === '' || 'yYnNtTfFoO~'.includes(first)) return 'map';
  if (first === '.') return 'dot';
  return first === '+' || first === '-' || (first >= '0' && first <= '9') ? 'number' : 'none';
}

/** go-yaml v2 `resolve("", s)`: true when the plain text would read back as a string. */
export function resolvesToString(s: string): boolean {
  const hint = hintOf(s);
  if (hint === 'none') return true;
  if (BOOL_AND_NULL.has(s)) return false;
  if (hint === 'dot') return !(DOT_FLOAT.test(s) && finiteFloat(s));
  return hint === 'map' || !numericLike(s);
}

export function isBase60Float(s: string): boolean {
  const c = s.charAt(0);
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

export function isBreak(ch: string): boolean {
  return ch === '\r' || ch === '\n' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029';
}

/** libyaml's is_printable, by code point. */
export function isPrintable(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  if (c === 0x0a || (c >= 0x20 && c <= 0x7e)) return true;
  if (c >= 0xa0 && c <= 0xd7ff) return true;
  return c >= 0xe000 && c <= 0xfffd && c !== 0xfeff;
}

const FIRST_INDICATORS = '#,[]{}&*!|>\'"%@`';

interface Analysis {
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
  multiline: boolean;
}

interface Flags {
  blockIndicators: boolean;
  lineBreaks: boolean;
  special: boolean;
  leadingSpace: boolean;
  leadingBreak: boolean;
  trailingSpace: boolean;
  trailingBreak: boolean;
  breakSpace: boolean;
  spaceBreak: boolean;
}

/** Whether the character at `i` is a block indicator that rules out a plain scalar. */
function indicatorAt(chars: string[], i: number, precededByWhitespace: boolean): boolean {
  const ch = chars[i] ?? '';
  const next = chars[i + 1];
  const followedByWhitespace = next === undefined || next === ' ' || next === '\t';
  if (i === 0 && FIRST_INDICATORS.includes(ch)) return true;
  if (i === 0 && '?:-'.includes(ch)) return followedByWhitespace;
  if (ch === ':') return followedByWhitespace;
  return ch === '#' && precededByWhitespace;
}

function spacing(flags: Flags, chars: string[], i: number, previous: { space: boolean; brk: boolean }): void {
  const ch = chars[i] ?? '';
  const last = i === chars.length - 1;
  if (ch === ' ') {
    flags.leadingSpace ||= i === 0;
    flags.trailingSpace ||= last;
    flags.breakSpace ||= previous.brk;
    previous.space = true;
    previous.brk = false;
  } else if (isBreak(ch)) {
    flags.lineBreaks = true;
    flags.leadingBreak ||= i === 0;
    flags.trailingBreak ||= last;
    flags.spaceBreak ||= previous.space;
    previous.space = false;
    previous.brk = true;
  } else {
    previous.space = false;
    previous.brk = false;
  }
}

function scan(s: string): Flags {
  const chars = codePoints(s);
  const flags: Flags = {
    blockIndicators: s.startsWith('---') || s.startsWith('...'),
    lineBreaks: false,
    special: false,
    leadingSpace: false,
    leadingBreak: false,
    trailingSpace: false,
    trailingBreak: false,
    breakSpace: false,
    spaceBreak: false,
  };
  const previous = { space: false, brk: false };
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    flags.blockIndicators ||= indicatorAt(chars, i, precededByWhitespace);
    flags.special ||= !isPrintable(ch);
    spacing(flags, chars, i, previous);
    precededByWhitespace = ch === ' ' || ch === '\t' || isBreak(ch);
  }
  return flags;
}

function edges(f: Flags): boolean {
  return f.leadingSpace || f.leadingBreak || f.trailingSpace || f.trailingBreak;
}

/** libyaml's yaml_emitter_analyze_scalar, reduced to what block context needs. */
export function analyze(s: string): Analysis {
  if (s === '') return { blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false, multiline: false };
  const f = scan(s);
  const broken = f.spaceBreak || f.special;
  return {
    blockPlainAllowed: !(edges(f) || f.breakSpace || broken || f.lineBreaks || f.blockIndicators),
    singleQuotedAllowed: !(f.breakSpace || broken),
    blockAllowed: !(f.trailingSpace || broken),
    multiline: f.lineBreaks,
  };
}

/** go-yaml's stringv: literal for multi-line text, plain when it reads back as itself, else double. */
function requestedStyle(s: string): ScalarStyle {
  if (s.includes('\n')) return 'literal';
  return resolvesToString(s) && !isBase60Float(s) ? 'plain' : 'double';
}

/** libyaml's yaml_emitter_select_scalar_style for block context. */
function selectStyle(style: ScalarStyle, a: Analysis, emptyKey: boolean): ScalarStyle {
  if (style === 'plain' && (!a.blockPlainAllowed || emptyKey)) return a.singleQuotedAllowed ? 'single' : 'double';
  if (style === 'literal' && !a.blockAllowed) return 'double';
  return style;
}

/** The style go-yaml v2 ends up writing a string in (block context). */
export function stringStyle(s: string, simpleKey: boolean): ScalarStyle {
  const a = analyze(s);
  const requested = requestedStyle(s);
  if (simpleKey && (a.multiline || requested === 'literal')) return 'double';
  return selectStyle(requested, a, simpleKey && s === '');
}
