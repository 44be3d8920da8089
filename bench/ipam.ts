// IPPool sync latency (issue 5): a /16 worth of claims (65,534) against pools of /24, /20 and /16
// that already have 10 % of their addresses allocated. Pure hook calls; the request is built in
// memory (Metacontroller's JSON parsing and our server's are not part of these numbers).
//   npx tsx bench/ipam.ts        prints the tables
//   benchIpam()                  for bench/run.ts
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { formatAddress, ipAddressName } from '../domain/ipam/address.js';
import { AddressBook, SequentialCursor } from '../domain/ipam/allocator.js';
import { buildRanges } from '../domain/ipam/ranges.js';
import type { IPPoolSpec } from '../domain/ipam/types.js';
import type { KObject } from '../domain/k8s.js';
import type { CompositeSyncResponse } from '../domain/metacontroller.js';
import { ippoolSync } from '../hooks/ipam/ippool.js';
import { asObservedChild, at, claim, pool, poolRequest } from '../devenv/builders/ippool.js';
import type { BenchResult } from './types.js';

const CLAIMS = 65_534;
const BATCH = 4_096;
const PREFIXES = [24, 20, 16] as const;

interface Setup {
  spec: IPPoolSpec;
  parent: KObject;
  size: number;
  existingClaims: KObject[];
  existingChildren: KObject[];
  status: Record<string, unknown>;
}

/** A pool over one subnet whose first `existing` allocations sit on every tenth address. */
function setup(subnet: string, existing: number): Setup {
  const spec: IPPoolSpec = { namePrefix: 'bench', pools: [{ subnet }], prefix: 24, gateway: subnet.includes(':') ? '2001:db8::1' : '10.0.0.1' };
  const parent = pool('pool1', spec);
  const range = buildRanges(spec).ranges[0];
  const size = range === undefined ? 0 : Number(range.last - range.first + 1n);
  const existingClaims: KObject[] = [];
  const existingChildren: KObject[] = [];
  const indexes: Record<string, string> = {};
  for (let i = 0; i < existing && range !== undefined; i++) {
    const name = `old-${String(i).padStart(6, '0')}`;
    const value = { family: range.family, value: range.first + BigInt(i * 10) };
    const address = formatAddress(value);
    existingClaims.push(claim(name, { created: at(0) }));
    const spec = { address, claim: { name, namespace: 'default' }, pool: { name: 'pool1', namespace: 'default' }, prefix: 24 };
    const desired = {
      apiVersion: 'ipam.metal3.io/v1alpha1',
      kind: 'IPAddress',
      metadata: { name: ipAddressName('bench', value), labels: { 'ironhook.dev/ipclaim': name } },
      spec,
    };
    existingChildren.push(asObservedChild(desired, parent, at(0)));
    indexes[name] = address;
  }
  return { spec, parent, size, existingClaims, existingChildren, status: { indexes, lastUpdated: at(0) } };
}

function newClaims(from: number, count: number): KObject[] {
  return Array.from({ length: count }, (_, i) => claim(`new-${String(from + i).padStart(6, '0')}`, { created: at(1 + Math.floor((from + i) / BATCH)) }));
}

function timeOnce(request: unknown): { ms: number; response: CompositeSyncResponse } {
  const start = performance.now();
  const response = ippoolSync(request);
  return { ms: performance.now() - start, response };
}

/** Best of several runs: the machines are shared, and the minimum is the least disturbed sample. */
function best(values: number[]): number {
  return Math.min(...values);
}

interface OneSync {
  ms: number;
  allocated: number;
  exhausted: number;
  statusKiB: number;
}

/** All 65,534 claims arrive before the pool syncs: one sync allocates everything it can. */
function exhaustedCount(response: CompositeSyncResponse | undefined): number {
  const ironhook = (response?.status.ironhook ?? {}) as { claimErrors?: Record<string, string>; unlistedClaimErrors?: number };
  return Object.keys(ironhook.claimErrors ?? {}).length + (ironhook.unlistedClaimErrors ?? 0);
}

function oneSync(s: Setup, iterations: number, count = CLAIMS): OneSync {
  const request = poolRequest({ pool: { ...s.parent, status: s.status }, claims: [...s.existingClaims, ...newClaims(0, count)], children: s.existingChildren });
  const samples: number[] = [];
  let last: CompositeSyncResponse | undefined;
  for (let i = 0; i < iterations; i++) {
    const { ms, response } = timeOnce(request);
    samples.push(ms);
    last = response;
  }
  const children = last?.children.length ?? 0;
  return {
    ms: best(samples),
    allocated: children - s.existingChildren.length,
    exhausted: exhaustedCount(last),
    statusKiB: JSON.stringify(last?.status ?? {}).length / 1024,
  };
}

interface Batched {
  syncs: number;
  totalMs: number;
  meanMs: number;
  maxMs: number;
  lastMs: number;
}

/** Claims arrive 4,096 at a time; each sync's children and status are fed back into the next. */
function batched(s: Setup): Batched {
  let children = s.existingChildren;
  let status = s.status;
  const claims = [...s.existingClaims];
  const samples: number[] = [];
  for (let from = 0; from < CLAIMS; from += BATCH) {
    claims.push(...newClaims(from, Math.min(BATCH, CLAIMS - from)));
    const { ms, response } = timeOnce(poolRequest({ pool: { ...s.parent, status }, claims, children }));
    samples.push(ms);
    const observed = new Map(children.map((child) => [child.metadata.name ?? '', child]));
    children = response.children.map((child) => observed.get(child.metadata.name ?? '') ?? asObservedChild(child, s.parent, at(from)));
    status = response.status;
  }
  const totalMs = samples.reduce((a, b) => a + b, 0);
  return { syncs: samples.length, totalMs, meanMs: totalMs / samples.length, maxMs: Math.max(...samples), lastMs: samples[samples.length - 1] ?? 0 };
}

/** The allocator alone: 10,000 first-free allocations in pools from /24 to an IPv6 /64. */
function allocatorOnly(subnet: string, count: number): { nsPerAllocation: number; allocated: number } {
  const { ranges } = buildRanges({ namePrefix: 'b', pools: [{ subnet }] });
  const book = new AddressBook((address) => ipAddressName('b', address));
  const first = ranges[0]?.first ?? 0n;
  for (let i = 0; i < count; i++) book.take({ family: ranges[0]?.family ?? 4, value: first + BigInt(i * 10) });
  const cursor = new SequentialCursor(ranges, book);
  const start = performance.now();
  let allocated = 0;
  for (let i = 0; i < count; i++) if (cursor.take() !== undefined) allocated++;
  return { nsPerAllocation: ((performance.now() - start) * 1e6) / count, allocated };
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const int = (n: number): string => n.toLocaleString('en-US');

function mainRows(): string[][] {
  const rows: string[][] = [];
  for (const prefixLength of PREFIXES) {
    const subnet = `10.0.0.0/${prefixLength}`;
    const s = setup(subnet, Math.floor((2 ** (32 - prefixLength) - 1) / 10));
    const one = oneSync(s, prefixLength === 16 ? 3 : 5);
    const b = batched(s);
    rows.push([
      `/${prefixLength} (${int(s.size)})`,
      int(s.existingChildren.length),
      int(one.allocated),
      int(one.exhausted),
      fmt(one.ms, 0),
      fmt((one.ms * 1000) / CLAIMS, 2),
      fmt(one.statusKiB, 0),
      `${int(b.syncs)} × ${fmt(b.meanMs, 0)} (max ${fmt(b.maxMs, 0)})`,
      fmt(b.totalMs, 0),
    ]);
  }
  return rows;
}

/** Same work (200 existing allocations, 800 new claims) in pools of very different sizes. */
function flatness(): string[] {
  const subnets = ['10.0.0.0/22', '10.0.0.0/16', '10.0.0.0/8', '2001:db8::/64', '2001:db8::/32'];
  return subnets.map((subnet) => {
    const one = oneSync(setup(subnet, 200), 21, 800);
    return `${subnet} ${fmt((one.ms * 1000) / 800, 1)} µs`;
  });
}

/** Sync time as the population grows, 1,000 new claims each time: linear in n + k. */
function population(): string[] {
  return [1_000, 8_000, 32_000, 58_000].map((existing) => {
    const one = oneSync(setup('10.0.0.0/12', existing), 3, 1_000);
    return `n = ${int(existing)}: ${fmt(one.ms, 0)} ms`;
  });
}

function allocatorAlone(): string[] {
  return ['10.0.0.0/24', '10.0.0.0/16', '10.0.0.0/8', '2001:db8::/64'].map((subnet) => {
    const runs = Array.from({ length: 7 }, () => allocatorOnly(subnet, subnet.endsWith('/24') ? 200 : 10_000).nsPerAllocation);
    return `${subnet} ${fmt(best(runs), 0)} ns`;
  });
}

export function benchIpam(): Promise<BenchResult> {
  ippoolSync(poolRequest({ pool: pool('pool1', { namePrefix: 'w', pools: [{ subnet: '10.0.0.0/16' }] }), claims: newClaims(0, 5_000) })); // warm-up
  const rows = mainRows();
  return Promise.resolve({
    title: 'IPAM: IPPool sync, a /16 worth of claims (65,534) against pools with 10 % already allocated',
    header: [
      'pool (addresses)',
      'existing',
      'allocated',
      'exhausted',
      'one sync ms',
      'µs / claim',
      'status KiB',
      'batches of 4,096: syncs × mean ms',
      'batched total ms',
    ],
    rows,
    notes: [
      'One sync: all 65,534 claims are present when the pool syncs; it allocates every free address and reports the rest as exhausted. Best of 3–5 runs (shared machines); the request is built in memory (JSON parsing not included).',
      'Batched: claims arrive 4,096 at a time and each response is fed back as the next request (children and status), as Metacontroller does. Every sync re-reads all claims and children, so sync time follows the pool’s population (O(n + k)), never its size.',
      'A subnet-only /24 has 255 allocatable addresses (upstream skips only the network address): 25 existing + 230 new, then "Exhausted IP Pools" for the rest at constant cost each (listed by name up to 1,000, then counted).',
      `Per new allocation, same work (200 existing, 800 new) in pools of any size (best of 21): ${flatness().join('; ')} — flat, nothing walks the free part of a range.`,
      `Sync time with 1,000 new claims as the pool fills (/12, best of 3): ${population().join('; ')} — linear in the population.`,
      `Allocator alone (first-free cursor, every tenth address pre-used): ${allocatorAlone().join('; ')} per allocation.`,
      'status KiB: the pool status after the sync. `status.indexes` (upstream’s field) grows by ~30 bytes per allocation, so past ~45,000 allocations one pool’s status exceeds etcd’s 1.5 MiB object limit; upstream shares the limit. Split such pools.',
    ],
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchIpam();
  const lines = [`## ${result.title}`, '', `| ${result.header.join(' | ')} |`, `|${result.header.map(() => '---').join('|')}|`];
  lines.push(...result.rows.map((row) => `| ${row.join(' | ')} |`), '', ...result.notes.map((note) => `- ${note}`));
  process.stdout.write(`${lines.join('\n')}\n`);
}
