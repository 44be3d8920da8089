// `spec.pools` as ordered address ranges. Upstream walks index
// 0, 1, 2, … from the first candidate until a candidate falls out of bounds; that walk visits
// exactly the closed interval [first, last] computed here, so no caller ever needs to walk it.
import { familyMax, parseAddress, parseSubnet, type Address, type Family, type Subnet } from './address.js';
import type { IPPoolRange, IPPoolSpec } from './types.js';

export interface AddressRange {
  /** Position in `spec.pools`. */
  readonly index: number;
  readonly family: Family;
  /** First and last candidate, inclusive; the range is empty when first > last. */
  readonly first: bigint;
  readonly last: bigint;
  /** What an address from this range carries: the entry's values, else the pool-wide ones. */
  readonly prefix: number;
  readonly gateway?: string;
  readonly dnsServers?: readonly string[];
}

export interface PoolRanges {
  readonly ranges: readonly AddressRange[];
  /** Entries that can never yield an address, explained; sorted by entry. */
  readonly problems: readonly string[];
}

interface ParsedEntry {
  start?: Address;
  end?: Address;
  subnet?: Subnet;
}

type EntryResult = { ok: true; parsed: ParsedEntry; family: Family } | { ok: false; problem: string };

function invalid(where: string, field: string, text: string | undefined, what: string): EntryResult {
  return { ok: false, problem: `${where}.${field} "${text ?? ''}" is not ${what}` };
}

type FieldsResult = { ok: true; parsed: ParsedEntry } | { ok: false; problem: string };

function parseFields(entry: IPPoolRange, where: string): FieldsResult {
  const parsed: ParsedEntry = {};
  for (const field of ['start', 'end'] as const) {
    const text = entry[field];
    if (text === undefined) continue;
    const address = parseAddress(text);
    if (address === undefined) return invalid(where, field, text, 'an IP address');
    parsed[field] = address;
  }
  if (entry.subnet !== undefined) {
    const subnet = parseSubnet(entry.subnet);
    if (subnet === undefined) return invalid(where, 'subnet', entry.subnet, 'a CIDR');
    parsed.subnet = subnet;
  }
  return { ok: true, parsed };
}

function familiesOf(parsed: ParsedEntry): Family[] {
  const families = [parsed.start?.family, parsed.end?.family, parsed.subnet?.address.family];
  return families.filter((family): family is Family => family !== undefined);
}

function parseEntry(entry: IPPoolRange, where: string): EntryResult {
  const fields = parseFields(entry, where);
  if (!fields.ok) return fields;
  const { parsed } = fields;
  if (parsed.start === undefined && parsed.subnet === undefined) {
    return { ok: false, problem: `${where}: either start or subnet is required` };
  }
  const families = familiesOf(parsed);
  const family = families[0] ?? 4;
  if (families.some((f) => f !== family)) {
    return { ok: false, problem: `${where}: start, end and subnet mix IPv4 and IPv6` };
  }
  return { ok: true, parsed, family };
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** [first, last] of the walk upstream's GetIPAddress does for one entry. */
function bounds(parsed: ParsedEntry, family: Family): { first: bigint; last: bigint } {
  const { start, end, subnet } = parsed;
  // Subnet only: index 0 is the address as written plus one (192.168.0.0/24 → 192.168.0.1).
  const first = start?.value ?? (subnet?.address.value ?? 0n) + 1n;
  let last = minBig(end?.value ?? familyMax(family), familyMax(family));
  if (subnet !== undefined) {
    last = minBig(last, subnet.last);
    // The walk stops at the first candidate outside the subnet, so a start below it yields nothing.
    if (first < subnet.network) return { first: 1n, last: 0n };
  }
  return { first, last };
}

function emptyProblem(parsed: ParsedEntry, where: string): string {
  if (parsed.start !== undefined && parsed.end !== undefined && parsed.start.value > parsed.end.value) {
    return `${where}: start is after end`;
  }
  return parsed.subnet === undefined ? `${where} has no addresses` : `${where}: start is outside the subnet`;
}

interface EntryInput {
  spec: IPPoolSpec;
  entry: IPPoolRange;
  index: number;
  family: Family;
  parsed: ParsedEntry;
}

function entryRange({ spec, entry, index, family, parsed }: EntryInput): AddressRange {
  const { first, last } = bounds(parsed, family);
  const gateway = entry.gateway ?? spec.gateway;
  const dnsServers = entry.dnsServers !== undefined && entry.dnsServers.length > 0 ? entry.dnsServers : spec.dnsServers;
  return {
    index,
    family,
    first,
    last,
    prefix: entry.prefix !== undefined && entry.prefix !== 0 ? entry.prefix : (spec.prefix ?? 0),
    ...(gateway !== undefined && { gateway }),
    ...(dnsServers !== undefined && dnsServers.length > 0 && { dnsServers }),
  };
}

/** The pool's ranges in `spec.pools` order, plus a readable reason for every entry that is unusable. */
export function buildRanges(spec: IPPoolSpec): PoolRanges {
  const ranges: AddressRange[] = [];
  const problems: string[] = [];
  (spec.pools ?? []).forEach((entry, index) => {
    const where = `spec.pools[${index}]`;
    const result = parseEntry(entry, where);
    if (!result.ok) {
      problems.push(result.problem);
      return;
    }
    const range = entryRange({ spec, entry, index, family: result.family, parsed: result.parsed });
    if (range.first > range.last) problems.push(emptyProblem(result.parsed, where));
    else ranges.push(range);
  });
  if ((spec.pools ?? []).length === 0) problems.push('spec.pools is empty: the pool has no addresses');
  return { ranges, problems };
}

function rangeContains(range: AddressRange, address: Address): boolean {
  return range.family === address.family && range.first <= address.value && address.value <= range.last;
}

/** The first range (in `spec.pools` order) that holds the address. */
export function findRange(ranges: readonly AddressRange[], address: Address): AddressRange | undefined {
  return ranges.find((range) => rangeContains(range, address));
}

export function rangeSize(range: AddressRange): bigint {
  return range.last >= range.first ? range.last - range.first + 1n : 0n;
}

/** Disjoint, sorted [first, last] intervals covering the ranges of one family. */
function mergedIntervals(ranges: readonly AddressRange[], family: Family): Array<[bigint, bigint]> {
  const sorted = ranges
    .filter((range) => range.family === family)
    .map((range): [bigint, bigint] => [range.first, range.last])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: Array<[bigint, bigint]> = [];
  for (const [first, last] of sorted) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && first <= previous[1] + 1n) previous[1] = last > previous[1] ? last : previous[1];
    else merged.push([first, last]);
  }
  return merged;
}

/** How many distinct addresses the ranges hold together (overlapping entries counted once). */
export function totalSize(ranges: readonly AddressRange[]): bigint {
  let total = 0n;
  for (const family of [4, 6] as const) {
    for (const [first, last] of mergedIntervals(ranges, family)) total += last - first + 1n;
  }
  return total;
}

export function rangesOverlap(a: readonly AddressRange[], b: readonly AddressRange[]): boolean {
  return a.some((x) => b.some((y) => x.family === y.family && x.first <= y.last && y.first <= x.last));
}
