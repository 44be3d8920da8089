// IP address arithmetic for IPAM: strict parsing, Go-compatible
// canonical text (net.IP.String(), i.e. RFC 5952 for IPv6), BigInt values so IPv4 and IPv6
// offsets use the same code, and the IPAddress object names upstream derives from addresses.

export type Family = 4 | 6;

/** One address: its family and its value as an unsigned integer (32 or 128 bits). */
export interface Address {
  readonly family: Family;
  readonly value: bigint;
}

/** A CIDR exactly as written: the address part may have host bits set (upstream keeps them). */
export interface Subnet {
  readonly address: Address;
  readonly prefixLength: number;
  readonly network: bigint;
  readonly last: bigint;
}

const V4_BITS = 32n;
const V6_BITS = 128n;
const V4_MAX = (1n << V4_BITS) - 1n;
const V6_MAX = (1n << V6_BITS) - 1n;
/** Keys of IPv4 addresses live above the IPv6 space, so one Set can hold both families. */
const V4_KEY_TAG = 1n << V6_BITS;

const V4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const V4_PATTERN = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`, 'u');
const HEXTET = /^[0-9a-fA-F]{1,4}$/u;

export function familyMax(family: Family): bigint {
  return family === 4 ? V4_MAX : V6_MAX;
}

function familyBits(family: Family): number {
  return family === 4 ? 32 : 128;
}

/** A value usable as a Set/Map key that is unique across both families. */
export function addressKey(address: Address): bigint {
  return address.family === 4 ? address.value | V4_KEY_TAG : address.value;
}

/** The inverse of addressKey. */
export function addressFromKey(key: bigint): Address {
  return key >= V4_KEY_TAG ? { family: 4, value: key - V4_KEY_TAG } : { family: 6, value: key };
}

function parseV4(text: string): Address | undefined {
  if (!V4_PATTERN.test(text)) return undefined;
  let value = 0;
  for (const octet of text.split('.')) value = value * 256 + Number(octet);
  return { family: 4, value: BigInt(value) };
}

function parseHextets(part: string): number[] | undefined {
  if (part === '') return [];
  const groups = part.split(':');
  if (!groups.every((group) => HEXTET.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16));
}

/** The eight 16-bit groups of an IPv6 text, or undefined. No zones, no embedded IPv4. */
function v6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseHextets(halves[0] ?? '');
  const tail = halves.length === 2 ? parseHextets(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : undefined;
}

function parseV6(text: string): Address | undefined {
  const groups = v6Groups(text);
  if (groups === undefined) return undefined;
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return { family: 6, value };
}

/** Parses an IPv4 (dotted decimal, no leading zeros) or IPv6 address; undefined when invalid. */
export function parseAddress(text: string): Address | undefined {
  if (text.length === 0 || text.length > 39) return undefined;
  return text.includes(':') ? parseV6(text) : parseV4(text);
}

/** IPv6 text whose last 32 bits are written as dotted IPv4 (`::ffff:10.0.0.5`), as Go allows. */
function parseV6WithV4Tail(text: string): Address | undefined {
  const colon = text.lastIndexOf(':');
  const tail = parseV4(text.slice(colon + 1));
  if (tail === undefined) return undefined;
  const hex = `${(tail.value >> 16n).toString(16)}:${(tail.value & 0xffffn).toString(16)}`;
  return parseV6(`${text.slice(0, colon + 1)}${hex}`);
}

/**
 * Parses an address as Go's net.ParseIP does, for text no schema checks (the `ipAddress`
 * annotation): also IPv6 ending in dotted IPv4, and an IPv4-mapped IPv6 address (`::ffff:a00:5`,
 * `::ffff:10.0.0.5`) is that IPv4 address, as upstream's comparison (net.IP.Equal) treats it.
 */
export function parseGoAddress(text: string): Address | undefined {
  if (!text.includes(':')) return parseV4(text);
  const address = text.includes('.') ? parseV6WithV4Tail(text) : parseAddress(text);
  if (address === undefined) return undefined;
  return address.value >> 32n === 0xffffn ? { family: 4, value: address.value & V4_MAX } : address;
}

function formatV4(value: bigint): string {
  const n = Number(value);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The longest run (length ≥ 2) of zero groups, first one on a tie; Go and RFC 5952 agree. */
function longestZeroRun(groups: number[]): { start: number; length: number } {
  let best = { start: -1, length: 0 };
  let start = -1;
  groups.forEach((group, i) => {
    if (group !== 0) {
      start = -1;
      return;
    }
    if (start < 0) start = i;
    const length = i - start + 1;
    if (length > best.length) best = { start, length };
  });
  return best.length >= 2 ? best : { start: -1, length: 0 };
}

function formatV6(value: bigint): string {
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  const run = longestZeroRun(groups);
  const hex = groups.map((group) => group.toString(16));
  if (run.start < 0) return hex.join(':');
  const head = hex.slice(0, run.start).join(':');
  const tail = hex.slice(run.start + run.length).join(':');
  return `${head}::${tail}`;
}

/** The canonical text of an address (what Go's net.IP.String() prints). */
export function formatAddress(address: Address): string {
  return address.family === 4 ? formatV4(address.value) : formatV6(address.value);
}

/** Re-renders an address text canonically; undefined when it does not parse. */
export function canonicalAddress(text: string): string | undefined {
  const address = parseAddress(text);
  return address === undefined ? undefined : formatAddress(address);
}

export function compareAddresses(a: Address, b: Address): number {
  if (a.family !== b.family) return a.family - b.family;
  if (a.value === b.value) return 0;
  return a.value < b.value ? -1 : 1;
}

/** Parses `address/prefix`; the prefix must fit the family. Host bits are kept, as upstream does. */
export function parseSubnet(text: string): Subnet | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const digits = text.slice(slash + 1);
  if (address === undefined || !/^(?:0|[1-9][0-9]{0,2})$/u.test(digits)) return undefined;
  const prefixLength = Number(digits);
  const bits = familyBits(address.family);
  if (prefixLength > bits) return undefined;
  const hostMask = (1n << BigInt(bits - prefixLength)) - 1n;
  const network = address.value & ~hostMask & familyMax(address.family);
  return { address, prefixLength, network, last: network | hostMask };
}

/**
 * The IPAddress object name upstream derives from an address: `<namePrefix>-<address>` with every
 * `.` and `:` replaced by `-` and trailing dashes trimmed (`pool1-192-168-0-13`, `v6-2001-db8--5`).
 */
export function ipAddressName(namePrefix: string, address: Address): string {
  if (address.family === 4) {
    const n = Number(address.value);
    return `${namePrefix}-${n >>> 24}-${(n >>> 16) & 255}-${(n >>> 8) & 255}-${n & 255}`;
  }
  let name = `${namePrefix}-${formatV6(address.value).replaceAll(':', '-')}`;
  while (name.endsWith('-')) name = name.slice(0, -1);
  return name;
}

/**
 * Reads an address back out of an IPAddress name made by ipAddressName. Best effort: a dashed
 * IPv4 form wins over the (rare) IPv6 text that dashes the same way.
 */
export function addressFromName(namePrefix: string, name: string): Address | undefined {
  if (!name.startsWith(`${namePrefix}-`)) return undefined;
  const dashed = name.slice(namePrefix.length + 1);
  const candidates = [dashed.replace(/-/gu, '.'), dashed.replace(/-/gu, ':'), `${dashed.replace(/-/gu, ':')}::`];
  for (const candidate of candidates) {
    const address = parseAddress(candidate);
    if (address !== undefined && ipAddressName(namePrefix, address) === name) return address;
  }
  return undefined;
}
