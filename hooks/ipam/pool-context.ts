// What a pool sync needs to know beyond its own claims: its parsed ranges and pre-allocations,
// the other pools in the namespace that share its namePrefix, and its Cluster's pause state.
import { formatAddress, ipAddressName, parseAddress, type Address } from '../../domain/ipam/address.js';
import { buildRanges, findRange, rangesOverlap, type AddressRange } from '../../domain/ipam/ranges.js';
import type { IPPool, IPPoolSpec } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import { clusterIndex } from './claims.js';
import { compareText, rec } from '../kit/index.js';
import { stringField, stringMap } from './request.js';

export interface PoolConfig {
  readonly ranges: readonly AddressRange[];
  readonly preAllocations: ReadonlyMap<string, Address>;
  readonly problems: readonly string[];
}

/** Ranges and pre-allocations; every pre-allocation must parse and fall inside a range. */
export function poolConfig(spec: IPPoolSpec): PoolConfig {
  const { ranges, problems } = buildRanges(spec);
  const preAllocations = new Map<string, Address>();
  const all = [...problems];
  const entries = spec.preAllocations ?? {};
  for (const claimName of Object.keys(entries).sort()) {
    const text = entries[claimName] ?? '';
    const address = parseAddress(text);
    if (address === undefined) {
      all.push(`spec.preAllocations[${claimName}]: "${text}" is not an IP address`);
      continue;
    }
    preAllocations.set(claimName, address);
    if (findRange(ranges, address) === undefined) {
      all.push(`spec.preAllocations[${claimName}]: ${formatAddress(address)} is outside spec.pools`);
    }
  }
  return { ranges, preAllocations, problems: all };
}

export interface Neighbours {
  /** IPAddress names the other same-prefix pools hold (from their status.indexes). */
  readonly foreignNames: string[];
  readonly problems: string[];
  /** Set when an older pool with the same namePrefix overlaps this one: allocate nothing new. */
  readonly blockedBy?: string;
}

function poolSpec(obj: KObject): IPPoolSpec {
  const spec = rec(obj.spec);
  return { ...(spec as unknown as IPPoolSpec), namePrefix: stringField(spec.namePrefix) ?? '' };
}

function olderThan(a: KObject, b: KObject): boolean {
  const byTime = compareText(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '');
  return (byTime || compareText(a.metadata.name ?? '', b.metadata.name ?? '')) < 0;
}

function heldNames(other: KObject, namePrefix: string): string[] {
  const indexes = stringMap(rec(other.status).indexes);
  const names: string[] = [];
  for (const text of Object.values(indexes)) {
    const address = parseAddress(text);
    if (address !== undefined) names.push(ipAddressName(namePrefix, address));
  }
  return names;
}

/**
 * Upstream lets two pools with one namePrefix collide on IPAddress names and retries forever.
 * Here: both report it; the older pool (creation time, then name) keeps allocating around the
 * other's addresses, the younger one allocates nothing new until the overlap is gone.
 */
export function neighbours(pool: IPPool, ranges: readonly AddressRange[], pools: readonly KObject[]): Neighbours {
  const result: { foreignNames: string[]; problems: string[]; blockedBy?: string } = { foreignNames: [], problems: [] };
  const prefix = pool.spec.namePrefix;
  for (const other of pools) {
    if (other.metadata.name === pool.metadata.name || poolSpec(other).namePrefix !== prefix) continue;
    result.foreignNames.push(...heldNames(other, prefix));
    if (!rangesOverlap(ranges, buildRanges(poolSpec(other)).ranges)) continue;
    const otherName = other.metadata.name ?? '';
    result.problems.push(`IPPool ${otherName} has the same namePrefix "${prefix}" and overlapping pools`);
    if (olderThan(other, pool) && result.blockedBy === undefined) result.blockedBy = otherName;
  }
  return result;
}

export type ClusterGate = { frozen: false } | { frozen: true; reason: 'Paused' | 'WaitingForCluster'; message: string };

/** With Cluster API served, a pool naming a Cluster waits for it and honours its pause. */
export function clusterGate(pool: IPPool, clusters: readonly KObject[] | undefined): ClusterGate {
  const clusterName = pool.spec.clusterName;
  if (clusters === undefined || clusterName === undefined || clusterName === '') return { frozen: false };
  const paused = clusterIndex(clusters).paused.get(clusterName);
  if (paused === undefined) return { frozen: true, reason: 'WaitingForCluster', message: `waiting for Cluster ${clusterName}` };
  return paused ? { frozen: true, reason: 'Paused', message: `Cluster ${clusterName} is paused` } : { frozen: false };
}
