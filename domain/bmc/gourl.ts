// A small URL reader that behaves like Go's net/url.Parse for the parts BMC addresses use.
//
// Upstream parses BMC addresses with Go's net/url and then applies fallbacks that depend on
// exactly when that parser fails or reports an opaque URL. Node's WHATWG URL behaves
// differently (special schemes, host normalisation, no "opaque" notion, no error for a colon in
// the first path segment), so it cannot stand in for it. This module reproduces the Go rules
// (as of Go 1.25, which BMO v0.13 is built with): scheme detection, opaque detection, authority
// and host checks (bracketed hosts must be IPv6 literals, RFC 6874 zones), percent-decoding,
// and the lenient host/port split behind URL.Hostname() and URL.Port(). Messages follow Go's.
// Everything here works on byte strings (gostring.ts), as Go does.

import { goQuote } from './gostring.js';
import { goParseAddr } from './netip.js';

export interface GoURL {
  /** Lower-cased scheme ("" when none). */
  readonly scheme: string;
  /** The rest of the URL after "scheme:" when it does not start with "/" (e.g. "ipmi:10.0.0.5"). */
  readonly opaque: string;
  /** Authority without user info, percent-decoded, e.g. "[fd00::5]:623". */
  readonly host: string;
  /** Percent-decoded path. */
  readonly path: string;
  /** The query without "?", still encoded. */
  readonly rawQuery: string;
}

export type GoParseResult = { readonly ok: true; readonly url: GoURL } | { readonly ok: false; readonly error: string };

type Mode = 'host' | 'zone' | 'path' | 'userinfo' | 'query' | 'fragment';
type Decoded = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: string };

const HEX = /^[0-9A-Fa-f]$/;
// Characters Go lets through unescaped in a host or zone besides letters, digits and "-_.~".
const HOST_PUNCTUATION = new Set('!$&\'()*+,;=:[]<>"');
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
const ALPHANUMERIC = /^[A-Za-z0-9]$/;

/** Any byte below 0x20 or DEL, which Go rejects anywhere in a URL. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      return true;
    }
  }
  return false;
}

/** An ASCII character a host (or zone) may contain unescaped. */
function allowedInHost(char: string): boolean {
  return ALPHANUMERIC.test(char) || '-_.~'.includes(char) || HOST_PUNCTUATION.has(char);
}

function escapeError(escape: string): string {
  return `invalid URL escape ${goQuote(escape)}`;
}

/** Whether Go's unescape admits the (well-formed) escape `escape` in `mode`. */
function escapeAllowed(escape: string, mode: Mode): boolean {
  if (escape === '%25') {
    return true;
  }
  const byte = Number.parseInt(escape.slice(1), 16);
  // In a host, escapes may only encode non-ASCII bytes (and "%25", for RFC 6874 zones).
  if (mode === 'host') {
    return byte >= 0x80;
  }
  // In a zone, only what could be written unescaped, or a space.
  if (mode === 'zone') {
    return byte === 0x20 || (byte < 0x80 && allowedInHost(String.fromCharCode(byte)));
  }
  return true;
}

/** Checks one "%XY" escape at `index`; returns an error message or undefined. */
function escapeProblem(text: string, index: number, mode: Mode): string | undefined {
  const escape = text.slice(index, index + 3);
  const wellFormed = index + 2 < text.length && HEX.test(text.charAt(index + 1)) && HEX.test(text.charAt(index + 2));
  return wellFormed && escapeAllowed(escape, mode) ? undefined : escapeError(escape);
}

/** The first problem Go's unescape finds in `text`, or undefined. */
function unescapeProblem(text: string, mode: Mode): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '%') {
      const problem = escapeProblem(text, i, mode);
      if (problem !== undefined) {
        return problem;
      }
      i += 2;
    } else if ((mode === 'host' || mode === 'zone') && char.charCodeAt(0) < 0x80 && !allowedInHost(char)) {
      return `invalid character ${goQuote(char)} in host name`;
    }
  }
  return undefined;
}

/** Go's unescape: validates escapes (and host characters) and decodes them to bytes. */
export function goUnescape(text: string, mode: Mode): Decoded {
  const problem = unescapeProblem(text, mode);
  if (problem !== undefined) {
    return { ok: false, error: problem };
  }
  const plus = mode === 'query' ? ' ' : '+';
  const value = text.replace(/%([0-9A-Fa-f]{2})|\+/g, (_match, code: string | undefined) =>
    code === undefined ? plus : String.fromCharCode(Number.parseInt(code, 16)),
  );
  return { ok: true, value };
}

/** Go's getScheme: a leading run of scheme characters followed by ":". */
function splitScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const char = raw.charAt(i);
    if (/[A-Za-z]/.test(char)) {
      continue;
    }
    if (/[0-9+.-]/.test(char)) {
      if (i === 0) {
        return { scheme: '', rest: raw };
      }
      continue;
    }
    if (char === ':') {
      return i === 0 ? { error: 'missing protocol scheme' } : { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

/** ":" followed by digits only, or nothing. */
function isValidOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function invalidPort(port: string): Decoded {
  return { ok: false, error: `invalid port ${goQuote(port)} after host` };
}

/** A bracketed name: RFC 6874 splits off a zone at "%25", which has its own escaping rules. */
function unescapeBracketed(name: string): Decoded {
  const zoneAt = name.indexOf('%25');
  if (zoneAt < 0) {
    return goUnescape(name, 'host');
  }
  const address = goUnescape(name.slice(0, zoneAt), 'host');
  const zone = goUnescape(name.slice(zoneAt), 'zone');
  if (!address.ok) return address;
  return zone.ok ? { ok: true, value: address.value + zone.value } : zone;
}

/** "[IPv6]" with an optional ":port"; only IPv6 literals may be bracketed. */
function parseBracketedHost(host: string): Decoded {
  const close = host.lastIndexOf(']');
  if (close < 0) {
    return { ok: false, error: "missing ']' in host" };
  }
  const colonPort = host.slice(close + 1);
  if (!isValidOptionalPort(colonPort)) {
    return invalidPort(colonPort);
  }
  const name = unescapeBracketed(host.slice(1, close));
  if (!name.ok) {
    return name;
  }
  const address = goParseAddr(name.value);
  if (!address.ok) {
    return { ok: false, error: `invalid host: ${address.error}` };
  }
  return address.is4 ? { ok: false, error: 'invalid IP-literal' } : { ok: true, value: `[${name.value}]${colonPort}` };
}

// For http and https URLs Go 1.26 also rejects a second colon in an unbracketed host; BMO v0.13
// is built with Go 1.25, which does not (and no BMC scheme is http or https).
function parseHost(host: string): Decoded {
  const open = host.lastIndexOf('[');
  if (open > 0) {
    return { ok: false, error: 'invalid IP-literal' };
  }
  if (open === 0) {
    return parseBracketedHost(host);
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !isValidOptionalPort(host.slice(colon))) {
    return invalidPort(host.slice(colon));
  }
  return goUnescape(host, 'host');
}

function parseAuthority(authority: string): Decoded {
  const at = authority.lastIndexOf('@');
  const host = parseHost(authority.slice(at + 1));
  if (!host.ok || at < 0) {
    return host;
  }
  const userinfo = authority.slice(0, at);
  if (!USERINFO.test(userinfo)) {
    return { ok: false, error: 'net/url: invalid userinfo' };
  }
  // The user name and the password are unescaped separately.
  const colon = userinfo.indexOf(':');
  for (const part of colon < 0 ? [userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)]) {
    const decoded = goUnescape(part, 'userinfo');
    if (!decoded.ok) return decoded;
  }
  return host;
}

function splitQuery(rest: string): { beforeQuery: string; rawQuery: string } {
  const mark = rest.indexOf('?');
  if (mark < 0) {
    return { beforeQuery: rest, rawQuery: '' };
  }
  return { beforeQuery: rest.slice(0, mark), rawQuery: rest.slice(mark + 1) };
}

interface Hierarchy {
  readonly scheme: string;
  readonly rest: string;
  readonly rawQuery: string;
}

/** The authority and path of a non-opaque URL. */
function parseHierarchy({ scheme, rest, rawQuery }: Hierarchy): GoParseResult {
  let host = '';
  let pathPart = rest;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    pathPart = slash < 0 ? '' : rest.slice(slash);
    const parsedHost = parseAuthority(authority);
    if (!parsedHost.ok) {
      return parsedHost;
    }
    host = parsedHost.value;
  }
  const path = goUnescape(pathPart, 'path');
  if (!path.ok) {
    return path;
  }
  return { ok: true, url: { scheme, opaque: '', host, path: path.value, rawQuery } };
}

function parseWithoutFragment(raw: string): GoParseResult {
  if (hasControlCharacter(raw)) {
    return { ok: false, error: 'net/url: invalid control character in URL' };
  }
  if (raw === '*') {
    return { ok: true, url: { scheme: '', opaque: '', host: '', path: '*', rawQuery: '' } };
  }
  const split = splitScheme(raw);
  if ('error' in split) {
    return { ok: false, error: split.error };
  }
  const scheme = split.scheme.toLowerCase();
  const { beforeQuery: rest, rawQuery } = splitQuery(split.rest);
  if (!rest.startsWith('/')) {
    if (scheme !== '') {
      return { ok: true, url: { scheme, opaque: rest, host: '', path: '', rawQuery } };
    }
    const firstSegment = rest.split('/', 1)[0] ?? '';
    if (firstSegment.includes(':')) {
      return { ok: false, error: 'first path segment in URL cannot contain colon' };
    }
  }
  return parseHierarchy({ scheme, rest, rawQuery });
}

/** Go's url.Parse over a byte string; errors read `parse "<url>": <reason>` like Go's *url.Error. */
export function goParseURL(raw: string): GoParseResult {
  const hash = raw.indexOf('#');
  const withoutFragment = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = parseWithoutFragment(withoutFragment);
  if (!parsed.ok) {
    return { ok: false, error: `parse ${goQuote(withoutFragment)}: ${parsed.error}` };
  }
  if (hash >= 0) {
    const fragment = goUnescape(raw.slice(hash + 1), 'fragment');
    if (!fragment.ok) {
      return { ok: false, error: `parse ${goQuote(raw)}: ${fragment.error}` };
    }
  }
  return parsed;
}

export interface HostPort {
  /** Host name without brackets. */
  readonly hostname: string;
  /** Whether the host name was written in brackets. */
  readonly bracketed: boolean;
  /** Port digits, "" when absent. */
  readonly port: string;
}

/** The lenient split behind Go's URL.Hostname() and URL.Port(). */
export function splitURLHost(host: string): HostPort {
  let hostname = host;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && isValidOptionalPort(host.slice(colon))) {
    hostname = host.slice(0, colon);
    port = host.slice(colon + 1);
  }
  const bracketed = hostname.startsWith('[') && hostname.endsWith(']') && hostname.length >= 2;
  return { hostname: bracketed ? hostname.slice(1, -1) : hostname, bracketed, port };
}

function bracketedHostPortProblem(hostport: string, colon: number): string | undefined {
  const close = hostport.indexOf(']');
  if (close < 0) {
    return "missing ']' in address";
  }
  if (close + 1 === colon) {
    return undefined;
  }
  return hostport.charAt(close + 1) === ':' ? 'too many colons in address' : 'missing port in address';
}

/** Go's net.SplitHostPort, reduced to "is this a host:port string"; returns its error or undefined. */
export function splitHostPortProblem(hostport: string): string | undefined {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) {
    return 'missing port in address';
  }
  const bracketed = hostport.startsWith('[');
  const problem = bracketed ? bracketedHostPortProblem(hostport, colon) : undefined;
  if (problem !== undefined) {
    return problem;
  }
  if (!bracketed && hostport.slice(0, colon).includes(':')) {
    return 'too many colons in address';
  }
  if (hostport.slice(bracketed ? 1 : 0).includes('[')) {
    return "unexpected '[' in address";
  }
  const afterHost = bracketed ? hostport.indexOf(']') + 1 : 0;
  return hostport.slice(afterHost).includes(']') ? "unexpected ']' in address" : undefined;
}
