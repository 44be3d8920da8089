// BMC address parsing: upstream's GetParsedURL fallbacks,
// the host-name check and the scheme lookup, then the IPMI and Redfish specifics.
// Pure: no I/O, never throws for user input.
//
// Where Ironhook is stricter than upstream (each check runs after upstream's, so an address
// upstream rejects keeps upstream's message; these are addresses upstream admits but no driver
// can use): a host is required ("ipmi://", "redfish://:8443/x"); IPv6 literals must be, and
// only they may be, bracketed ("ipmi://fd00::5:623", "[10.0.0.5]:623"); ports above 65535
// are rejected. parseBMCAddressAsUpstream skips these checks (the differential tests compare it
// with upstream on exactly those addresses). A port is normalised to a number, so "h:" and
// "h:0623" mean "h" and "h:623".

import { fromGoBytes, toGoBytes } from './gostring.js';
import { goParseURL, goUnescape, splitHostPortProblem, splitURLHost } from './gourl.js';
import type { GoURL, HostPort } from './gourl.js';
import { isDNSName, isIPLiteral, isIPv4Literal, isIPv6Literal } from './ip.js';
import { defaultSchemeRegistry } from './schemes.js';
import type { BMCAddressKind, BMCDriverFamily, BMCSchemeCapabilities, BMCSchemeMatch, BMCSchemeRegistry, RedfishProtocol } from './schemes.js';

const IPMI_DEFAULT_PORT = 623;
export const IPMI_DEFAULT_PRIVILEGE_LEVEL = 'ADMINISTRATOR';
const MAX_PORT = 65535;
// Go's url.ParseQuery refuses more parameters than this (and upstream then uses the default level).
const MAX_QUERY_PARAMETERS = 10000;
const PARSE_PREFIX = 'failed to parse BMC address information: ';

/** The transport used to reach the BMC. */
type BMCTransport = 'ipmi' | RedfishProtocol;

export interface ParsedBMCAddress {
  /** The address as written in spec.bmc.address. */
  readonly address: string;
  /** The scheme as looked up (URL schemes are case-insensitive, so lower-cased), e.g. "redfish+http". */
  readonly scheme: string;
  /** The registered scheme name without the "+http"/"+https" suffix. */
  readonly baseScheme: string;
  readonly driver: BMCDriverFamily;
  readonly addressKind: BMCAddressKind;
  /** "ipmi" for IPMI-style schemes; the Redfish protocol (default https) otherwise. */
  readonly protocol: BMCTransport;
  /** Host name or IP literal, without brackets. */
  readonly host: string;
  /** The port; IPMI-style schemes default to 623, Redfish leaves it unset when absent. */
  readonly port: number | undefined;
  /** The percent-decoded URL path ("" when none). */
  readonly path: string;
  /** The Redfish System ID (the path), or undefined when the backend should pick the only system. */
  readonly systemId: string | undefined;
  /** IPMI privilege level from `?privilegelevel=`; undefined for Redfish-family schemes. */
  readonly privilegeLevel: string | undefined;
  readonly capabilities: BMCSchemeCapabilities;
}

/**
 * Why an address is refused: upstream's reasons (parse, hostname, unknown-scheme), or one of
 * Ironhook's stricter rules (host-required, host-brackets, port-range).
 */
export type BMCAddressErrorReason = 'parse' | 'hostname' | 'unknown-scheme' | 'host-required' | 'host-brackets' | 'port-range';

export interface BMCAddressError {
  readonly reason: BMCAddressErrorReason;
  /** Upstream-like text, e.g. "Unknown BMC type 'foo' for address foo://h". */
  readonly message: string;
}

export type BMCAddressParse =
  { readonly kind: 'none' } | { readonly kind: 'parsed'; readonly bmc: ParsedBMCAddress } | { readonly kind: 'invalid'; readonly error: BMCAddressError };

// Everything below works on byte strings (gostring.ts), as upstream's Go code does.
type Located = { readonly ok: true; readonly url: GoURL } | { readonly ok: false; readonly error: string };

function reparse(text: string): Located {
  const parsed = goParseURL(text);
  return parsed.ok ? parsed : { ok: false, error: PARSE_PREFIX + parsed.error };
}

/** When the URL parser fails, a plain "host:port" (or a string without ":") is an IPMI host. */
function hostPortFallback(address: string, parseError: string): Located {
  if (address.includes(':') && splitHostPortProblem(address) !== undefined) {
    return { ok: false, error: PARSE_PREFIX + parseError };
  }
  return { ok: true, url: { scheme: 'ipmi', opaque: '', host: address, path: '', rawQuery: '' } };
}

/** Upstream's GetParsedURL steps 2–4: URL parse, opaque and scheme-less fallbacks. */
function locate(address: string): Located {
  const first = goParseURL(address);
  if (!first.ok) {
    return hostPortFallback(address, first.error);
  }
  if (first.url.opaque !== '') {
    return reparse(address.replace(':', '://'));
  }
  if (first.url.scheme === '' && splitURLHost(first.url.host).hostname === '') {
    return reparse(`ipmi://${address}`);
  }
  return first;
}

function invalid(reason: BMCAddressErrorReason, message: string): BMCAddressParse {
  return { kind: 'invalid', error: { reason, message } };
}

function hostnameError(hostname: string, reason: BMCAddressErrorReason = 'hostname'): BMCAddressParse {
  return invalid(reason, `${PARSE_PREFIX}BMC address hostname/IP : [${fromGoBytes(hostname)}] is invalid`);
}

/** Upstream's check: empty, an IP literal, or an RFC-1123 name (any non-ASCII byte fails, as in Go). */
function upstreamHostnameValid(hostname: string): boolean {
  return hostname === '' || isIPLiteral(hostname) || isDNSName(hostname);
}

/** Ironhook's stricter rules, once upstream has accepted the address. */
function strictProblem({ hostname, bracketed, port }: HostPort): BMCAddressParse | undefined {
  if (hostname === '') {
    return hostnameError(hostname, 'host-required');
  }
  if (bracketed ? !isIPv6Literal(hostname) : !isIPv4Literal(hostname) && !isDNSName(hostname)) {
    return hostnameError(hostname, 'host-brackets');
  }
  if (port !== '' && Number(port) > MAX_PORT) {
    return invalid('port-range', `${PARSE_PREFIX}invalid port ":${port}" after host`);
  }
  return undefined;
}

type QueryPair = { readonly ok: true; readonly key: string; readonly value: string } | { readonly ok: false };

/** One "key=value" of Go's url.ParseQuery: an error for a semicolon or a bad escape. */
function queryPair(pair: string): QueryPair {
  if (pair.includes(';')) {
    return { ok: false };
  }
  const equals = pair.indexOf('=');
  const key = goUnescape(equals < 0 ? pair : pair.slice(0, equals), 'query');
  const value = goUnescape(equals < 0 ? '' : pair.slice(equals + 1), 'query');
  return key.ok && value.ok ? { ok: true, key: key.value, value: value.value } : { ok: false };
}

/** Go's url.ParseQuery + upstream's lookup over a byte string: the first privilegelevel value; the default on any error. */
function privilegeLevelOf(rawQuery: string): string {
  const pairs = rawQuery.split('&');
  if (pairs.length > MAX_QUERY_PARAMETERS) {
    return IPMI_DEFAULT_PRIVILEGE_LEVEL;
  }
  let level: string | undefined;
  for (const text of pairs) {
    const pair = queryPair(text);
    if (!pair.ok) {
      return IPMI_DEFAULT_PRIVILEGE_LEVEL;
    }
    if (pair.key === 'privilegelevel') {
      level ??= pair.value;
    }
  }
  return level ?? IPMI_DEFAULT_PRIVILEGE_LEVEL;
}

/** The IPMI privilege level a query (still encoded, without "?") selects. */
export function privilegeLevelFromQuery(rawQuery: string): string {
  return fromGoBytes(privilegeLevelOf(toGoBytes(rawQuery)));
}

/** The Redfish System ID rule: an empty path or just "redfish/v1" means "no system id". */
function systemIdFromPath(path: string, alwaysPassPath: boolean): string | undefined {
  if (path === '') {
    return undefined;
  }
  if (alwaysPassPath) {
    return path;
  }
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' || trimmed === 'redfish/v1' ? undefined : path;
}

interface Parts {
  readonly address: string;
  readonly url: GoURL;
  readonly hostPort: HostPort;
  readonly match: BMCSchemeMatch;
}

function build({ address, url, hostPort, match }: Parts): ParsedBMCAddress {
  const { definition } = match;
  const ipmiStyle = definition.addressKind === 'ipmi';
  const port = hostPort.port === '' ? undefined : Number(hostPort.port);
  const systemId = ipmiStyle ? undefined : systemIdFromPath(url.path, definition.capabilities.bootMethod === 'uefi-http');
  return {
    address,
    scheme: url.scheme,
    baseScheme: definition.name,
    driver: definition.capabilities.driver,
    addressKind: definition.addressKind,
    protocol: ipmiStyle ? 'ipmi' : (match.protocol ?? 'https'),
    host: fromGoBytes(hostPort.hostname),
    port: ipmiStyle ? (port ?? IPMI_DEFAULT_PORT) : port,
    path: fromGoBytes(url.path),
    systemId: systemId === undefined ? undefined : fromGoBytes(systemId),
    privilegeLevel: ipmiStyle ? fromGoBytes(privilegeLevelOf(url.rawQuery)) : undefined,
    capabilities: definition.capabilities,
  };
}

function parse(address: string, registry: BMCSchemeRegistry, strict: boolean): BMCAddressParse {
  if (address === '') {
    return { kind: 'none' };
  }
  const located = locate(toGoBytes(address));
  if (!located.ok) {
    return invalid('parse', fromGoBytes(located.error));
  }
  const { url } = located;
  const hostPort = splitURLHost(url.host);
  if (!upstreamHostnameValid(hostPort.hostname)) {
    return hostnameError(hostPort.hostname);
  }
  const match = registry.lookup(url.scheme);
  if (match === undefined) {
    return invalid('unknown-scheme', `Unknown BMC type '${url.scheme}' for address ${address}`);
  }
  return (strict ? strictProblem(hostPort) : undefined) ?? { kind: 'parsed', bmc: build({ address, url, hostPort, match }) };
}

/**
 * Parses spec.bmc.address. An empty address means "no BMC" (kind "none"). Checks run in
 * upstream's order (URL, host name, scheme), then Ironhook's stricter ones (host present, IPv6
 * bracketed, port ≤ 65535), so every address upstream rejects gets upstream's message.
 */
export function parseBMCAddress(address: string, registry: BMCSchemeRegistry = defaultSchemeRegistry): BMCAddressParse {
  return parse(address, registry, true);
}

/** parseBMCAddress without Ironhook's stricter rules: what upstream makes of the address. */
export function parseBMCAddressAsUpstream(address: string, registry: BMCSchemeRegistry = defaultSchemeRegistry): BMCAddressParse {
  return parse(address, registry, false);
}
