// The IPPool hooks, row by row: allocation semantics, memory,
// release, conflicts, deletion and the Cluster API claims.
import { describe, expect, it } from 'vitest';
import { ippoolCustomize, ippoolFinalize, ippoolSync } from '../../hooks/ipam/ippool.js';
import type { IPPoolSpec } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import {
  asObservedChild,
  at,
  capiClaim,
  claim,
  cluster,
  ipAddressChild,
  pool,
  poolController,
  poolRequest,
  type PoolRequestInput,
} from '../../devenv/builders/ippool.js';

const SMALL: IPPoolSpec = { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }], prefix: 24, gateway: '10.0.0.254' };

function run(input: PoolRequestInput): CompositeSyncResponse {
  const request = poolRequest(input);
  return input.finalizing === true ? ippoolFinalize(request) : ippoolSync(request);
}

/** claim name → address, from the returned children (both groups). */
function addresses(response: CompositeSyncResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const child of response.children) {
    const spec = child.spec as { address: string; claim?: { name: string }; claimRef?: { name: string } };
    out[spec.claim?.name ?? spec.claimRef?.name ?? '?'] = spec.address;
  }
  return out;
}

function ironhook(response: CompositeSyncResponse): Record<string, unknown> {
  return response.status.ironhook as Record<string, unknown>;
}

describe('allocation', () => {
  const p = (spec: IPPoolSpec = SMALL): KObject => pool('pool1', spec);
  const rows: Array<{ name: string; spec?: IPPoolSpec; claims: KObject[]; want: Record<string, string>; errors?: Record<string, string> }> = [
    {
      name: 'first free address, claims ordered by creation time then name',
      claims: [claim('b', { created: at(1) }), claim('c', { created: at(1) }), claim('a', { created: at(2) })],
      want: { a: '10.0.0.3', b: '10.0.0.1', c: '10.0.0.2' },
    },
    {
      name: "a claim naming another namespace's pool gets no address from this pool (upstream would serve it)",
      claims: [claim('a', { created: at(0), poolNamespace: 'kube-system' }), claim('b', { created: at(1) })],
      want: { b: '10.0.0.1' },
    },
    {
      name: 'pre-allocation by claim name, reserved even before the claim exists',
      spec: { ...SMALL, preAllocations: { b: '10.0.0.1', ghost: '10.0.0.2' } },
      claims: [claim('a'), claim('b')],
      want: { a: '10.0.0.3', b: '10.0.0.1' },
    },
    {
      name: 'requested address through the ipAddress annotation',
      claims: [claim('a'), claim('b', { requested: '10.0.0.1' })],
      want: { a: '10.0.0.2', b: '10.0.0.1' },
    },
    {
      name: 'requested address equal to the pre-allocation (IP equality, not text)',
      spec: { namePrefix: 'p', pools: [{ start: '2001:db8::1', end: '2001:db8::3' }], preAllocations: { a: '2001:DB8:0::2' } },
      claims: [claim('a', { requested: '2001:db8::2' })],
      want: { a: '2001:db8::2' },
    },
    {
      name: 'requested and pre-allocated addresses conflict',
      spec: { ...SMALL, preAllocations: { a: '10.0.0.1' } },
      claims: [claim('a', { requested: '10.0.0.2' })],
      want: {},
      errors: { a: 'PreAllocation and requested ip address are conflicting' },
    },
    {
      name: 'unparsable requested address next to a pre-allocation: a conflict, as upstream compares the two first',
      spec: { ...SMALL, preAllocations: { a: '10.0.0.1' } },
      claims: [claim('a', { requested: 'ten' })],
      want: {},
      errors: { a: 'PreAllocation and requested ip address are conflicting' },
    },
    {
      name: 'requested address written as IPv4-mapped IPv6 is that IPv4 address (Go parses it so)',
      claims: [claim('a', { requested: '::ffff:10.0.0.2' }), claim('b', { requested: '::ffff:a00:3' })],
      want: { a: '10.0.0.2', b: '10.0.0.3' },
    },
    {
      name: 'requested address outside the pool',
      claims: [claim('a', { requested: '10.9.9.9' })],
      want: {},
      errors: { a: 'Requested IP not available' },
    },
    {
      name: "requested address that is someone else's pre-allocation",
      spec: { ...SMALL, preAllocations: { other: '10.0.0.1' } },
      claims: [claim('a', { requested: '10.0.0.1' })],
      want: {},
      errors: { a: 'Requested IP not available' },
    },
    {
      name: 'unparsable requested address',
      claims: [claim('a', { requested: 'ten' })],
      want: {},
      errors: { a: 'Requested IP address is not a valid IP address' },
    },
    {
      name: 'pre-allocation outside the pools',
      spec: { ...SMALL, preAllocations: { a: '10.1.0.1' } },
      claims: [claim('a')],
      want: {},
      errors: { a: 'Pre-allocated IP out of bond' },
    },
    {
      name: 'exhaustion, in allocation order',
      claims: ['a', 'b', 'c', 'd', 'e'].map((n) => claim(n)),
      want: { a: '10.0.0.1', b: '10.0.0.2', c: '10.0.0.3' },
      errors: { d: 'Exhausted IP Pools', e: 'Exhausted IP Pools' },
    },
    {
      name: 'ranges consumed in spec order; per-range prefix and gateway',
      spec: { namePrefix: 'p', pools: [{ start: '10.0.1.1', end: '10.0.1.1', prefix: 30, gateway: '10.0.1.2' }, { subnet: '10.0.0.0/30' }], prefix: 24 },
      claims: [claim('a'), claim('b'), claim('c')],
      want: { a: '10.0.1.1', b: '10.0.0.1', c: '10.0.0.2' },
    },
    {
      name: 'claims of other pools are ignored',
      claims: [claim('a', { pool: 'other' }), claim('b')],
      want: { b: '10.0.0.1' },
    },
    {
      name: 'a deleting claim gets nothing new',
      claims: [claim('a', { deletionTimestamp: at(5), finalizers: ['x'] }), claim('b')],
      want: { b: '10.0.0.1' },
    },
  ];
  it.each(rows)('$name', ({ spec, claims, want, errors }) => {
    const response = run({ pool: p(spec), claims });
    expect(addresses(response)).toEqual(want);
    expect(ironhook(response).claimErrors).toEqual(errors);
  });

  it('builds the IPAddress upstream builds (name, spec, labels minus controller-uid, claim owner)', () => {
    const response = run({ pool: p(), claims: [claim('a', { labels: { 'controller-uid': 'm3d', role: 'x' } })] });
    expect(response.children).toEqual([
      {
        apiVersion: 'ipam.metal3.io/v1alpha1',
        kind: 'IPAddress',
        metadata: {
          labels: { 'ironhook.dev/ipclaim': 'a', role: 'x' },
          name: 'p-10-0-0-1',
          ownerReferences: [{ apiVersion: 'ipam.metal3.io/v1alpha1', kind: 'IPClaim', name: 'a', uid: 'uid-claim-a' }],
        },
        spec: {
          address: '10.0.0.1',
          claim: { name: 'a', namespace: 'default' },
          gateway: '10.0.0.254',
          pool: { name: 'pool1', namespace: 'default' },
          prefix: 24,
        },
      },
    ]);
  });

  it('reports counts, indexes and lastUpdated from observed timestamps only', () => {
    const response = run({ pool: p(), claims: [claim('a', { created: at(7) })] });
    expect(response.status).toMatchObject({
      availableIPCount: 2,
      capacity: 3,
      capacityCapped: false,
      indexes: { a: '10.0.0.1' },
      ironhook: { allocatedIPCount: 1 },
      lastUpdated: at(7),
    });
  });

  it('caps capacity that JSON cannot carry exactly', () => {
    const response = run({ pool: pool('pool1', { namePrefix: 'p', pools: [{ subnet: '2001:db8::/64' }] }), claims: [] });
    expect(response.status).toMatchObject({ capacity: Number.MAX_SAFE_INTEGER, capacityCapped: true });
    expect(response.status.availableIPCount).toBeUndefined();
  });

  it('is byte-identical for identical input', () => {
    const input = { pool: p(), claims: ['c', 'a', 'b'].map((n) => claim(n)) };
    expect(JSON.stringify(run(input))).toBe(JSON.stringify(run(input)));
  });
});

describe('memory: existing allocations never move', () => {
  const p = pool('pool1', SMALL);
  const child = (name: string, address: string, created = at(1)): KObject =>
    ipAddressChild(
      p,
      `p-${address.replaceAll('.', '-')}`,
      { address, claim: { name, namespace: 'default' }, pool: { name: 'pool1', namespace: 'default' }, prefix: 16 },
      created,
    );

  it('keeps an observed child exactly as it is, even when the pool would compute another spec', () => {
    const response = run({ pool: p, claims: [claim('a'), claim('z', { created: at(0) })], children: [child('a', '10.0.0.3')] });
    expect(addresses(response)).toEqual({ a: '10.0.0.3', z: '10.0.0.1' });
    expect(response.children.find((c) => c.metadata.name === 'p-10-0-0-3')?.spec).toMatchObject({ prefix: 16 });
  });

  it('restores an allocation from status.indexes when the child is missing (cache lag)', () => {
    const withStatus = pool('pool1', SMALL, { status: { indexes: { a: '10.0.0.2' } } });
    expect(addresses(run({ pool: withStatus, claims: [claim('b'), claim('a')] }))).toEqual({ a: '10.0.0.2', b: '10.0.0.1' });
  });

  it("restores an allocation from the claim's own status when pool status and child are gone", () => {
    const a = claim('a', { status: { address: { name: 'p-10-0-0-3', namespace: 'default' } } });
    expect(addresses(run({ pool: p, claims: [claim('b'), a] }))).toEqual({ a: '10.0.0.3', b: '10.0.0.1' });
  });

  it('keeps an allocation that spec.pools no longer covers, and says so', () => {
    const response = run({ pool: p, claims: [claim('a')], children: [child('a', '10.0.9.9')] });
    expect(addresses(response)).toEqual({ a: '10.0.9.9' });
    expect(ironhook(response).errors).toEqual(['1 allocated address(es) are outside spec.pools and are kept: 10.0.9.9 (a)']);
  });

  it('resolves two children with one address (should never exist) in favour of the older object', () => {
    const older = child('a', '10.0.0.1', at(1));
    const newer = { ...child('b', '10.0.0.1', at(2)), metadata: { ...child('b', '10.0.0.1', at(2)).metadata, name: 'p-other' } };
    const response = run({ pool: p, claims: [claim('a'), claim('b')], children: [newer, older] });
    expect(addresses(response)).toEqual({ a: '10.0.0.1', b: '10.0.0.2' });
  });

  it("keeps the address a claim naming another namespace's pool already holds (given before this rule), allocating nothing new", () => {
    const foreign = claim('a', { poolNamespace: 'kube-system' });
    expect(addresses(run({ pool: p, claims: [foreign, claim('b')], children: [child('a', '10.0.0.3')] }))).toEqual({ a: '10.0.0.3', b: '10.0.0.1' });
  });

  it('does not reuse a released address while its object still exists', () => {
    const response = run({ pool: p, claims: [claim('b')], children: [child('gone', '10.0.0.1')] });
    expect(addresses(response)).toEqual({ b: '10.0.0.2' });
    expect(response.status).toMatchObject({ availableIPCount: 2 });
  });
});

describe('release', () => {
  const p = pool('pool1', SMALL);
  const child = ipAddressChild(p, 'p-10-0-0-1', {
    address: '10.0.0.1',
    claim: { name: 'a', namespace: 'default' },
    pool: { name: 'pool1', namespace: 'default' },
  });
  // prettier-ignore
  const rows: Array<[string, KObject[], boolean]> = [
    ['claim gone', [], false],
    ['claim deleting with only IPAM finalizers', [claim('a', { deletionTimestamp: at(3), finalizers: ['metacontroller.io/compositecontroller-ironhook-ipclaim', 'ipclaim.ipam.metal3.io'] })], false],
    ['claim deleting while CAPM3 still holds it', [claim('a', { deletionTimestamp: at(3), finalizers: ['metal3data.infrastructure.cluster.x-k8s.io'] })], true],
    ['claim alive', [claim('a')], true],
    ["claim naming another namespace's pool, alive", [claim('a', { poolNamespace: 'kube-system' })], true],
    ["claim naming another namespace's pool, deleting with only IPAM finalizers", [claim('a', { poolNamespace: 'kube-system', deletionTimestamp: at(3), finalizers: ['ipclaim.ipam.metal3.io'] })], false],
  ];
  it.each(rows)('%s', (_name, claims, kept) => {
    expect(run({ pool: p, claims, children: [child] }).children.length).toBe(kept ? 1 : 0);
  });
});

describe('pools sharing a namePrefix', () => {
  const mine = pool('pool1', SMALL, { created: at(10) });
  const older = pool('pool0', { namePrefix: 'p', pools: [{ start: '10.0.0.3', end: '10.0.0.9' }] }, { created: at(1), status: { indexes: { x: '10.0.0.1' } } });
  const disjoint = pool(
    'pool2',
    { namePrefix: 'p', pools: [{ start: '10.9.0.1', end: '10.9.0.9' }] },
    { created: at(1), status: { indexes: { y: '10.0.0.2' } } },
  );

  it('the younger overlapping pool allocates nothing new and says why', () => {
    const response = run({ pool: mine, pools: [older], claims: [claim('a')] });
    expect(response.children).toEqual([]);
    expect(ironhook(response).claimErrors).toEqual({ a: 'IPPool pool1 overlaps IPPool pool0 with the same namePrefix; no new addresses until that is fixed' });
    expect(response.status.conditions).toMatchObject([{ status: 'False', reason: 'NamePrefixConflict' }]);
  });

  it('the older one keeps allocating, around the names the other one holds', () => {
    const young = pool(
      'pool9',
      { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] },
      { created: at(20), status: { indexes: { z: '10.0.0.1' } } },
    );
    const response = run({ pool: mine, pools: [young], claims: [claim('a')] });
    expect(addresses(response)).toEqual({ a: '10.0.0.2' });
    expect(ironhook(response).errors).toEqual(['IPPool pool9 has the same namePrefix "p" and overlapping pools']);
  });

  it('a disjoint pool with the same prefix only reserves its names', () => {
    const response = run({ pool: mine, pools: [disjoint], claims: [claim('a')] });
    expect(addresses(response)).toEqual({ a: '10.0.0.1' });
    expect(ironhook(response).errors).toBeUndefined();
  });
});

describe('deletion (finalize)', () => {
  const deleting = pool('pool1', SMALL, { deletionTimestamp: at(9) });
  const child = ipAddressChild(deleting, 'p-10-0-0-1', {
    address: '10.0.0.1',
    claim: { name: 'a', namespace: 'default' },
    pool: { name: 'pool1', namespace: 'default' },
  });

  it('is blocked while an address is in use, and explains it', () => {
    const response = run({ pool: deleting, claims: [claim('a'), claim('b')], children: [child], finalizing: true });
    expect(response.finalized).toBe(false);
    expect(addresses(response)).toEqual({ a: '10.0.0.1' });
    expect(ironhook(response).errors).toEqual(['deletion blocked: 1 address(es) still in use by IPClaim a']);
    expect(ironhook(response).claimErrors).toEqual({ b: 'IPPool pool1 is being deleted' });
  });

  it('releases the last address, then finishes once its object is gone (not left to the garbage collector)', () => {
    const releasing = run({ pool: deleting, claims: [], children: [child], finalizing: true });
    expect(releasing).toMatchObject({ children: [], finalized: false });
    expect(ironhook(releasing).errors).toEqual(['deletion waits for 1 released IPAddress(es) to be deleted']);
    const done = run({ pool: deleting, claims: [], children: [], finalizing: true });
    expect(done).toMatchObject({ children: [], finalized: true });
    expect(ironhook(done).errors).toBeUndefined();
  });
});

describe('Cluster API IPAddressClaims', () => {
  const p = pool('pool1', SMALL);

  it('get an IPAddress named after the claim, owned (non-controller) by it', () => {
    const response = run({ pool: p, capi: 'v1beta2', capiClaims: [capiClaim('m1')] });
    expect(response.children).toEqual([
      {
        apiVersion: 'ipam.cluster.x-k8s.io/v1beta2',
        kind: 'IPAddress',
        metadata: {
          labels: { 'ironhook.dev/ipclaim': 'm1' },
          name: 'm1',
          ownerReferences: [{ apiVersion: 'ipam.cluster.x-k8s.io/v1beta2', blockOwnerDeletion: true, kind: 'IPAddressClaim', name: 'm1', uid: 'uid-claim-m1' }],
        },
        spec: {
          address: '10.0.0.1',
          claimRef: { name: 'm1' },
          gateway: '10.0.0.254',
          poolRef: { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'pool1' },
          prefix: 24,
        },
      },
    ]);
  });

  it('share the address space and the pre-allocations with IPClaims', () => {
    const spec = { ...SMALL, preAllocations: { m1: '10.0.0.3' } };
    const response = run({
      pool: pool('pool1', spec),
      capi: 'v1beta1',
      claims: [claim('a')],
      capiClaims: [capiClaim('m1', { version: 'v1beta1' }), capiClaim('m2', { version: 'v1beta1' })],
    });
    expect(addresses(response)).toEqual({ a: '10.0.0.1', m1: '10.0.0.3', m2: '10.0.0.2' });
    expect(response.status.indexes).toEqual({ a: '10.0.0.1', m1: '10.0.0.3', m2: '10.0.0.2' });
  });

  const rows: Array<[string, KObject, KObject[], number]> = [
    ['another provider’s pool kind is not ours', capiClaim('m', { poolKind: 'InClusterIPPool' }), [], 0],
    ['another group is not ours', capiClaim('m', { poolGroup: 'ipam.cluster.x-k8s.io' }), [], 0],
    ['paused Cluster: left alone', capiClaim('m', { clusterName: 'c1' }), [cluster('c1', true)], 0],
    ['missing Cluster: left alone', capiClaim('m', { clusterName: 'c1' }), [], 0],
    ['running Cluster', capiClaim('m', { clusterName: 'c1' }), [cluster('c1')], 1],
    ['Cluster from the deprecated label', capiClaim('m', { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } }), [cluster('c1', true)], 0],
  ];
  it.each(rows)('%s', (_name, capiObj, clusters, count) => {
    expect(run({ pool: p, capi: 'v1beta2', capiClaims: [capiObj], clusters }).children.length).toBe(count);
  });

  it('refuses a claim that shares its name with an IPClaim of the pool', () => {
    const response = run({ pool: p, capi: 'v1beta2', claims: [claim('a')], capiClaims: [capiClaim('a')] });
    expect(addresses(response)).toEqual({ a: '10.0.0.1' });
    expect(ironhook(response).addressClaimErrors).toEqual({ a: 'An IPClaim with the same name already uses this pool' });
  });

  it('keep the address they hold against an IPClaim with the same name (even an older one); the IPClaim is refused', () => {
    const held = ipAddressChild(p, 'a', {
      address: '10.0.0.1',
      claimRef: { name: 'a' },
      poolRef: { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'pool1' },
    });
    const capiHeld = { ...held, apiVersion: 'ipam.cluster.x-k8s.io/v1beta2' };
    const response = run({ pool: p, capi: 'v1beta2', claims: [claim('a', { created: at(-5) })], capiClaims: [capiClaim('a')], children: [capiHeld] });
    expect(addresses(response)).toEqual({ a: '10.0.0.1' });
    expect(response.children.map((child) => child.apiVersion)).toEqual(['ipam.cluster.x-k8s.io/v1beta2']);
    expect(ironhook(response).claimErrors).toEqual({ a: 'An IPAddressClaim with the same name already uses this pool' });
  });

  it('are ignored when the controller does not serve Cluster API', () => {
    const request = poolRequest({ pool: p, capi: 'v1beta2', capiClaims: [capiClaim('m1')] });
    expect(ippoolSync({ ...request, controller: poolController() }).children).toEqual([]);
  });
});

describe('pool Cluster gate', () => {
  const p = pool('pool1', { ...SMALL, clusterName: 'c1' }, { status: { indexes: { a: '10.0.0.1' }, lastUpdated: at(2) } });
  const child = asObservedChild(
    {
      apiVersion: 'ipam.metal3.io/v1alpha1',
      kind: 'IPAddress',
      metadata: { name: 'p-10-0-0-1', labels: { x: 'y' } },
      spec: { address: '10.0.0.1', claim: { name: 'a' } },
    },
    p,
    at(1),
  );

  it('a paused Cluster freezes the pool: children kept as they are, nothing allocated or released', () => {
    const response = run({ pool: p, capi: 'v1beta2', clusters: [cluster('c1', true)], claims: [claim('b')], children: [child] });
    expect(response.children.map((c) => c.metadata.name)).toEqual(['p-10-0-0-1']);
    expect(response.children[0]?.metadata).toEqual({ labels: { x: 'y' }, name: 'p-10-0-0-1' });
    expect(response.status).toMatchObject({ indexes: { a: '10.0.0.1' }, conditions: [{ reason: 'Paused', status: 'False' }] });
  });

  it('waits for a missing Cluster', () => {
    const response = run({ pool: p, capi: 'v1beta2', clusters: [], claims: [claim('b')] });
    expect(response.status).toMatchObject({ conditions: [{ reason: 'WaitingForCluster', message: 'waiting for Cluster c1' }] });
  });

  it('is ignored without Cluster API', () => {
    expect(addresses(run({ pool: p, claims: [claim('a'), claim('b')] }))).toEqual({ a: '10.0.0.1', b: '10.0.0.2' });
  });
});

describe('customize', () => {
  it('asks for the namespace’s claims and pools, plus CAPI claims and Clusters when served', () => {
    const parent = pool('pool1', SMALL);
    expect(ippoolCustomize({ controller: poolController(), parent })).toEqual({
      relatedResources: [
        { apiVersion: 'ipam.metal3.io/v1alpha1', namespace: 'default', resource: 'ipclaims' },
        { apiVersion: 'ipam.metal3.io/v1alpha1', namespace: 'default', resource: 'ippools' },
      ],
    });
    expect(ippoolCustomize({ controller: poolController('v1beta2'), parent }).relatedResources.slice(2)).toEqual([
      { apiVersion: 'ipam.cluster.x-k8s.io/v1beta2', namespace: 'default', resource: 'ipaddressclaims' },
      { apiVersion: 'cluster.x-k8s.io/v1beta2', namespace: 'default', resource: 'clusters' },
    ]);
  });

  it('rejects requests that are not about an IPPool', () => {
    expect(() => ippoolSync({ parent: claim('a'), children: {}, related: {}, finalizing: false })).toThrow(/must be a IPPool/u);
    expect(() => ippoolSync({ parent: pool('x', { namePrefix: '' }), children: {}, related: {}, finalizing: false })).toThrow(/namePrefix/u);
  });
});
