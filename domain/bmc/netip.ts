// Go's net/netip.ParseAddr, for what it accepts and for its error texts (net/url reports them for
// bracketed hosts). Works on byte strings (gostring.ts).

import { goQuote } from './gostring.js';

export type GoAddr = { readonly ok: true; readonly is4: boolean; readonly zone: string } | { readonly ok: false; readonly error: string };

class AddrError {
  constructor(
    readonly msg: string,
    readonly at = '',
  ) {}
}

function fail(input: string, problem: AddrError): GoAddr {
  const at = problem.at === '' ? '' : ` (at ${goQuote(problem.at)})`;
  return { ok: false, error: `ParseAddr(${goQuote(input)}): ${problem.msg}${at}` };
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

interface Octets {
  value: number;
  digits: number;
  fields: number;
}

function ipv4Digit(char: string, octets: Octets): AddrError | undefined {
  if (octets.digits === 1 && octets.value === 0) return new AddrError('IPv4 field has octet with leading zero');
  octets.value = octets.value * 10 + Number(char);
  octets.digits++;
  return octets.value > 255 ? new AddrError('IPv4 field has value >255') : undefined;
}

function ipv4Dot(s: string, i: number, octets: Octets): AddrError | undefined {
  if (i === 0 || i === s.length - 1 || s.charAt(i - 1) === '.') return new AddrError('IPv4 field must have at least one digit', s.slice(i));
  if (octets.fields === 3) return new AddrError('IPv4 address too long');
  octets.fields++;
  octets.value = 0;
  octets.digits = 0;
  return undefined;
}

/** Go's parseIPv4Fields over s. */
function ipv4Problem(s: string): AddrError | undefined {
  const octets: Octets = { value: 0, digits: 0, fields: 0 };
  for (let i = 0; i < s.length; i++) {
    const char = s.charAt(i);
    const problem = isDigit(char) ? ipv4Digit(char, octets) : char === '.' ? ipv4Dot(s, i, octets) : new AddrError('unexpected character', s.slice(i));
    if (problem !== undefined) return problem;
  }
  return octets.fields < 3 ? new AddrError('IPv4 address too short') : undefined;
}

/** One hex group at the start of s: its length, or a problem. */
function hexGroup(s: string): number | AddrError {
  let length = 0;
  while (length < s.length && /[0-9A-Fa-f]/.test(s.charAt(length))) {
    length++;
    // Go checks inside the loop, so "12345" fails at the fifth digit.
    if (length > 4) return new AddrError('each group must have 4 or less digits', s);
  }
  return length === 0 ? new AddrError('each colon-separated field must have at least one digit', s) : length;
}

interface Groups {
  /** Bytes parsed (2 per group, 4 for an embedded IPv4). */
  readonly filled: number;
  readonly ellipsis: number;
}

/** The embedded IPv4 at the end (s starts at the group that turned out to be its first field). */
function embeddedIPv4(s: string, state: Groups): AddrError | Groups {
  if (state.ellipsis < 0 && state.filled !== 12) return new AddrError('embedded IPv4 address must replace the final 2 fields of the address', s);
  if (state.filled + 4 > 16) return new AddrError('too many hex fields to fit an embedded IPv4 at the end of the address', s);
  return ipv4Problem(s) ?? { filled: state.filled + 4, ellipsis: state.ellipsis };
}

interface Cursor {
  rest: string;
  filled: number;
  ellipsis: number;
}

/** After a group: the end, or ":" and more (maybe "::"); true when parsing should stop. */
function afterGroup(cursor: Cursor): AddrError | boolean {
  if (cursor.rest === '') return true;
  if (cursor.rest.charAt(0) !== ':') return new AddrError('unexpected character, want colon', cursor.rest);
  if (cursor.rest.length === 1) return new AddrError('colon must be followed by more characters', cursor.rest);
  cursor.rest = cursor.rest.slice(1);
  if (cursor.rest.charAt(0) !== ':') return false;
  if (cursor.ellipsis >= 0) return new AddrError('multiple :: in address', cursor.rest);
  cursor.ellipsis = cursor.filled;
  cursor.rest = cursor.rest.slice(1);
  return cursor.rest === '';
}

/** Go's parseIPv6 loop over the groups of s (zone already split off). */
function ipv6Groups(cursor: Cursor): AddrError | undefined {
  while (cursor.filled < 16) {
    const length = hexGroup(cursor.rest);
    if (length instanceof AddrError) return length;
    if (cursor.rest.charAt(length) === '.') {
      const embedded = embeddedIPv4(cursor.rest, cursor);
      if (embedded instanceof AddrError) return embedded;
      cursor.filled = embedded.filled;
      cursor.rest = '';
      return undefined;
    }
    cursor.filled += 2;
    cursor.rest = cursor.rest.slice(length);
    const stop = afterGroup(cursor);
    if (stop instanceof AddrError) return stop;
    if (stop) return undefined;
  }
  return undefined;
}

function ipv6(input: string): GoAddr {
  const percent = input.indexOf('%');
  const zone = percent < 0 ? '' : input.slice(percent + 1);
  if (percent >= 0 && zone === '') return fail(input, new AddrError('zone must be a non-empty string'));
  const cursor: Cursor = { rest: percent < 0 ? input : input.slice(0, percent), filled: 0, ellipsis: -1 };
  if (cursor.rest.startsWith('::')) {
    cursor.ellipsis = 0;
    cursor.rest = cursor.rest.slice(2);
    if (cursor.rest === '') return { ok: true, is4: false, zone };
  }
  const problem = ipv6Groups(cursor) ?? ipv6Shape(cursor);
  return problem === undefined ? { ok: true, is4: false, zone } : fail(input, problem);
}

function ipv6Shape({ rest, filled, ellipsis }: Cursor): AddrError | undefined {
  if (rest !== '') return new AddrError('trailing garbage after address', rest);
  if (filled < 16 && ellipsis < 0) return new AddrError('address string too short');
  if (filled === 16 && ellipsis >= 0) return new AddrError('the :: must expand to at least one field of zeros');
  return undefined;
}

/** Go's netip.ParseAddr over a byte string. */
export function goParseAddr(input: string): GoAddr {
  for (const char of input) {
    if (char === '.') {
      const problem = ipv4Problem(input);
      return problem === undefined ? { ok: true, is4: true, zone: '' } : fail(input, problem);
    }
    if (char === ':') return ipv6(input);
    if (char === '%') return fail(input, new AddrError('missing IPv6 address'));
  }
  return fail(input, new AddrError('unable to parse IP'));
}
