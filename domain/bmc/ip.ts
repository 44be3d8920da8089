// IP-literal and host-name checks for BMC addresses.
// Written without node:net so that pure hook code can use it; the accepted forms are those of
// Go's net.ParseIP (dotted-quad IPv4 without leading zeros; IPv6 with at most one "::", optional
// trailing dotted-quad; no zone).

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const DECIMAL_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const IPV6_GROUPS = 8;

/** A dotted-quad IPv4 literal: four decimal octets 0–255, no leading zeros. */
export function isIPv4Literal(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) {
    return false;
  }
  return parts.every((part) => DECIMAL_OCTET.test(part) && Number(part) <= 255);
}

/** Number of 16-bit groups a run of colon-separated fields stands for, or -1 when malformed. */
function groupCount(fields: string[], allowTrailingIPv4: boolean): number {
  let count = 0;
  for (const [index, field] of fields.entries()) {
    const last = index === fields.length - 1;
    if (last && allowTrailingIPv4 && field.includes('.')) {
      if (!isIPv4Literal(field)) {
        return -1;
      }
      count += 2;
    } else if (HEX_GROUP.test(field)) {
      count += 1;
    } else {
      return -1;
    }
  }
  return count;
}

/** An IPv6 literal without brackets and without a zone. */
export function isIPv6Literal(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) {
    return false;
  }
  const [head = '', tail] = halves;
  if (tail === undefined) {
    return groupCount(head.split(':'), true) === IPV6_GROUPS;
  }
  const headCount = head === '' ? 0 : groupCount(head.split(':'), false);
  const tailCount = tail === '' ? 0 : groupCount(tail.split(':'), true);
  if (headCount < 0 || tailCount < 0) {
    return false;
  }
  // "::" must stand for at least one group of zeros.
  return headCount + tailCount < IPV6_GROUPS;
}

/** What Go's net.ParseIP accepts: an IPv4 or IPv6 literal (no brackets, no zone). */
export function isIPLiteral(text: string): boolean {
  return isIPv4Literal(text) || isIPv6Literal(text);
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
