// Index allocation of a Metal3DataTemplate: lowest free index, stable forever.
// Table rows for planIndexes, and property tests (fast-check) that drive the real template hook
// through a small model of Metacontroller under random claim churn and cache lag.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planIndexes, type ClaimInfo, type DataInfo } from '../../domain/metal3data/indexes.js';
import { metal3datatemplateFinalize, metal3datatemplateSync } from '../../hooks/metal3data/template.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';

const claim = (name: string, extra: Partial<ClaimInfo> = {}): ClaimInfo => ({
  name,
  uid: `uid-${name}`,
  created: `t-${name}`,
  deleting: false,
  ready: true,
  ...extra,
});
const data = (index: number, claimName: string, extra: Partial<DataInfo> = {}): DataInfo => ({
  name: `tpl-${String(index)}`,
  index,
  claimName,
  claimUid: `uid-${claimName}`,
  created: `d-${String(index)}`,
  deleting: false,
  ...extra,
});
const pairs = (claims: ClaimInfo[], datas: DataInfo[], committed: { name: string; index: number }[] = [], lastUpdated = ''): [string, number][] =>
  planIndexes(claims, datas, { entries: committed, ...(lastUpdated !== '' && { lastUpdated }) }).assignments.map((a) => [a.claim, a.index]);

describe('planIndexes', () => {
  it.each<[string, ClaimInfo[], DataInfo[], { name: string; index: number }[], [string, number][]]>([
    ['nothing', [], [], [], []],
    [
      'new claims in creation order get 0, 1, 2',
      [claim('c', { created: 't1' }), claim('a', { created: 't3' }), claim('b', { created: 't2' })],
      [],
      [],
      [
        ['c', 0],
        ['b', 1],
        ['a', 2],
      ],
    ],
    [
      'same creation time: by name',
      [claim('b', { created: 't' }), claim('a', { created: 't' })],
      [],
      [],
      [
        ['a', 0],
        ['b', 1],
      ],
    ],
    [
      'existing data keeps its index',
      [claim('a'), claim('b')],
      [data(5, 'a')],
      [],
      [
        ['b', 0],
        ['a', 5],
      ],
    ],
    [
      'a gap is filled by the next claim',
      [claim('a'), claim('c'), claim('d')],
      [data(0, 'a'), data(2, 'c')],
      [],
      [
        ['a', 0],
        ['d', 1],
        ['c', 2],
      ],
    ],
    [
      'several gaps, lowest first',
      [claim('x'), claim('y'), claim('z')],
      [data(1, 'x'), data(3, 'y')],
      [],
      [
        ['z', 0],
        ['x', 1],
        ['y', 3],
      ],
    ],
    ['data of a deleted claim is released (its index stays taken while it exists)', [claim('b')], [data(0, 'a')], [], [['b', 1]]],
    ['data of a deleting claim is released', [claim('a', { deleting: true }), claim('b')], [data(0, 'a')], [], [['b', 1]]],
    ['a data being deleted still belongs to its live claim', [claim('a')], [data(0, 'a', { deleting: true })], [], [['a', 0]]],
    ['a claim that is not ready gets nothing', [claim('a', { ready: false })], [], [], []],
    ['an existing data is kept even if its claim is no longer ready', [claim('a', { ready: false })], [data(4, 'a')], [], [['a', 4]]],
    ['a recreated claim (new UID) does not inherit the old data', [claim('a', { uid: 'uid-new' })], [data(0, 'a')], [], [['a', 1]]],
    ['data without a recorded claim UID is matched by name', [claim('a')], [data(2, 'a', { claimUid: undefined })], [], [['a', 2]]],
    [
      'committed but not yet observed: the index is reserved',
      [claim('a'), claim('b'), claim('c')],
      [data(0, 'a')],
      [
        { name: 'a', index: 0 },
        { name: 'b', index: 1 },
      ],
      [
        ['a', 0],
        ['b', 1],
        ['c', 2],
      ],
    ],
    ['a committed entry of a gone claim is dropped', [claim('c')], [], [{ name: 'b', index: 0 }], [['c', 0]]],
    [
      'a committed entry that collides with observed data is ignored',
      [claim('a'), claim('b')],
      [data(0, 'a')],
      [{ name: 'b', index: 0 }],
      [
        ['a', 0],
        ['b', 1],
      ],
    ],
    [
      'two data for one claim (after cache lag): the committed one wins, the other is dropped',
      [claim('a')],
      [data(0, 'a', { created: 'd-late' }), data(1, 'a', { created: 'd-early' })],
      [{ name: 'a', index: 0 }],
      [['a', 0]],
    ],
    [
      'two data for one claim, none committed: the oldest wins',
      [claim('a')],
      [data(0, 'a', { created: 'd2' }), data(1, 'a', { created: 'd1' })],
      [],
      [['a', 1]],
    ],
    [
      'two data for one claim: one not being deleted wins',
      [claim('a')],
      [data(0, 'a', { deleting: true, created: 'd1' }), data(1, 'a', { created: 'd2' })],
      [],
      [['a', 1]],
    ],
  ])('%s', (...row) => {
    const [, claims, datas, committed, expected] = row;
    expect(pairs(claims, datas, committed)).toEqual(expected);
  });

  it('a committed entry applies only to a claim that existed when it was committed', () => {
    const committed = [{ name: 'a', index: 4 }];
    expect(pairs([claim('a', { created: '2026-11-29T10:00:05Z' })], [], committed, '2026-11-29T10:00:05Z')).toEqual([['a', 4]]);
    expect(pairs([claim('a', { created: '2026-11-29T10:00:06Z' })], [], committed, '2026-11-29T10:00:05Z')).toEqual([['a', 0]]);
  });
});

// --- A small Metacontroller around the template hook ----------------------------------------

const NS = 'ns1';
const TEMPLATE_UID = 'tpl-uid';

interface World {
  clock: number;
  claims: Map<string, KObject>;
  datas: Map<string, KObject>;
  status: Record<string, unknown>;
  /** Claim UID → the first Metal3Data created for it; it must live as long as the claim. */
  firstData: Map<string, string>;
}

function liveClaimUids(world: World): Set<string> {
  return new Set([...world.claims.values()].map((c) => c.metadata.uid ?? ''));
}

function stamp(world: World): string {
  world.clock += 1;
  return new Date(Date.UTC(2026, 10, 29, 10, 0, world.clock)).toISOString().replace('.000Z', 'Z');
}

function claimObject(world: World, name: string): KObject {
  const uid = `claim-${name}-${String(world.clock)}`;
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3DataClaim',
    metadata: {
      name,
      namespace: NS,
      uid,
      creationTimestamp: stamp(world),
      ownerReferences: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name, uid: `m3m-${uid}`, controller: true }],
    },
    spec: { template: { name: 'tpl' } },
    status: { ironhook: { metal3Machine: name, bareMetalHost: `host-${name}`, machine: `machine-${name}` } },
  };
}

function request(world: World, hidden: ReadonlySet<string>, deleting = false): unknown {
  const parent = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3DataTemplate',
    metadata: {
      name: 'tpl',
      namespace: NS,
      uid: TEMPLATE_UID,
      creationTimestamp: '2026-11-29T10:00:00Z',
      ...(deleting && { deletionTimestamp: '2026-11-29T12:00:00Z' }),
    },
    spec: { clusterName: 'c1', metaData: { indexes: [{ key: 'i' }] } },
    status: world.status,
  };
  const visible = [...world.datas.values()].filter((d) => !hidden.has(d.metadata.name ?? ''));
  const map = (objs: KObject[]): Record<string, KObject> => Object.fromEntries(objs.map((o) => [`${NS}/${o.metadata.name ?? ''}`, o]));
  return {
    controller: {},
    parent,
    children: { 'Metal3Data.infrastructure.cluster.x-k8s.io/v1beta2': map(visible) },
    related: { 'Metal3DataClaim.infrastructure.cluster.x-k8s.io/v1beta2': map([...world.claims.values()]) },
    finalizing: deleting,
  };
}

/**
 * Metacontroller's part: create what is new (an existing name is left alone, as AlreadyExists is),
 * delete what is not returned (of what it could see), write the status. A data created for a claim
 * must never be deleted while that claim lives.
 */
function create(world: World, child: KObject): void {
  const name = child.metadata.name ?? '';
  if (world.datas.has(name)) return;
  world.datas.set(name, {
    ...child,
    metadata: { ...child.metadata, namespace: NS, uid: `data-${name}-${String(world.clock)}`, creationTimestamp: stamp(world) },
  });
  const uid = claimUidOf(child) ?? '';
  if (!world.firstData.has(uid)) world.firstData.set(uid, name);
}

function apply(world: World, response: CompositeSyncResponse, hidden: ReadonlySet<string>): void {
  const returned = new Set(response.children.map((c) => c.metadata.name ?? ''));
  for (const child of response.children) create(world, child);
  const live = liveClaimUids(world);
  for (const [name, obj] of [...world.datas.entries()]) {
    if (returned.has(name) || hidden.has(name)) continue;
    const uid = claimUidOf(obj) ?? '';
    expect(live.has(uid) && world.firstData.get(uid) === name, `${name} of a live claim deleted`).toBe(false);
    world.datas.delete(name);
  }
  world.status = response.status;
}

function indexOf(obj: KObject): number {
  return (obj.spec as { index: number }).index;
}

function claimOf(obj: KObject): string {
  return (obj.spec as { claim: { name: string } }).claim.name;
}

function claimUidOf(obj: KObject): string | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.kind === 'Metal3DataClaim')?.uid;
}

/** Invariants of every answer: names follow the index, indexes are unique, one data per claim. */
function check(response: CompositeSyncResponse): void {
  const indexes = response.children.map(indexOf);
  expect(new Set(indexes).size, 'indexes are unique').toBe(indexes.length);
  for (const child of response.children) expect(child.metadata.name).toBe(`tpl-${String(indexOf(child))}`);
  const claims = response.children.map(claimOf);
  expect(new Set(claims).size, 'one data per claim').toBe(claims.length);
}

type Op = { kind: 'add'; name: string } | { kind: 'remove'; pick: number } | { kind: 'sync' } | { kind: 'laggySync'; hide: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h') }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant('sync' as const) }),
  fc.record({ kind: fc.constant('laggySync' as const), hide: fc.nat(3) }),
);

function newestData(world: World, count: number): Set<string> {
  const sorted = [...world.datas.values()].sort((a, b) => ((a.metadata.creationTimestamp ?? '') < (b.metadata.creationTimestamp ?? '') ? 1 : -1));
  return new Set(sorted.slice(0, count).map((d) => d.metadata.name ?? ''));
}

function sync(world: World, hidden: ReadonlySet<string>): CompositeSyncResponse {
  const response = metal3datatemplateSync(request(world, hidden));
  check(response);
  apply(world, response, hidden);
  return response;
}

function step(world: World, op: Op): void {
  if (op.kind === 'add' && !world.claims.has(op.name)) world.claims.set(op.name, claimObject(world, op.name));
  if (op.kind === 'remove' && world.claims.size > 0) {
    const name = [...world.claims.keys()].sort()[op.pick % world.claims.size] ?? '';
    world.claims.delete(name);
  }
  if (op.kind === 'sync') sync(world, new Set());
  if (op.kind === 'laggySync') sync(world, newestData(world, op.hide));
}

/** Quiescent: each live claim has exactly its first data, and status.indexes says so. */
function settled(world: World): void {
  const response = sync(world, new Set());
  const byUid = new Map([...world.datas.values()].map((d) => [claimUidOf(d) ?? '', d.metadata.name ?? '']));
  for (const claimObj of world.claims.values()) {
    const uid = claimObj.metadata.uid ?? '';
    expect(byUid.get(uid), `${claimObj.metadata.name ?? ''} has its first data`).toBe(world.firstData.get(uid));
  }
  expect(world.datas.size).toBe(world.claims.size);
  const entries = (world.status.indexes as { name: string; index: number }[]).map((e) => [e.name, e.index]);
  expect(entries.sort()).toEqual(response.children.map((c) => [claimOf(c), indexOf(c)]).sort());
}

describe('property: indexes under random claim churn (real template hook, modelled Metacontroller)', () => {
  it('are unique, a created data is never taken from its live claim, and every claim ends up with exactly its first data', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), (ops) => {
        const world: World = { clock: 0, claims: new Map(), datas: new Map(), status: {}, firstData: new Map() };
        for (const op of ops) step(world, op);
        sync(world, new Set());
        settled(world);
      }),
      { numRuns: 300 },
    );
  });

  it('without cache lag, a new claim always takes the lowest index not in use', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant<'add'>('add'), fc.nat(10)), { minLength: 1, maxLength: 40 }), (ops) => {
        const world: World = { clock: 0, claims: new Map(), datas: new Map(), status: {}, firstData: new Map() };
        let serial = 0;
        for (const op of ops) {
          if (op === 'add') {
            const used = new Set([...world.datas.values()].map(indexOf));
            let lowest = 0;
            while (used.has(lowest)) lowest++;
            const name = `claim-${String(serial++)}`;
            world.claims.set(name, claimObject(world, name));
            const response = sync(world, new Set());
            expect(indexOf(response.children.find((c) => claimOf(c) === name)!)).toBe(lowest);
          } else if (world.claims.size > 0) {
            step(world, { kind: 'remove', pick: op });
            sync(world, new Set());
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('deleting the template waits for claims and data, then finalizes', () => {
    const world: World = { clock: 0, claims: new Map(), datas: new Map(), status: {}, firstData: new Map() };
    for (const name of ['a', 'b']) world.claims.set(name, claimObject(world, name));
    sync(world, new Set());
    const blocked = metal3datatemplateFinalize(request(world, new Set(), true));
    expect(blocked.finalized).toBe(false);
    expect(blocked.children).toHaveLength(2);
    world.claims.clear();
    const dropping = metal3datatemplateFinalize(request(world, new Set(), true));
    expect(dropping).toMatchObject({ finalized: false, children: [] });
    apply(world, dropping, new Set());
    expect(metal3datatemplateFinalize(request(world, new Set(), true)).finalized).toBe(true);
  });
});
