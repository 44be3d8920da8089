// Random worlds for the Metal3Data pools differential: a Metal3DataTemplate whose metaData and
// networkData reference pools of random kinds (Metal3 IPPools, Cluster API pools, the same name
// spelled with and without upstream's defaults, annotation-named pools), the annotations of the
// Metal3Machine, Machine and BareMetalHost, and the state of each claim and address. The same
// world is written twice: as the objects of upstream's API server (the oracle's fake client) and
// as the Metacontroller v2 request Ironhook's hook gets.
import fc from 'fast-check';

import type { KObject } from '../../domain/k8s.js';
import type { ObjectMap } from '../../domain/metacontroller.js';
import { isMetal3Pool, templatePools, type PoolUse } from '../../domain/metal3data/pools.js';
import type { Metal3DataTemplateSpec, SourceObject } from '../../domain/metal3data/types.js';

const NS = 'ns1';
const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
const CAPI_IPAM = 'ipam.cluster.x-k8s.io/v1beta2';
const M3_IPAM = 'ipam.metal3.io/v1alpha1';
const DATA_NAME = 'tpl-0';
const DATA_UID = 'data-uid-0';

// --- templates -----------------------------------------------------------------------------

const poolNames = ['a', 'b', 'c', 'd'];
const poolName = fc.constantFrom(...poolNames);

/** A pool reference's apiGroup and kind, as written. */
interface GroupKind {
  apiGroup?: string;
  kind?: string;
}
/** Spellings of one pool kind: each list's entries mean the same kind once upstream's defaults apply. */
const METAL3_SPELLINGS: GroupKind[] = [
  {},
  { apiGroup: '', kind: '' },
  { apiGroup: 'ipam.metal3.io' },
  { kind: 'IPPool' },
  { apiGroup: 'ipam.metal3.io', kind: 'IPPool' },
];
const OTHER_KINDS: GroupKind[][] = [
  [{ apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }],
  [{ apiGroup: 'ipam.cluster.x-k8s.io', kind: 'GlobalInClusterIPPool' }],
  [{ kind: 'InClusterIPPool' }, { apiGroup: '', kind: 'InClusterIPPool' }, { apiGroup: 'ipam.metal3.io', kind: 'InClusterIPPool' }],
  [{ apiGroup: 'ipam.cluster.x-k8s.io' }, { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'IPPool' }],
  [{ apiGroup: 'ipam.example.com', kind: 'NetboxIPPool' }],
];
/** Group or kind written at random: absent, empty, Metal3's, Cluster API's, another provider's. */
const anyGroup = fc.option(fc.constantFrom('', 'ipam.metal3.io', 'ipam.cluster.x-k8s.io', 'ipam.example.com'), { nil: undefined });
const anyKind = fc.option(fc.constantFrom('', 'IPPool', 'InClusterIPPool', 'GlobalInClusterIPPool'), { nil: undefined });

/**
 * Each world gives every pool name a kind (Metal3 or another) and references it mostly in one of
 * that kind's spellings, sometimes with any group and kind: templates that reference pools
 * consistently, with and without upstream's defaults, and some that conflict.
 */
interface Kinds {
  of: Record<string, GroupKind[]>;
  /** References always in their pool's kind, plain names only of Metal3 pools: no conflicts. */
  strict: boolean;
}
const randomKinds: fc.Arbitrary<Kinds> = fc
  .tuple(...poolNames.map(() => fc.oneof(fc.constant(METAL3_SPELLINGS), fc.constantFrom(...OTHER_KINDS))))
  .map((spellings) => ({ of: Object.fromEntries(poolNames.map((name, i) => [name, spellings[i] ?? METAL3_SPELLINGS])), strict: false }));
/** a and b Metal3 pools, c and d of other kinds. */
const strictKinds: fc.Arbitrary<Kinds> = fc
  .tuple(fc.constantFrom(...OTHER_KINDS), fc.constantFrom(...OTHER_KINDS))
  .map(([c, d]) => ({ of: { a: METAL3_SPELLINGS, b: METAL3_SPELLINGS, c, d }, strict: true }));
const kinds = fc.oneof({ weight: 1, arbitrary: randomKinds }, { weight: 2, arbitrary: strictKinds });

const dropUndefined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function poolRef(k: Kinds): fc.Arbitrary<{ name: string } & GroupKind> {
  return poolName.chain((name) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...(k.of[name] ?? METAL3_SPELLINGS)).map((gk) => ({ name, ...gk })) },
      { weight: k.strict ? 0 : 1, arbitrary: fc.record({ apiGroup: anyGroup, kind: anyKind }).map((gk) => dropUndefined({ name, ...gk })) },
    ),
  );
}

/** A plain pool name (always a Metal3 IPPool upstream): mostly (strict: only) one the world made a Metal3 pool. */
function metal3Name(k: Kinds): fc.Arbitrary<string> {
  const metal3 = poolNames.filter((name) => k.of[name] === METAL3_SPELLINGS);
  if (metal3.length === 0) return poolName;
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...metal3) }, { weight: k.strict ? 0 : 1, arbitrary: poolName });
}

const optional = <T>(a: fc.Arbitrary<T>, freq = 2): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq });
const annotationKey = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('pool-v4', 'pool-v6') }, { weight: 1, arbitrary: fc.constantFrom('unset', 'empty') });
const sourceObject = fc.constantFrom<SourceObject>('machine', 'metal3machine', 'baremetalhost');
const fromPoolAnnotation = fc.record({ object: sourceObject, annotation: annotationKey });
const list = <T>(item: fc.Arbitrary<T>, max = 2): fc.Arbitrary<T[] | undefined> => optional(fc.array(item, { minLength: 1, maxLength: max }), 3);

/** A metaData entry: its apiGroup/kind are written as for any reference (upstream ignores them). */
function fromPool(k: Kinds): fc.Arbitrary<Record<string, unknown>> {
  const ref = k.strict
    ? fc.tuple(metal3Name(k), fc.constantFrom(...METAL3_SPELLINGS, ...OTHER_KINDS.flat())).map(([name, gk]) => ({ name, ...gk }))
    : poolRef(k);
  return fc.tuple(fc.constantFrom('k1', 'k2', 'k3'), ref).map(([key, r]) => ({ key, ...r }));
}

function metaData(k: Kinds): fc.Arbitrary<Record<string, unknown>> {
  const l = list(fromPool(k));
  return fc.record({ ipAddressesFromPool: l, prefixesFromPool: l, gatewaysFromPool: l, dnsServersFromPool: l }, { requiredKeys: [] }).map(dropUndefined);
}

function services(k: Kinds): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ dns: optional(fc.constant(['8.8.8.8'])), dnsFromIPPool: optional(metal3Name(k)) }, { requiredKeys: [] }).map(dropUndefined);
}

function route(k: Kinds): fc.Arbitrary<Record<string, unknown>> {
  const gateway = fc
    .record(
      {
        string: optional(fc.constant('192.0.2.1')),
        fromIPPool: optional(metal3Name(k)),
        fromPoolRef: optional(poolRef(k)),
        fromPoolAnnotation: optional(fromPoolAnnotation),
      },
      { requiredKeys: [] },
    )
    .map(dropUndefined);
  return fc
    .record(
      { network: fc.constantFrom('0.0.0.0', '10.10.0.0'), prefix: optional(fc.integer({ min: 0, max: 32 })), gateway, services: optional(services(k)) },
      { requiredKeys: ['network', 'gateway'] },
    )
    .map(dropUndefined);
}

function staticNetwork(k: Kinds, id: string): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record(
      {
        id: fc.constant(id),
        link: fc.constant('eth0'),
        ipAddressFromIPPool: optional(metal3Name(k)),
        fromPoolRef: optional(poolRef(k), k.strict ? 5 : 2),
        fromPoolAnnotation: optional(fromPoolAnnotation),
        routes: list(route(k)),
      },
      { requiredKeys: ['id', 'link'] },
    )
    .map(dropUndefined);
}

function dynamicNetwork(k: Kinds, id: string): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ id: fc.constant(id), link: fc.constant('eth0'), routes: list(route(k)) }, { requiredKeys: ['id', 'link'] }).map(dropUndefined);
}

function networkData(k: Kinds): fc.Arbitrary<Record<string, unknown>> {
  const networks = fc
    .record(
      {
        ipv4: k.strict ? fc.array(staticNetwork(k, 'v4'), { minLength: 1, maxLength: 2 }) : list(staticNetwork(k, 'v4')),
        ipv6: list(staticNetwork(k, 'v6'), 1),
        ipv4DHCP: list(dynamicNetwork(k, 'd4'), 1),
        ipv6DHCP: list(dynamicNetwork(k, 'd6'), 1),
        ipv6SLAAC: list(dynamicNetwork(k, 's6'), 1),
      },
      { requiredKeys: k.strict ? ['ipv4'] : [] },
    )
    .map(dropUndefined);
  return fc.record({ networks, services: services(k) }, { requiredKeys: k.strict ? ['networks'] : [] }).map(dropUndefined);
}

function templateSpec(k: Kinds): fc.Arbitrary<Metal3DataTemplateSpec> {
  return fc
    .record({ metaData: optional(metaData(k)), networkData: k.strict ? networkData(k) : optional(networkData(k), 4) }, { requiredKeys: [] })
    .map((spec) => dropUndefined(spec) as Metal3DataTemplateSpec);
}

/** The annotations of the three objects: pool-v4 and pool-v6 name pools, `unset` is never set, `empty` is "". */
export type Annotations = Record<SourceObject, Record<string, string>>;
function annotations(k: Kinds): fc.Arbitrary<Annotations> {
  const value = k.strict ? metal3Name(k) : poolName;
  const one = fc.record({ 'pool-v4': value, 'pool-v6': value, empty: fc.constant('') });
  return fc.record({ machine: one, metal3machine: one, baremetalhost: one });
}

export interface PoolsCase {
  spec: Metal3DataTemplateSpec;
  annotations: Annotations;
}

export const poolsCase: fc.Arbitrary<PoolsCase> = kinds.chain((k) => fc.record({ spec: templateSpec(k), annotations: annotations(k) }));

/** The referenced pools as Ironhook resolves them with all three objects known. */
export function ourPools(c: PoolsCase): ReturnType<typeof templatePools> {
  return templatePools(c.spec, (object, annotation) => c.annotations[object][annotation] ?? '');
}

// --- claims and addresses -------------------------------------------------------------------

type M3State = 'none' | 'unbound' | 'error' | 'bound' | 'address-missing' | 'deleting';
type CapiState = 'none' | 'unbound' | 'not-ready' | 'bound' | 'bound-other-name' | 'address-missing' | 'deleting';
interface Address {
  address: string;
  prefix: number;
  gateway?: string;
}
export interface ClaimState {
  pool: PoolUse;
  state: M3State | CapiState;
  address: Address;
  dnsServers?: readonly string[];
}

export interface World extends PoolsCase {
  labels: Record<string, string>;
  claims: ClaimState[];
}

// Prefixes stay within 0-32: a pool's address is rendered into IPv4 and IPv6 networks alike, and
// the text of a mask that does not fit an IPv4 network is the rendering sweep's subject
// (metal3data-render), not this one's.
const address: fc.Arbitrary<Address> = fc.oneof(
  fc.record(
    {
      address: fc.constantFrom('10.0.0.5', '192.168.7.20'),
      prefix: fc.integer({ min: 0, max: 32 }),
      gateway: fc.option(fc.constantFrom('10.0.0.1', '192.168.7.1'), { nil: undefined }),
    },
    { requiredKeys: ['address', 'prefix'] },
  ),
  fc.record(
    { address: fc.constant('2001:db8::5'), prefix: fc.constantFrom(0, 16, 31, 32), gateway: fc.option(fc.constant('2001:db8::1'), { nil: undefined }) },
    { requiredKeys: ['address', 'prefix'] },
  ),
);
// No IPClaim being deleted: upstream still renders from one its data owns, Ironhook waits for it to
// go (documented deviation "an IPClaim being deleted is not rendered from"; pinned in the test).
const m3State = fc.oneof(
  { weight: 6, arbitrary: fc.constant<M3State>('bound') },
  { weight: 3, arbitrary: fc.constantFrom<M3State>('none', 'unbound', 'error', 'address-missing') },
);
const capiState = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<CapiState>('bound', 'bound-other-name') },
  { weight: 3, arbitrary: fc.constantFrom<CapiState>('none', 'unbound', 'not-ready', 'address-missing', 'deleting') },
);

function claimStates(pools: readonly PoolUse[]): fc.Arbitrary<ClaimState[]> {
  return fc.tuple(
    ...pools.map((pool) =>
      fc.record({
        pool: fc.constant(pool),
        state: isMetal3Pool(pool) ? m3State : capiState,
        address,
        dnsServers: fc.option(fc.constantFrom(['10.0.0.53'], ['10.0.0.53', '2001:db8::53']), { nil: undefined }),
      }),
    ),
  );
}

/**
 * A world: a template, annotations, the data's labels and a claim state for every pool Ironhook
 * finds referenced. Claims of pools the template does not reference are never generated:
 * Ironhook releases them at once, upstream keeps them until the data goes (documented deviation
 * "a claim of a pool no longer referenced").
 */
export const world: fc.Arbitrary<World> = kinds
  .chain((k) => fc.record({ spec: templateSpec(k), annotations: annotations(k), labels: fc.constantFrom<Record<string, string>>({}, { tier: 'gold' }) }))
  .chain((w) => {
    const pools = ourPoolsOrNone(w);
    return claimStates(pools).map((claims) => ({ ...w, claims }));
  });

function ourPoolsOrNone(c: PoolsCase): PoolUse[] {
  try {
    const found = ourPools(c);
    return 'pools' in found ? found.pools : [];
  } catch {
    return [];
  }
}

// --- the objects --------------------------------------------------------------------------

function meta(name: string, extra: Partial<KObject['metadata']> = {}): KObject['metadata'] {
  return { name, namespace: NS, uid: `uid-${name}`, ...extra };
}

const claimName = (pool: string): string => `${DATA_NAME}-${pool}`;
const dataOwner = { apiVersion: V2, kind: 'Metal3Data', name: DATA_NAME, uid: DATA_UID, controller: true };

function m3Objects(c: ClaimState): { claim?: KObject; address?: KObject } {
  if (c.state === 'none') return {};
  const name = claimName(c.pool.name);
  const status = c.state === 'error' ? { errorMessage: 'Exhausted IP Pools' } : c.state === 'unbound' ? {} : { address: { name, namespace: NS } };
  const deleting = c.state === 'deleting' ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['ipclaim.ipam.metal3.io'] } : {};
  const claim = {
    apiVersion: M3_IPAM,
    kind: 'IPClaim',
    metadata: meta(name, { ownerReferences: [dataOwner], ...deleting }),
    spec: { pool: { name: c.pool.name, namespace: NS } },
    status,
  };
  if (c.state !== 'bound' && c.state !== 'deleting') return { claim };
  const spec = {
    claim: { name, namespace: NS },
    pool: { name: c.pool.name, namespace: NS },
    ...c.address,
    ...(c.dnsServers !== undefined && { dnsServers: c.dnsServers }),
  };
  return { claim, address: { apiVersion: M3_IPAM, kind: 'IPAddress', metadata: meta(name, { labels: { 'ironhook.dev/metal3data': DATA_NAME } }), spec } };
}

const notReady = {
  conditions: [{ type: 'Ready', status: 'False', reason: 'PoolExhausted', message: 'no free address', lastTransitionTime: '2026-01-01T00:00:00Z' }],
};

function capiStatus(state: CapiState, addressName: string): Record<string, unknown> | undefined {
  if (state === 'unbound') return undefined;
  if (state === 'not-ready') return notReady;
  return { addressRef: { name: addressName } };
}

function capiObjects(c: ClaimState): { claim?: KObject; address?: KObject } {
  const state = c.state as CapiState;
  if (state === 'none') return {};
  const name = claimName(c.pool.name);
  const addressName = state === 'bound-other-name' ? `addr-${c.pool.name}` : name;
  const deleting = state === 'deleting' ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['ipam.cluster.x-k8s.io/protect-claim'] } : {};
  const status = capiStatus(state, addressName);
  const poolRef = { name: c.pool.name, apiGroup: c.pool.apiGroup, kind: c.pool.kind };
  const claim = {
    apiVersion: CAPI_IPAM,
    kind: 'IPAddressClaim',
    metadata: meta(name, { ownerReferences: [dataOwner], ...deleting }),
    spec: { poolRef },
    ...(status !== undefined && { status }),
  };
  if (state === 'unbound' || state === 'not-ready' || state === 'address-missing') return { claim };
  const spec = {
    claimRef: { name },
    poolRef,
    address: c.address.address,
    prefix: c.address.prefix,
    ...(c.address.gateway !== undefined && { gateway: c.address.gateway }),
  };
  return { claim, address: { apiVersion: CAPI_IPAM, kind: 'IPAddress', metadata: meta(addressName), spec } };
}

export interface WorldObjects {
  data: KObject;
  /** Everything else the API server holds, claims included. */
  related: KObject[];
  claims: KObject[];
}

function annotated(a: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return { ...a, ...extra };
}

/** The world's objects, in the form both sides read (v1beta2 Metal3 kinds, v1beta2 Cluster API IPAM). */
export function worldObjects(w: World, release = false): WorldObjects {
  const labels = { 'cluster.x-k8s.io/cluster-name': 'c1', 'ironhook.dev/metal3dataclaim': 'm3m-0', ...w.labels };
  const data: KObject = {
    apiVersion: V2,
    kind: 'Metal3Data',
    metadata: meta(DATA_NAME, {
      uid: DATA_UID,
      labels,
      annotations: { 'ironhook.dev/metal3machine': 'm3m-0', 'ironhook.dev/baremetalhost': 'host-0', 'ironhook.dev/machine': 'machine-0' },
      ...(release && { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['metal3data.infrastructure.cluster.x-k8s.io'] }),
    }),
    spec: {
      index: 0,
      template: { name: 'tpl', namespace: NS },
      claim: { name: 'm3m-0', namespace: NS },
      metaData: { name: 'm3m-0-metadata', namespace: NS },
      networkData: { name: 'm3m-0-networkdata', namespace: NS },
    },
  };
  const machine: KObject = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: meta('machine-0', { annotations: annotated(w.annotations.machine) }),
    spec: { clusterName: 'c1' },
  };
  const m3m: KObject = {
    apiVersion: V2,
    kind: 'Metal3Machine',
    metadata: meta('m3m-0', {
      annotations: annotated(w.annotations.metal3machine, { 'metal3.io/BareMetalHost': `${NS}/host-0` }),
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'machine-0', uid: 'uid-machine-0', controller: true }],
    }),
    spec: { dataTemplate: { name: 'tpl', namespace: NS } },
  };
  const host: KObject = {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: meta('host-0', { annotations: annotated(w.annotations.baremetalhost) }),
    spec: { bootMACAddress: '52:54:00:00:00:01' },
  };
  const claim: KObject = {
    apiVersion: V2,
    kind: 'Metal3DataClaim',
    metadata: meta('m3m-0', { ownerReferences: [{ apiVersion: V2, kind: 'Metal3Machine', name: 'm3m-0', uid: 'uid-m3m-0', controller: true }] }),
    spec: { template: { name: 'tpl' } },
  };
  const template: KObject = {
    apiVersion: V2,
    kind: 'Metal3DataTemplate',
    metadata: meta('tpl', { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } }),
    spec: { clusterName: 'c1', ...w.spec },
  };
  const pieces = w.claims.map((c) => (isMetal3Pool(c.pool) ? m3Objects(c) : capiObjects(c)));
  const claims = pieces.flatMap((p) => (p.claim === undefined ? [] : [p.claim]));
  const addresses = pieces.flatMap((p) => (p.address === undefined ? [] : [p.address]));
  const sources = release ? [template, m3m, machine, host] : [template, claim, m3m, machine, host];
  return { data, related: [...sources, ...addresses], claims };
}

function objectMap(objects: readonly KObject[]): ObjectMap {
  const out: ObjectMap = {};
  for (const o of objects) {
    const key = `${o.kind}.${o.apiVersion}`;
    out[key] = { ...(out[key] ?? {}), [`${NS}/${o.metadata.name ?? ''}`]: o };
  }
  return out;
}

/** The CompositeController ironhook-metal3data as manifests/controllers/metal3data.yaml declares it. */
const CONTROLLER: KObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'CompositeController',
  metadata: { name: 'ironhook-metal3data' },
  spec: {
    childResources: [
      { apiVersion: 'v1', resource: 'secrets', updateStrategy: { method: 'OnDelete' } },
      { apiVersion: M3_IPAM, resource: 'ipclaims', updateStrategy: { method: 'OnDelete' } },
      { apiVersion: CAPI_IPAM, resource: 'ipaddressclaims', updateStrategy: { method: 'OnDelete' } },
    ],
  },
};

/** The Metacontroller v2 sync (or finalize) request for the world. */
export function hookRequest(o: WorldObjects, finalizing = false): unknown {
  const children = { 'IPClaim.ipam.metal3.io/v1alpha1': {}, 'IPAddressClaim.ipam.cluster.x-k8s.io/v1beta2': {}, 'Secret.v1': {}, ...objectMap(o.claims) };
  return { controller: CONTROLLER, parent: o.data, children, related: objectMap(o.related), finalizing };
}
