// Property tests for the IPPool controller (issue 5): random pools, claims, deletions and re-syncs,
// each sync's output fed back as the next request's observed children and status. They must never
// produce a duplicate, an out-of-range or a moved address, and must always converge.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, formatAddress, parseAddress } from '../../domain/ipam/address.js';
import { buildRanges, findRange } from '../../domain/ipam/ranges.js';
import type { IPPoolRange, IPPoolSpec } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import { PoolWorld } from '../fixtures/ippool/world.js';

type Op =
  | { t: 'add'; capi: boolean; name: string; requested?: string }
  | { t: 'delete'; name: string; foreign: boolean }
  | { t: 'release'; name: string }
  | { t: 'sync' }
  | { t: 'stale' }
  | { t: 'claims' }
  | { t: 'tick' };

const NAMES = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'];
const FOREIGN = 'metal3data.infrastructure.cluster.x-k8s.io';

const v4 = (n: number): string => `10.0.0.${n}`;
const v6 = (n: number): string => `2001:db8::${n.toString(16)}`;

const v4Entry: fc.Arbitrary<IPPoolRange> = fc.oneof(
  fc.record({ s: fc.integer({ min: 0, max: 40 }), len: fc.integer({ min: 0, max: 6 }) }).map(({ s, len }) => ({ start: v4(s), end: v4(s + len) })),
  fc.integer({ min: 0, max: 7 }).map((k) => ({ subnet: `10.0.0.${k * 8}/29` })),
  fc
    .record({ k: fc.integer({ min: 0, max: 7 }), off: fc.integer({ min: 0, max: 7 }) })
    .map(({ k, off }) => ({ start: v4(k * 8 + off), subnet: `10.0.0.${k * 8}/29` })),
);

const v6Entry: fc.Arbitrary<IPPoolRange> = fc.oneof(
  fc.record({ s: fc.integer({ min: 0, max: 40 }), len: fc.integer({ min: 0, max: 6 }) }).map(({ s, len }) => ({ start: v6(s), end: v6(s + len) })),
  fc.integer({ min: 0, max: 7 }).map((k) => ({ subnet: `2001:db8::${(k * 8).toString(16)}/125` })),
);

const entry = fc
  .record({
    range: fc.oneof({ weight: 3, arbitrary: v4Entry }, { weight: 1, arbitrary: v6Entry }),
    prefix: fc.option(fc.integer({ min: 1, max: 32 }), { nil: undefined }),
  })
  .map(({ range, prefix }) => (prefix === undefined ? range : { ...range, prefix }));

const anyAddress = fc.oneof(fc.integer({ min: 0, max: 50 }).map(v4), fc.integer({ min: 0, max: 50 }).map(v6));

const poolSpec: fc.Arbitrary<IPPoolSpec> = fc
  .record({
    pools: fc.array(entry, { minLength: 1, maxLength: 3 }),
    pre: fc.dictionary(fc.constantFrom(...NAMES), anyAddress, { maxKeys: 3 }),
    strategy: fc.constantFrom<'sequential' | 'random'>('sequential', 'sequential', 'random'),
  })
  .map(({ pools, pre, strategy }) => ({
    namePrefix: 'pool1',
    pools,
    prefix: 24,
    allocationStrategy: strategy,
    ...(Object.keys(pre).length > 0 && { preAllocations: pre }),
  }));

function ops(withCapi: boolean, withStale: boolean, names: readonly string[] = NAMES): fc.Arbitrary<Op[]> {
  const name = fc.constantFrom(...names);
  const add = fc
    .record({
      t: fc.constant('add' as const),
      capi: withCapi ? fc.boolean() : fc.constant(false),
      name,
      requested: fc.option(anyAddress, { nil: undefined, freq: 4 }),
    })
    .map((op): Op => (op.requested === undefined ? { t: op.t, capi: op.capi, name: op.name } : op));
  const choices: Array<fc.WeightedArbitrary<Op>> = [
    { weight: 4, arbitrary: add },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), name, foreign: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('release' as const), name }) },
    { weight: 3, arbitrary: fc.constant({ t: 'sync' as const }) },
    { weight: 3, arbitrary: fc.constant({ t: 'claims' as const }) },
    { weight: 1, arbitrary: fc.constant({ t: 'tick' as const }) },
  ];
  if (withStale) choices.push({ weight: 3, arbitrary: fc.constant({ t: 'stale' as const }) });
  return fc.array(fc.oneof(...choices), { minLength: 5, maxLength: 40, size: 'max' });
}

/**
 * claim kind/name/uid → the address of its oldest object. Cache lag can briefly give a claim a
 * second object; the pool keeps the oldest one and claims report the oldest, so that is the
 * claim's address.
 */
function claimUids(world: PoolWorld): Map<string, string> {
  const uids = new Map<string, string>();
  for (const obj of world.claims.values()) uids.set(`IPClaim/${obj.metadata.name ?? ''}`, obj.metadata.uid ?? '');
  for (const obj of world.capiClaims.values()) uids.set(`IPAddressClaim/${obj.metadata.name ?? ''}`, obj.metadata.uid ?? '');
  return uids;
}

interface AddressSpec {
  address: string;
  claim?: { name: string };
  claimRef?: { name: string };
}

function claimOf(obj: KObject): string {
  const spec = obj.spec as AddressSpec;
  return spec.claim === undefined ? `IPAddressClaim/${spec.claimRef?.name ?? ''}` : `IPClaim/${spec.claim.name}`;
}

function holdings(world: PoolWorld): Map<string, string> {
  const uids = claimUids(world);
  const order = (o: KObject): string => `${o.metadata.creationTimestamp ?? ''} ${o.apiVersion} ${o.metadata.name ?? ''}`;
  const out = new Map<string, string>();
  for (const obj of [...world.objects.values()].sort((a, b) => (order(a) < order(b) ? -1 : 1))) {
    const key = claimOf(obj);
    const full = `${key}/${uids.get(key) ?? 'gone'}`;
    const address = (obj.spec as AddressSpec).address;
    if (!out.has(full)) out.set(full, canonicalAddress(address) ?? address);
  }
  return out;
}

function assertUnique(world: PoolWorld): void {
  const seen = new Map<string, string>();
  for (const obj of world.objects.values()) {
    const address = canonicalAddress((obj.spec as { address: string }).address) ?? '';
    const owner = `${obj.apiVersion}/${obj.metadata.name ?? ''}`;
    expect(seen.get(address), `address ${address} held by ${seen.get(address) ?? ''} and ${owner}`).toBeUndefined();
    seen.set(address, owner);
  }
}

function assertInRange(world: PoolWorld, created: readonly KObject[]): void {
  const { ranges } = buildRanges(world.pool.spec as IPPoolSpec);
  for (const obj of created) {
    const address = parseAddress((obj.spec as { address: string }).address);
    expect(address && findRange(ranges, address), `new address ${JSON.stringify(obj.spec)} outside the pool`).toBeDefined();
  }
}

function releasableClaims(world: PoolWorld): Set<string> {
  const releasable = new Set<string>();
  for (const obj of world.claims.values()) {
    const onlyOurs = (obj.metadata.finalizers ?? []).every((f) => f !== FOREIGN);
    if (obj.metadata.deletionTimestamp !== undefined && onlyOurs) releasable.add(`IPClaim/${obj.metadata.name ?? ''}/${obj.metadata.uid ?? ''}`);
  }
  return releasable;
}

/** A claim that keeps existing (same uid) and is not being released keeps its address. */
function assertStable(world: PoolWorld, before: Map<string, string>): void {
  const after = holdings(world);
  const releasable = releasableClaims(world);
  for (const [key, address] of before) {
    if (key.endsWith('/gone') || releasable.has(key) || !liveKey(world, key)) continue;
    expect(after.get(key), `${key} moved`).toBe(address);
  }
}

function liveKey(world: PoolWorld, key: string): boolean {
  const [kind, name, uid] = key.split('/');
  const obj = kind === 'IPClaim' ? world.claims.get(name ?? '') : world.capiClaims.get(name ?? '');
  return obj !== undefined && obj.metadata.uid === uid;
}

type View = { children: KObject[]; status: unknown };

function addClaim(world: PoolWorld, op: Extract<Op, { t: 'add' }>): void {
  if (world.claims.has(op.name) || world.capiClaims.has(op.name)) return;
  const options = op.requested === undefined ? {} : { requested: op.requested };
  if (op.capi) world.addCapiClaim(op.name, options);
  else world.addClaim(op.name, options);
}

/** Everything that is not a pool sync: changes to claims, the claim controller, time. */
function mutate(world: PoolWorld, op: Exclude<Op, { t: 'sync' | 'stale' }>): void {
  switch (op.t) {
    case 'add':
      addClaim(world, op);
      break;
    case 'delete':
      world.deleteClaim(op.name, op.foreign ? [FOREIGN] : []);
      break;
    case 'release':
      world.dropForeignFinalizers(op.name);
      break;
    case 'claims':
      world.syncClaims();
      break;
    case 'tick':
      world.tick();
  }
}

function applyOp(world: PoolWorld, op: Op, previous: View): { created: KObject[] } | undefined {
  if (op.t === 'sync') return world.syncPool().report;
  if (op.t === 'stale') return world.syncPool(previous).report;
  mutate(world, op);
  return undefined;
}

/** Rounds of pool sync + claim sync until the pool's answer stops changing; returns the rounds used. */
function converge(world: PoolWorld): number {
  let last = '';
  for (let round = 1; round <= 6; round++) {
    const { response, report } = world.syncPool();
    assertUnique(world);
    assertInRange(world, report.created);
    world.syncClaims();
    const text = JSON.stringify(response);
    if (text === last) return round;
    last = text;
  }
  return Infinity;
}

/** After convergence: claims report what the objects say, and "Exhausted" is never a lie. */
function assertSettled(world: PoolWorld): void {
  const objects = world.children();
  const status = world.pool.status as { indexes?: Record<string, string>; ironhook: { claimErrors?: Record<string, string> } };
  for (const obj of world.claims.values()) {
    const name = obj.metadata.name ?? '';
    const reported = (obj.status as { address?: { name: string } } | undefined)?.address?.name;
    const mine = objects.find((o) => (o.spec as { claim?: { name: string } }).claim?.name === name);
    expect(reported, `claim ${name} status`).toBe(mine?.metadata.name);
    if (mine !== undefined) expect(status.indexes?.[name]).toBe(canonicalAddress((mine.spec as { address: string }).address));
  }
  assertReleased(world);
  const exhausted = Object.values(status.ironhook.claimErrors ?? {}).includes('Exhausted IP Pools');
  if (exhausted) expect(freeAddresses(world)).toEqual([]);
}

/** Settled: every object belongs to a claim that still needs it, and released claims are gone. */
function assertReleased(world: PoolWorld): void {
  const needs = (obj: KObject | undefined): boolean =>
    obj !== undefined && (obj.metadata.deletionTimestamp === undefined || (obj.metadata.finalizers ?? []).includes(FOREIGN));
  for (const obj of world.objects.values()) {
    const spec = obj.spec as { claim?: { name: string }; claimRef?: { name: string } };
    const owner = spec.claim === undefined ? world.capiClaims.get(spec.claimRef?.name ?? '') : world.claims.get(spec.claim.name);
    expect(needs(owner), `${obj.metadata.name ?? ''} still exists for a claim that let go`).toBe(true);
  }
  for (const obj of world.claims.values()) expect(needs(obj), `claim ${obj.metadata.name ?? ''} never finalized`).toBe(true);
}

function freeAddresses(world: PoolWorld): string[] {
  const spec = world.pool.spec as IPPoolSpec;
  const taken = new Set([...world.objects.values()].map((o) => canonicalAddress((o.spec as { address: string }).address)));
  for (const address of Object.values(spec.preAllocations ?? {})) taken.add(canonicalAddress(address));
  const free: string[] = [];
  for (const range of buildRanges(spec).ranges) {
    for (let value = range.first; value <= range.last; value++) {
      const text = formatAddress({ family: range.family, value });
      if (!taken.has(text)) free.push(text);
    }
  }
  return free;
}

/**
 * What consumers see: once a claim reports an IPAddress, it keeps reporting that one while it lives,
 * and the object it reports is never deleted under it.
 */
function reportedName(obj: KObject): string | undefined {
  return (obj.status as { address?: { name: string } } | undefined)?.address?.name;
}

function assertReportsStable(world: PoolWorld, reported: Map<string, string>): void {
  for (const obj of world.claims.values()) {
    const name = reportedName(obj);
    if (name === undefined || obj.metadata.deletionTimestamp !== undefined) continue;
    const uid = obj.metadata.uid ?? '';
    expect(reported.get(uid) ?? name, `claim ${obj.metadata.name ?? ''} changed its address`).toBe(name);
    const object = world.objects.get(`ipam.metal3.io/v1alpha1|${name}`);
    expect(object && claimOf(object), `${name}, reported by ${obj.metadata.name ?? ''}, is gone`).toBe(`IPClaim/${obj.metadata.name ?? ''}`);
    reported.set(uid, name);
  }
}

function runScenario(spec: IPPoolSpec, script: readonly Op[], capi: boolean, lag = false): void {
  const world = new PoolWorld(spec, capi ? 'v1beta2' : undefined);
  let previous = { children: world.children(), status: world.pool.status };
  const reported = new Map<string, string>();
  for (const op of script) {
    const before = holdings(world);
    const snapshot = { children: world.children(), status: world.pool.status };
    const report = applyOp(world, op, previous);
    assertReportsStable(world, reported);
    if (report === undefined) continue;
    previous = snapshot;
    assertUnique(world);
    assertInRange(world, report.created);
    // Under lag a claim that reported nothing yet may end up with another object of the same second.
    if (!lag) assertStable(world, before);
  }
  const before = holdings(world);
  expect(converge(world)).toBeLessThanOrEqual(4);
  assertReportsStable(world, reported);
  if (!lag) assertStable(world, before);
  assertSettled(world);
  const fixed = JSON.stringify(world.syncPool().response);
  expect(JSON.stringify(world.syncPool().response)).toBe(fixed);
}

describe('IPPool allocation properties', () => {
  it('metal3 and Cluster API claims: no duplicate, out-of-range or moved address; converges to a fixed point', () => {
    fc.assert(
      fc.property(poolSpec, ops(true, false), (spec, script) => {
        runScenario(spec, script, true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it('with Metacontroller cache lag (stale children and status): no duplicate, and no claim sees its address move', () => {
    fc.assert(
      fc.property(poolSpec, ops(false, true), (spec, script) => {
        runScenario(spec, script, false, true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});

const tinyPool: fc.Arbitrary<IPPoolSpec> = fc.integer({ min: 1, max: 4 }).map((len) => ({ namePrefix: 'pool1', pools: [{ start: v4(1), end: v4(len) }] }));

describe('churn on a pool smaller than its claims', () => {
  it('released addresses go to waiting claims only once their objects are gone', () => {
    fc.assert(
      fc.property(tinyPool, ops(true, false, NAMES.slice(0, 6)), (spec, script) => {
        runScenario(spec, script, true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe('cache lag, step by step', () => {
  function laggedWorld(): { world: PoolWorld; stale: { children: KObject[]; status: unknown } } {
    const world = new PoolWorld({ namePrefix: 'pool1', pools: [{ start: '10.0.0.1', end: '10.0.0.9' }] });
    world.addClaim('c5');
    const stale = { children: world.children(), status: world.pool.status };
    world.syncPool();
    return { world, stale };
  }

  it('a stale sync keeps the address a claim reports, from the claim itself', () => {
    const { world, stale } = laggedWorld();
    world.syncClaims();
    expect(world.claims.get('c5')?.status).toEqual({ address: { name: 'pool1-10-0-0-1', namespace: 'default' } });
    // A claim created in the same second with a smaller name sorts first, and the stale view has
    // neither the child nor the status of the first sync: only c5's own report remembers .1.
    world.addClaim('c1');
    world.syncPool(stale);
    world.syncClaims();
    expect(Object.fromEntries(world.holdings())).toEqual({ 'IPClaim/c1': '10.0.0.2', 'IPClaim/c5': '10.0.0.1' });
    expect(world.claims.get('c5')?.status).toEqual({ address: { name: 'pool1-10-0-0-1', namespace: 'default' } });
  });

  it('when the claim report is lost too, the reported object still wins over the stale duplicate', () => {
    const { world, stale } = laggedWorld();
    world.syncClaims();
    world.addClaim('c1');
    const c5 = world.claims.get('c5');
    const report = c5?.status;
    if (c5 !== undefined) c5.status = {};
    world.syncPool(stale);
    if (c5 !== undefined) c5.status = report;
    expect(
      world
        .children()
        .map((c) => c.metadata.name)
        .sort(),
    ).toEqual(['pool1-10-0-0-1', 'pool1-10-0-0-2']);
    world.syncClaims();
    world.syncPool();
    world.syncPool();
    world.syncClaims();
    expect(Object.fromEntries(world.holdings())).toEqual({ 'IPClaim/c1': '10.0.0.3', 'IPClaim/c5': '10.0.0.1' });
    expect(world.claims.get('c5')?.status).toEqual({ address: { name: 'pool1-10-0-0-1', namespace: 'default' } });
  });

  it('before the claim reports anything, the pool and the claim agree on the last committed one', () => {
    const { world, stale } = laggedWorld();
    world.addClaim('c1');
    world.syncPool(stale);
    world.syncClaims();
    expect(world.claims.get('c5')?.status).toEqual({ address: { name: 'pool1-10-0-0-2', namespace: 'default' } });
    world.syncPool();
    world.syncPool();
    world.syncClaims();
    expect(Object.fromEntries(world.holdings())).toEqual({ 'IPClaim/c1': '10.0.0.3', 'IPClaim/c5': '10.0.0.2' });
    expect(world.claims.get('c5')?.status).toEqual({ address: { name: 'pool1-10-0-0-2', namespace: 'default' } });
  });
});
