// Random Metal3DataTemplates with the objects one Metal3Data is rendered for: every metaData
// source, every link, network and service kind, IPv4 and IPv6, pools named directly, by
// fromPoolRef and by fromPoolAnnotation. The values come from small sets on purpose, so that keys
// collide, references hit (or miss) the pools and NICs that exist, and annotations name pools.
//
// Pool references are Metal3 IPPools only (apiGroup ipam.metal3.io or empty, kind IPPool or
// empty): Cluster API IPAM pool kinds are covered by the capiipam area.
import fc from 'fast-check';

import type { Metal3DataTemplateSpec } from '../../domain/metal3data/types.js';

type Spec = Metal3DataTemplateSpec;
type MetaData = NonNullable<Spec['metaData']>;
type NetworkData = NonNullable<Spec['networkData']>;
type Links = NonNullable<NetworkData['links']>;
type Networks = NonNullable<NetworkData['networks']>;
type Route4 = NonNullable<NonNullable<Networks['ipv4']>[number]['routes']>[number];
type Gateway = Route4['gateway'];

/** What the IPClaim of one pool got: an address (an IPAddress's fields), or the pool's error. */
export type PoolState =
  { readonly address: string; readonly prefix: number; readonly gateway?: string; readonly dnsServers?: string[] } | { readonly error: string };

/** The objects of one case besides the template: labels, annotations, the host's NICs. */
interface SourceObjects {
  /** The namespace of every object, and the names of the objects metaData can render. */
  readonly names: { namespace: string; m3m: string; machine: string; host: string };
  /** The Metal3Data's spec.index (absent counts as 0). */
  readonly index?: number;
  readonly m3m: { labels: Record<string, string>; annotations: Record<string, string> };
  readonly machine: { labels: Record<string, string>; annotations: Record<string, string> };
  readonly host: {
    labels: Record<string, string>;
    annotations: Record<string, string>;
    bootMACAddress?: string;
    hardware?: { nics?: { name?: string; mac?: string }[] };
  };
}

export interface Metal3DataCase {
  readonly spec: Spec;
  readonly objects: SourceObjects;
  /** By pool name; a pool that is absent has not allocated yet. */
  readonly pools: Record<string, PoolState>;
}

/** Pools that normally allocate; `unallocated` never does, so a template naming it waits. */
const POOL_NAMES = ['pool-a', 'pool-b', 'pool6', 'prov.net'] as const;
const REFERENCED_POOLS = [...POOL_NAMES, 'unallocated'];
const OBJECTS = ['machine', 'metal3machine', 'baremetalhost'] as const;
const NIC_NAMES = ['eth0', 'eth1', 'enp1s0', ''];
const MACS = ['52:54:00:aa:bb:cc', '52:54:00:AA:BB:01', '52-54-00-aa-bb-02', '00:00:00:00:00:00'];
const BAD_MACS = ['', 'not-a-mac', '52:54:00:aa:bb', '52:54:00:aa:bb:cc:dd'];
/** Keys that collide with each other, with providerid, and sort "naturally" (k2 before k10). */
const KEYS = ['name', 'local-hostname', 'providerid', 'ip', 'k1', 'k2', 'k10', 'Key', 'a b', '10', 'yes', 'x:y', 'k'.repeat(130), 'two\nlines'];
/** Strings that YAML must quote, fold or escape, and plain ones. */
const TEXTS = [
  'worker',
  '',
  'yes',
  'No',
  '123',
  '0x1F',
  '1e3',
  '12:30',
  ' lead',
  'trail ',
  'a: b',
  '#x',
  '- x',
  "it's",
  '"q"',
  'two\nlines',
  'tab\there',
  'é',
  '~',
  'null',
  '@at',
  '%p',
  'a,b',
  '[x]',
  '{y}',
  '*a',
  '&b',
  '!t',
  '|',
  '>',
];
const ANNOTATION_KEYS = ['pool', 'mac', 'text', 'example.com/pool', 'missing'];
const LINK_IDS = ['eth0', 'bond0', 'vlan10', 'enp1s0', '123', 'yes', 'id x'];
const V4 = ['0.0.0.0', '10.0.0.0', '192.168.10.1', '8.8.8.8', '255.255.255.255'];
const V6 = ['::', '2001:db8::1', 'fd00::', '2001:4860:4860::8888', 'fe80::1'];

const pick = <T>(values: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...values);
/** Mostly one of `usual`, now and then one of `rare`. */
const mostly = <T>(usual: readonly T[], rare: readonly T[], odds = 8): fc.Arbitrary<T> =>
  fc.oneof({ weight: odds, arbitrary: pick(usual) }, { weight: 1, arbitrary: pick(rare) });
/** A list that is mostly absent, and otherwise has one to `max` items. */
const someOf = <T>(item: fc.Arbitrary<T>, max = 3): fc.Arbitrary<T[] | undefined> =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.array(item, { minLength: 1, maxLength: max }) });
/** `{key: value}` with the key left out when undefined (the API server stores no nulls). */
const optional = <T>(arb: fc.Arbitrary<T>, freq = 2): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq });

/** Drops undefined fields, so that the JSON both sides read has the fields absent. */
function compact<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Characters upstream's yaml.Marshal cannot write or writes specially (DEL, C1 controls with NEL,
 * a byte-order mark, U+FFFE, U+FFFF): how YAML text is written is the goyaml area's, so they are
 * left to it.
 */
const YAML_SPECIAL = /[\u007f-\u009f\ufeff\ufffe\uffff]/u;

/** Mostly the tricky strings above, else random text: printable ASCII, any ASCII, any code point. */
const text = fc.oneof(
  { weight: 6, arbitrary: pick(TEXTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 6 }).filter((t) => !YAML_SPECIAL.test(t)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }).filter((t) => !YAML_SPECIAL.test(t)) },
);
const key = pick(KEYS);
const object = pick(OBJECTS);
const poolName = mostly(POOL_NAMES, ['unallocated'], 40);
const annotationKey = pick(ANNOTATION_KEYS);
/** The annotation a pool is named by: usually `pool`, which the objects usually carry. */
const poolAnnotationKey = mostly(['pool'], ANNOTATION_KEYS, 6);

/** The group and kind spellings that all mean a Metal3 IPPool. */
const metal3Kind = pick<{ apiGroup?: string; kind?: string }>([
  {},
  { apiGroup: 'ipam.metal3.io', kind: 'IPPool' },
  { apiGroup: 'ipam.metal3.io' },
  { kind: 'IPPool' },
]);
const fromPool = fc.tuple(key, poolName, metal3Kind).map(([k, name, kind]) => ({ key: k, name, ...kind }));
const poolRef = fc.tuple(poolName, metal3Kind).map(([name, kind]) => ({ name, ...kind }));
const fromPoolAnnotation = fc.record({ object, annotation: poolAnnotationKey });

const index = fc.record(
  {
    key,
    offset: fc.oneof(fc.integer({ min: 0, max: 20 }), pick([2147483647, 1000000000])),
    step: fc.oneof(fc.integer({ min: -2, max: 5 }), pick([1000000, 2147483647])),
    prefix: text,
    suffix: text,
  },
  { requiredKeys: ['key'] },
);

const metaData: fc.Arbitrary<MetaData> = fc
  .record({
    strings: someOf(fc.record({ key, value: text })),
    objectNames: someOf(fc.record({ key, object })),
    indexes: someOf(index),
    namespaces: someOf(fc.record({ key })),
    ipAddressesFromPool: someOf(fromPool),
    prefixesFromPool: someOf(fromPool),
    gatewaysFromPool: someOf(fromPool),
    dnsServersFromPool: someOf(fromPool),
    fromHostInterfaces: someOf(fc.record({ key, interface: pick(NIC_NAMES.filter((n) => n !== '')), fromBootMAC: fc.boolean() }, { requiredKeys: ['key'] })),
    fromLabels: someOf(fc.record({ key, object, label: pick(['role', 'rack', 'missing', 'cluster.x-k8s.io/cluster-name']) })),
    fromAnnotations: someOf(fc.record({ key, object, annotation: annotationKey })),
  })
  .map(compact);

const macSource = fc.oneof(
  fc.record({ string: pick([...MACS, ...BAD_MACS.filter((m) => m !== '')]) }),
  fc.record({ fromHostInterface: pick(NIC_NAMES.filter((n) => n !== '')) }),
  fc.record({ fromAnnotation: fc.record({ object, annotation: annotationKey }) }),
);
const linkCommon = {
  id: pick(LINK_IDS),
  name: optional(pick(['eth0', 'bond0', 'uplink.10', 'n-1'])),
  // The CRD defaults mtu to 1500, so the API server never hands either side a link without one.
  mtu: fc.oneof(fc.constant(1500), fc.integer({ min: 1280, max: 9000 })),
  macAddress: optional(macSource, 1),
};
/** Bond parameter values are free JSON; names include the ones that collide with bond_* keys. */
const jsonValue = fc.oneof(
  pick<unknown>([100, 0, -1, 1.5, 0.000001, 1e21, true, false, null, '100', 'fast', '', 'yes', [], {}]),
  fc.array(pick<unknown>([1, 'a', true]), { maxLength: 2 }),
  fc.dictionary(pick(['b', 'a', 'k2', 'k10']), pick<unknown>([1, 'x', null]), { maxKeys: 2 }),
);
const bondParameter = fc.record(
  { name: pick(['miimon', 'lacp_rate', 'updelay', 'mode', 'links', 'xmit_hash_policy', 'x']), value: jsonValue },
  { requiredKeys: ['name'] },
);

const links: fc.Arbitrary<Links> = fc
  .record({
    ethernets: someOf(fc.record({ ...linkCommon, type: pick(['phy', 'bridge', 'dvs', 'hw_veb', 'hyperv', 'ovs', 'tap', 'vhostuser', 'vif'] as const) })),
    bonds: someOf(
      fc.record({
        ...linkCommon,
        bondMode: pick(['balance-rr', 'active-backup', 'balance-xor', 'broadcast', 'balance-tlb', 'balance-alb', '802.3ad'] as const),
        bondXmitHashPolicy: optional(pick(['layer2', 'layer3+4', 'layer2+3'] as const)),
        bondLinks: optional(fc.array(pick(LINK_IDS), { maxLength: 3 })),
        parameters: optional(fc.uniqueArray(bondParameter, { selector: (p) => p.name, minLength: 1, maxLength: 3 })),
      }),
    ),
    vlans: someOf(fc.record({ ...linkCommon, vlanID: fc.oneof(pick([0, 4096]), fc.integer({ min: 1, max: 4095 })), vlanLink: pick(LINK_IDS) })),
  })
  .map(compact);

/**
 * A route gateway: a literal, a pool (by name, fromPoolRef, fromPoolAnnotation), none, or several
 * at once (the literal wins when rendering, the pools are claimed all the same; on DHCP and SLAAC
 * networks an annotation's pool is not claimed, as upstream).
 */
function gateway(literals: readonly string[]): fc.Arbitrary<Gateway> {
  return fc
    .record({
      string: optional(pick(literals)),
      fromIPPool: optional(poolName, 3),
      fromPoolRef: optional(poolRef, 3),
      fromPoolAnnotation: optional(fromPoolAnnotation, 3),
    })
    .map(compact);
}

function route(literals: readonly string[], maxPrefix: number): fc.Arbitrary<Route4> {
  return fc
    .record(
      {
        network: pick(literals),
        prefix: fc.oneof(pick([0, maxPrefix]), fc.integer({ min: 0, max: maxPrefix })),
        gateway: gateway(literals),
        services: fc.record(
          { dns: optional(fc.array(pick(literals), { minLength: 1, maxLength: 2 })), dnsFromIPPool: optional(poolName) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['network', 'gateway'] },
    )
    .map(compact);
}

/** A static network names its pool one or more ways (the CRD asks for at least one). */
const staticSources = fc
  .record({ ipAddressFromIPPool: optional(poolName, 1), fromPoolRef: optional(poolRef, 2), fromPoolAnnotation: optional(fromPoolAnnotation, 2) })
  .filter((s) => s.ipAddressFromIPPool !== undefined || s.fromPoolRef !== undefined || s.fromPoolAnnotation !== undefined);

function staticNetwork(literals: readonly string[], maxPrefix: number): fc.Arbitrary<NonNullable<Networks['ipv4']>[number]> {
  return fc
    .tuple(fc.record({ id: pick(['net0', 'net1', 'n', '0']), link: pick(LINK_IDS), routes: someOf(route(literals, maxPrefix), 2) }), staticSources)
    .map(([net, sources]) => compact({ ...net, ...sources }));
}

function dynamicNetwork(literals: readonly string[], maxPrefix: number): fc.Arbitrary<NonNullable<Networks['ipv4DHCP']>[number]> {
  return fc.record({ id: pick(['dhcp0', 'slaac', 'n']), link: pick(LINK_IDS), routes: someOf(route(literals, maxPrefix), 2) }).map(compact);
}

const networks: fc.Arbitrary<Networks> = fc
  .record({
    ipv4: someOf(staticNetwork(V4, 32), 2),
    ipv6: someOf(staticNetwork(V6, 128), 2),
    ipv4DHCP: someOf(dynamicNetwork(V4, 32), 2),
    ipv6DHCP: someOf(dynamicNetwork(V6, 128), 2),
    ipv6SLAAC: someOf(dynamicNetwork(V6, 128), 2),
  })
  .map(compact);

const services = fc.record({ dns: optional(fc.array(pick([...V4, ...V6]), { minLength: 1, maxLength: 3 })), dnsFromIPPool: optional(poolName) }).map(compact);

const networkData: fc.Arbitrary<NetworkData> = fc
  .record({ links: optional(links, 4), networks: optional(networks, 4), services: optional(services, 2) })
  .map(compact);

const spec: fc.Arbitrary<Spec> = fc
  .record({ metaData: optional(metaData, 4), networkData: optional(networkData, 4) })
  .filter((s) => s.metaData !== undefined || s.networkData !== undefined)
  .map(compact);

const stringMap = (keys: readonly string[], values: fc.Arbitrary<string>): fc.Arbitrary<Record<string, string>> =>
  fc.dictionary(pick(keys), values, { maxKeys: 4 });
/** Annotation values that name pools (allocated or not), hold MACs, or are anything else. */
const annotationValue = fc.oneof(pick([...REFERENCED_POOLS, 'no-such-pool']), pick(MACS), pick(BAD_MACS), text);
const meta = fc.record({
  labels: stringMap(['role', 'rack', 'cluster.x-k8s.io/cluster-name'], text),
  annotations: fc
    .tuple(stringMap(ANNOTATION_KEYS, annotationValue), optional(poolName, 10))
    .map(([annotations, pool]) => (pool === undefined ? annotations : { ...annotations, pool })),
});

const nic = fc.record(
  { name: pick(NIC_NAMES), mac: fc.oneof({ weight: 4, arbitrary: pick(MACS) }, { weight: 1, arbitrary: pick(BAD_MACS) }) },
  { requiredKeys: [] },
);
/** Inspected NICs: none at all, an empty list, or a few (names may repeat; the first one counts). */
const hardware: fc.Arbitrary<SourceObjects['host']['hardware']> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constant({ nics: [] as never[] }) },
  { weight: 6, arbitrary: fc.array(nic, { minLength: 1, maxLength: 4 }).map((nics) => ({ nics })) },
);

/** Object names are DNS subdomains, some of which YAML reads as numbers or booleans. */
const names = fc.record({
  namespace: mostly(['metal3'], ['1e3', 'no', 'ns.a']),
  m3m: mostly(['w-abc'], ['123', 'null', 'w.1']),
  machine: mostly(['w-abc-m'], ['on', '0x1f', 'w-abc-m.x']),
  host: mostly(['node-3'], ['yes', '10', 'n.3']),
});

const objects: fc.Arbitrary<SourceObjects> = fc.record(
  {
    names,
    index: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 12 }) }, { weight: 1, arbitrary: pick([1000, 2147483647]) }),
    m3m: meta,
    machine: meta,
    host: fc.tuple(meta, optional(pick([...MACS, '']), 4), hardware).map(([m, bootMACAddress, hw]) => compact({ ...m, bootMACAddress, hardware: hw })),
  },
  { requiredKeys: ['names', 'm3m', 'machine', 'host'] },
);

const V4_ADDRESSES = ['192.168.10.5', '10.0.0.7', '172.16.0.1'];
const V6_ADDRESSES = ['2001:db8::5', 'fd00::10'];
/** Pool prefixes include ones that do not fit the address family the network says (IPv4 /64). */
function poolAddress(addresses: readonly string[], gateways: readonly string[], dns: readonly string[]): fc.Arbitrary<PoolState> {
  return fc
    .record(
      {
        address: pick(addresses),
        prefix: fc.oneof(pick([0, 8, 24, 32, 33, 64, 128]), fc.integer({ min: 0, max: 128 })),
        gateway: pick(gateways),
        dnsServers: fc.array(pick(dns), { maxLength: 2 }),
      },
      { requiredKeys: ['address', 'prefix'] },
    )
    .map(compact);
}

/** The pool answers: mostly an address, sometimes an error, sometimes not yet. */
function poolState(family: 4 | 6): fc.Arbitrary<PoolState | undefined> {
  const address =
    family === 4
      ? poolAddress(V4_ADDRESSES, ['192.168.10.1', '10.0.0.1'], ['8.8.8.8', '1.1.1.1'])
      : poolAddress(V6_ADDRESSES, ['2001:db8::1'], ['2001:4860:4860::8888']);
  return fc.oneof(
    { weight: 40, arbitrary: address },
    { weight: 1, arbitrary: fc.constant({ error: 'pool exhausted' }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const pools: fc.Arbitrary<Record<string, PoolState>> = fc
  .tuple(poolState(4), poolState(4), poolState(6), poolState(4))
  .map((states) => Object.fromEntries(POOL_NAMES.flatMap((name, i) => (states[i] === undefined ? [] : [[name, states[i]]]))));

export const metal3DataCase: fc.Arbitrary<Metal3DataCase> = fc.record({ spec, objects, pools });
