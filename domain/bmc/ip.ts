// IP-literal and host-name checks for BMC addresses.
// Written without node:net so that pure hook code can use it; the accepted forms are those of
// Go's net.ParseIP (netip.ParseAddr without a zone): dotted-quad IPv4 without leading zeros,
// IPv6 with at most one "::" and an optional trailing dotted-quad.

import { toGoBytes } from './gostring.js';
import { goParseAddr } from './netip.js';

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function parseIP(text: string): { readonly is4: boolean } | undefined {
  const parsed = goParseAddr(toGoBytes(text));
  return parsed.ok && parsed.zone === '' ? parsed : undefined;
}

/** A dotted-quad IPv4 literal: four decimal octets 0–255, no leading zeros. */
export function isIPv4Literal(text: string): boolean {
  return parseIP(text)?.is4 === true;
}

/** An IPv6 literal without brackets and without a zone. */
export function isIPv6Literal(text: string): boolean {
  return parseIP(text)?.is4 === false;
}

/** What Go's net.ParseIP accepts: an IPv4 or IPv6 literal (no brackets, no zone). */
export function isIPLiteral(text: string): boolean {
  return parseIP(text) !== undefined;
}

/**
 * An RFC-1123 host name as upstream checks it: dot-separated labels of 1–63 letters, digits and
 * hyphens, no label starting or ending with a hyphen, no trailing dot.
 */
export function isDNSName(text: string): boolean {
  if (text === '') {
    return false;
  }
  return text.split('.').every((label) => DNS_LABEL.test(label));
}
