// Every Metal3DataTemplate field, one named row each: what it renders
// into metaData or networkData for a fixed host, and the errors a template can hit for a host.
import { describe, expect, it } from 'vitest';
import { RenderError, netmask, type PoolAddress, type RenderContext } from '../../domain/metal3data/context.js';
import { metaDataMap } from '../../domain/metal3data/metadata.js';
import { networkDataValue } from '../../domain/metal3data/networkdata.js';
import type { MetaData, NetworkData } from '../../domain/metal3data/types.js';
import type { KObject } from '../../domain/k8s.js';

function object(kind: string, name: string, extra: Partial<KObject> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return { apiVersion: 'v1', kind, metadata: { name, namespace: 'ns1', ...meta }, ...extra };
}

const V4: PoolAddress = { address: '10.1.2.3', prefix: 24, gateway: '10.1.2.1', dnsServers: ['10.1.2.53', '10.1.2.54'] };
const V6: PoolAddress = { address: '2001:db8::23', prefix: 64, gateway: '2001:db8::1', dnsServers: ['2001:db8::53'] };
const NO_GATEWAY: PoolAddress = { address: '10.9.0.5', prefix: 16, gateway: '', dnsServers: [] };

function context(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    namespace: 'ns1',
    index: 3,
    metal3Machine: object(
      'Metal3Machine',
      'm3m-0',
      {},
      { labels: { tier: 'gold' }, annotations: { 'example.com/pool': 'v6', 'example.com/mac': '02:00:00:00:00:aa' } },
    ),
    machine: object('Machine', 'machine-0', {}, { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: { note: 'hello' } }),
    host: object(
      'BareMetalHost',
      'bmh-0',
      {
        spec: { bootMACAddress: '00:11:22:33:44:55' },
        status: {
          hardware: {
            nics: [
              { name: 'eth0', mac: '00:11:22:33:44:55' },
              { name: 'eth1', mac: '00:11:22:33:44:66' },
            ],
          },
        },
      },
      { labels: { rack: 'r1' }, annotations: { 'example.com/pool': 'v4' } },
    ),
    addresses: new Map([
      ['v4', V4],
      ['v6', V6],
      ['nogw', NO_GATEWAY],
    ]),
    ...overrides,
  };
}

const pool = (key: string, name: string): { key: string; name: string; apiGroup: string; kind: string } => ({
  key,
  name,
  apiGroup: 'ipam.metal3.io',
  kind: 'IPPool',
});

describe('metaData: one row per field', () => {
  it.each<[string, MetaData, Record<string, string>]>([
    ['strings', { strings: [{ key: 'role', value: 'worker' }] }, { role: 'worker' }],
    ['objectNames machine', { objectNames: [{ key: 'n', object: 'machine' }] }, { n: 'machine-0' }],
    ['objectNames metal3machine', { objectNames: [{ key: 'n', object: 'metal3machine' }] }, { n: 'm3m-0' }],
    ['objectNames baremetalhost', { objectNames: [{ key: 'n', object: 'baremetalhost' }] }, { n: 'bmh-0' }],
    ['indexes: the index alone', { indexes: [{ key: 'i' }] }, { i: '3' }],
    ['indexes: prefix and suffix', { indexes: [{ key: 'i', prefix: 'node-', suffix: '.lab' }] }, { i: 'node-3.lab' }],
    ['indexes: offset', { indexes: [{ key: 'i', offset: 100 }] }, { i: '103' }],
    ['indexes: step', { indexes: [{ key: 'i', step: 5 }] }, { i: '15' }],
    ['indexes: step 0 counts as 1', { indexes: [{ key: 'i', step: 0 }] }, { i: '3' }],
    ['indexes: offset, step, prefix and suffix', { indexes: [{ key: 'i', offset: 10, step: 2, prefix: 'n', suffix: 'x' }] }, { i: 'n16x' }],
    ['indexes: a negative offset (v1beta1 allows it)', { indexes: [{ key: 'i', offset: -5 }] }, { i: '-2' }],
    ['namespaces', { namespaces: [{ key: 'ns' }] }, { ns: 'ns1' }],
    ['ipAddressesFromPool', { ipAddressesFromPool: [pool('ip', 'v4')] }, { ip: '10.1.2.3' }],
    ['ipAddressesFromPool (IPv6)', { ipAddressesFromPool: [pool('ip', 'v6')] }, { ip: '2001:db8::23' }],
    ['prefixesFromPool', { prefixesFromPool: [pool('p', 'v4')] }, { p: '24' }],
    ['gatewaysFromPool', { gatewaysFromPool: [pool('g', 'v4')] }, { g: '10.1.2.1' }],
    ['gatewaysFromPool without a gateway', { gatewaysFromPool: [pool('g', 'nogw')] }, { g: '' }],
    ['dnsServersFromPool renders nothing (as upstream)', { dnsServersFromPool: [pool('dns', 'v4')] }, {}],
    ['fromHostInterfaces by name', { fromHostInterfaces: [{ key: 'mac', interface: 'eth1' }] }, { mac: '00:11:22:33:44:66' }],
    ['fromHostInterfaces fromBootMAC', { fromHostInterfaces: [{ key: 'mac', fromBootMAC: true }] }, { mac: '00:11:22:33:44:55' }],
    ['fromLabels present', { fromLabels: [{ key: 'l', object: 'baremetalhost', label: 'rack' }] }, { l: 'r1' }],
    ['fromLabels absent renders ""', { fromLabels: [{ key: 'l', object: 'machine', label: 'rack' }] }, { l: '' }],
    ['fromLabels on the metal3machine', { fromLabels: [{ key: 'l', object: 'metal3machine', label: 'tier' }] }, { l: 'gold' }],
    ['fromAnnotations present', { fromAnnotations: [{ key: 'a', object: 'machine', annotation: 'note' }] }, { a: 'hello' }],
    ['fromAnnotations absent renders ""', { fromAnnotations: [{ key: 'a', object: 'baremetalhost', annotation: 'note' }] }, { a: '' }],
    ['a later source wins: strings over indexes', { indexes: [{ key: 'k' }], strings: [{ key: 'k', value: 'literal' }] }, { k: 'literal' }],
    [
      'a later source wins: fromAnnotations over fromHostInterfaces',
      { fromHostInterfaces: [{ key: 'k', interface: 'eth0' }], fromAnnotations: [{ key: 'k', object: 'machine', annotation: 'note' }] },
      { k: 'hello' },
    ],
  ])('%s', (_name, meta, expected) => {
    expect(metaDataMap(meta, context())).toEqual({ ...expected, providerid: 'ns1/bmh-0/m3m-0' });
  });

  it('providerid is always <m3m namespace>/<host>/<m3m> and overrides a user key of that name', () => {
    expect(metaDataMap({ strings: [{ key: 'providerid', value: 'mine' }] }, context())).toEqual({ providerid: 'ns1/bmh-0/m3m-0' });
  });

  it.each<[string, MetaData, Partial<RenderContext>, RegExp]>([
    [
      'an interface the host does not have',
      { fromHostInterfaces: [{ key: 'mac', interface: 'eth9' }] },
      {},
      /interface eth9 not found on BareMetalHost bmh-0 \(its NICs are eth0, eth1\)/u,
    ],
    [
      'a host without inspection data',
      { fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }] },
      { host: object('BareMetalHost', 'bmh-0') },
      /has no inspected NICs/u,
    ],
    [
      'a NIC with no name on a host without inspection data',
      { fromHostInterfaces: [{ key: 'mac' }] },
      { host: object('BareMetalHost', 'bmh-0', { status: { hardware: { nics: [] } } }) },
      /interface {2}not found on BareMetalHost bmh-0 \(it has no named NICs\)/u,
    ],
    [
      'fromBootMAC on a host without bootMACAddress',
      { fromHostInterfaces: [{ key: 'mac', fromBootMAC: true }] },
      { host: object('BareMetalHost', 'bmh-0') },
      /has no spec.bootMACAddress/u,
    ],
    ['a pool without an address', { ipAddressesFromPool: [pool('ip', 'missing')] }, {}, /no address from IPPool missing/u],
  ])('error: %s', (_name, meta, overrides, message) => {
    expect(() => metaDataMap(meta, context(overrides))).toThrow(RenderError);
    expect(() => metaDataMap(meta, context(overrides))).toThrow(message);
  });
});

describe('networkData links: one row per field', () => {
  const ethernet = (extra: object = {}): NetworkData => ({ links: { ethernets: [{ type: 'phy', id: 'eth0', ...extra }] } });

  it.each<[string, NetworkData, unknown[]]>([
    ['ethernet without macAddress (MTU defaults to 1500, no MAC key)', ethernet(), [{ id: 'eth0', mtu: 1500, type: 'phy' }]],
    [
      'ethernet with mtu and a literal MAC',
      ethernet({ mtu: 9000, macAddress: { string: '02:00:00:00:00:01' } }),
      [{ ethernet_mac_address: '02:00:00:00:00:01', id: 'eth0', mtu: 9000, type: 'phy' }],
    ],
    [
      'ethernet MAC from a host interface',
      ethernet({ macAddress: { fromHostInterface: 'eth1' } }),
      [{ ethernet_mac_address: '00:11:22:33:44:66', id: 'eth0', mtu: 1500, type: 'phy' }],
    ],
    [
      'ethernet MAC from an annotation',
      ethernet({ macAddress: { fromAnnotation: { object: 'metal3machine', annotation: 'example.com/mac' } } }),
      [{ ethernet_mac_address: '02:00:00:00:00:aa', id: 'eth0', mtu: 1500, type: 'phy' }],
    ],
    ['ethernet name', ethernet({ name: 'prov0' }), [{ id: 'eth0', mtu: 1500, name: 'prov0', type: 'phy' }]],
    ['ethernet type ovs', { links: { ethernets: [{ type: 'ovs', id: 'br' }] } }, [{ id: 'br', mtu: 1500, type: 'ovs' }]],
    [
      'bond with links, hash policy and parameters',
      {
        links: {
          bonds: [
            {
              id: 'bond0',
              bondMode: 'active-backup',
              bondXmitHashPolicy: 'layer2',
              bondLinks: ['eth0', 'eth1'],
              parameters: [
                { name: 'miimon', value: 100 },
                { name: 'primary', value: 'eth0' },
                { name: 'arp_ip_target', value: ['10.0.0.1'] },
              ],
            },
          ],
        },
      },
      [
        {
          bond_arp_ip_target: ['10.0.0.1'],
          bond_links: ['eth0', 'eth1'],
          bond_miimon: 100,
          bond_mode: 'active-backup',
          bond_primary: 'eth0',
          bond_xmit_hash_policy: 'layer2',
          id: 'bond0',
          mtu: 1500,
          type: 'bond',
        },
      ],
    ],
    [
      'bond without links or hash policy',
      { links: { bonds: [{ id: 'bond0', bondMode: 'balance-rr' }] } },
      [{ bond_links: null, bond_mode: 'balance-rr', bond_xmit_hash_policy: '', id: 'bond0', mtu: 1500, type: 'bond' }],
    ],
    [
      'bond with an empty bondLinks list',
      { links: { bonds: [{ id: 'bond0', bondMode: 'balance-rr', bondLinks: [] }] } },
      [{ bond_links: [], bond_mode: 'balance-rr', bond_xmit_hash_policy: '', id: 'bond0', mtu: 1500, type: 'bond' }],
    ],
    [
      'bond MAC',
      { links: { bonds: [{ id: 'bond0', bondMode: '802.3ad', macAddress: { fromHostInterface: 'eth0' } }] } },
      [{ bond_links: null, bond_mode: '802.3ad', bond_xmit_hash_policy: '', ethernet_mac_address: '00:11:22:33:44:55', id: 'bond0', mtu: 1500, type: 'bond' }],
    ],
    [
      'vlan',
      { links: { vlans: [{ id: 'vlan10', vlanID: 10, vlanLink: 'eth0', mtu: 1400, macAddress: { string: '02:00:00:00:00:0a' } }] } },
      [{ id: 'vlan10', mtu: 1400, type: 'vlan', vlan_id: 10, vlan_link: 'eth0', vlan_mac_address: '02:00:00:00:00:0a' }],
    ],
    [
      'order: bonds, then ethernets, then vlans',
      {
        links: {
          vlans: [{ id: 'v', vlanID: 1, vlanLink: 'b' }],
          ethernets: [{ type: 'phy', id: 'e' }],
          bonds: [{ id: 'b', bondMode: 'balance-rr', bondLinks: ['e'] }],
        },
      },
      [
        { bond_links: ['e'], bond_mode: 'balance-rr', bond_xmit_hash_policy: '', id: 'b', mtu: 1500, type: 'bond' },
        { id: 'e', mtu: 1500, type: 'phy' },
        { id: 'v', mtu: 1500, type: 'vlan', vlan_id: 1, vlan_link: 'b' },
      ],
    ],
  ])('%s', (_name, data, links) => {
    expect(networkDataValue(data, context()).links).toEqual(links);
  });

  it.each<[string, NetworkData, RegExp]>([
    ['a MAC that is not one', ethernet({ macAddress: { string: 'not-a-mac' } }), /link eth0: "not-a-mac" is not a MAC address/u],
    [
      'an annotation MAC that is absent',
      ethernet({ macAddress: { fromAnnotation: { object: 'machine', annotation: 'nope' } } }),
      /link eth0: "" is not a MAC address/u,
    ],
    ['a host NIC that is absent', ethernet({ macAddress: { fromHostInterface: 'eth7' } }), /interface eth7 not found/u],
    ['an empty macAddress', ethernet({ macAddress: {} }), /macAddress needs one of/u],
    [
      'a bond parameter colliding with a structured key',
      { links: { bonds: [{ id: 'bond0', bondMode: 'balance-rr', parameters: [{ name: 'mode', value: 'x' }] }] } },
      /bond bond0: parameter mode collides with bond_mode/u,
    ],
  ])('error: %s', (_name, data, message) => {
    expect(() => networkDataValue(data, context())).toThrow(message);
  });

  it('a host NIC inspected without a MAC: metaData renders it as "", a link\'s MAC is not a MAC address (as upstream)', () => {
    const host = object('BareMetalHost', 'bmh-0', { status: { hardware: { nics: [{ name: 'eth0' }, { name: 'eth0', mac: '00:11:22:33:44:55' }] } } });
    expect(metaDataMap({ fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }] }, context({ host }))).toEqual({ mac: '', providerid: 'ns1/bmh-0/m3m-0' });
    expect(() => networkDataValue(ethernet({ macAddress: { fromHostInterface: 'eth0' } }), context({ host }))).toThrow(
      /link eth0: "" \(host NIC eth0's MAC\) is not a MAC address/u,
    );
  });
});

describe('networkData networks and services: one row per field', () => {
  const v4 = (routes: object[] = [], source: object = { ipAddressFromIPPool: 'v4' }): NetworkData => ({
    networks: { ipv4: [{ id: 'n', link: 'eth0', ...source, routes }] as never },
  });

  it.each<[string, NetworkData, unknown[]]>([
    ['ipv4 static from ipAddressFromIPPool', v4(), [{ id: 'n', ip_address: '10.1.2.3', link: 'eth0', netmask: '255.255.255.0', routes: [], type: 'ipv4' }]],
    [
      'ipv4 static from fromPoolRef',
      v4([], { fromPoolRef: { name: 'v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' } }),
      [{ id: 'n', ip_address: '10.1.2.3', link: 'eth0', netmask: '255.255.255.0', routes: [], type: 'ipv4' }],
    ],
    [
      'ipv4 static from fromPoolAnnotation',
      v4([], { fromPoolAnnotation: { object: 'baremetalhost', annotation: 'example.com/pool' } }),
      [{ id: 'n', ip_address: '10.1.2.3', link: 'eth0', netmask: '255.255.255.0', routes: [], type: 'ipv4' }],
    ],
    [
      'fromPoolAnnotation wins over ipAddressFromIPPool',
      v4([], { ipAddressFromIPPool: 'nogw', fromPoolAnnotation: { object: 'baremetalhost', annotation: 'example.com/pool' } }),
      [{ id: 'n', ip_address: '10.1.2.3', link: 'eth0', netmask: '255.255.255.0', routes: [], type: 'ipv4' }],
    ],
    [
      'ipv6 static',
      { networks: { ipv6: [{ id: 'n6', link: 'eth0', ipAddressFromIPPool: 'v6' }] } },
      [{ id: 'n6', ip_address: '2001:db8::23', link: 'eth0', netmask: 'ffff:ffff:ffff:ffff::', routes: [], type: 'ipv6' }],
    ],
    ['ipv4 DHCP', { networks: { ipv4DHCP: [{ id: 'd', link: 'eth0' }] } }, [{ id: 'd', link: 'eth0', routes: [], type: 'ipv4_dhcp' }]],
    ['ipv6 DHCP', { networks: { ipv6DHCP: [{ id: 'd', link: 'eth0' }] } }, [{ id: 'd', link: 'eth0', routes: [], type: 'ipv6_dhcp' }]],
    ['ipv6 SLAAC', { networks: { ipv6SLAAC: [{ id: 's', link: 'eth0' }] } }, [{ id: 's', link: 'eth0', routes: [], type: 'ipv6_slaac' }]],
    [
      'order: ipv4, ipv6, ipv4DHCP, ipv6DHCP, ipv6SLAAC',
      {
        networks: {
          ipv6SLAAC: [{ id: 'e', link: 'l' }],
          ipv6DHCP: [{ id: 'd', link: 'l' }],
          ipv4DHCP: [{ id: 'c', link: 'l' }],
          ipv6: [{ id: 'b', link: 'l', ipAddressFromIPPool: 'v6' }],
          ipv4: [{ id: 'a', link: 'l', ipAddressFromIPPool: 'v4' }],
        },
      },
      ['a', 'b', 'c', 'd', 'e'].map((id): unknown => expect.objectContaining({ id }) as unknown),
    ],
  ])('%s', (_name, data, networks) => {
    expect(networkDataValue(data, context()).networks).toEqual(networks);
  });

  const route = (gateway: object, extra: object = {}): object => ({ network: '0.0.0.0', prefix: 0, gateway, ...extra });

  it.each<[string, object, unknown]>([
    ['gateway string', route({ string: '10.1.2.254' }), { gateway: '10.1.2.254', netmask: '0.0.0.0', network: '0.0.0.0', services: [] }],
    ['gateway fromIPPool', route({ fromIPPool: 'v4' }), { gateway: '10.1.2.1', netmask: '0.0.0.0', network: '0.0.0.0', services: [] }],
    ['gateway fromPoolRef', route({ fromPoolRef: { name: 'v4' } }), { gateway: '10.1.2.1', netmask: '0.0.0.0', network: '0.0.0.0', services: [] }],
    [
      'gateway fromPoolAnnotation',
      route({ fromPoolAnnotation: { object: 'baremetalhost', annotation: 'example.com/pool' } }),
      { gateway: '10.1.2.1', netmask: '0.0.0.0', network: '0.0.0.0', services: [] },
    ],
    [
      'gateway string wins over fromIPPool',
      route({ string: '10.1.2.9', fromIPPool: 'v4' }),
      { gateway: '10.1.2.9', netmask: '0.0.0.0', network: '0.0.0.0', services: [] },
    ],
    ['gateway from a pool without one', route({ fromIPPool: 'nogw' }), { gateway: '', netmask: '0.0.0.0', network: '0.0.0.0', services: [] }],
    ['no gateway at all', route({}), { gateway: '', netmask: '0.0.0.0', network: '0.0.0.0', services: [] }],
    [
      'route prefix',
      { network: '172.16.0.0', prefix: 12, gateway: { string: '10.1.2.1' } },
      { gateway: '10.1.2.1', netmask: '255.240.0.0', network: '172.16.0.0', services: [] },
    ],
    [
      'route without prefix',
      { network: '172.16.0.0', gateway: { string: '10.1.2.1' } },
      { gateway: '10.1.2.1', netmask: '0.0.0.0', network: '172.16.0.0', services: [] },
    ],
    [
      'route services: literal DNS, then the pool DNS',
      route({ string: '10.1.2.1' }, { services: { dns: ['1.1.1.1'], dnsFromIPPool: 'v4' } }),
      {
        gateway: '10.1.2.1',
        netmask: '0.0.0.0',
        network: '0.0.0.0',
        services: [
          { address: '1.1.1.1', type: 'dns' },
          { address: '10.1.2.53', type: 'dns' },
          { address: '10.1.2.54', type: 'dns' },
        ],
      },
    ],
  ])('route: %s', (_name, r, expected) => {
    const value = networkDataValue(v4([r]), context()).networks as { routes: unknown[] }[];
    expect(value[0]?.routes).toEqual([expected]);
  });

  it('IPv6 routes use IPv6 masks', () => {
    const data: NetworkData = {
      networks: {
        ipv6SLAAC: [
          {
            id: 's',
            link: 'eth0',
            routes: [
              { network: '::', prefix: 0, gateway: { fromIPPool: 'v6' } },
              { network: '2001:db8:1::', prefix: 48, gateway: { string: 'fe80::1' } },
            ],
          },
        ],
      },
    };
    const value = networkDataValue(data, context()).networks as { routes: unknown[] }[];
    expect(value[0]?.routes).toEqual([
      { gateway: '2001:db8::1', netmask: '::', network: '::', services: [] },
      { gateway: 'fe80::1', netmask: 'ffff:ffff:ffff::', network: '2001:db8:1::', services: [] },
    ]);
  });

  it.each<[string, NetworkData['services'], unknown[]]>([
    ['services: none', undefined, []],
    [
      'services: literal DNS',
      { dns: ['8.8.8.8', '2001:4860:4860::8888'] },
      [
        { address: '8.8.8.8', type: 'dns' },
        { address: '2001:4860:4860::8888', type: 'dns' },
      ],
    ],
    ['services: dnsFromIPPool', { dnsFromIPPool: 'v6' }, [{ address: '2001:db8::53', type: 'dns' }]],
    [
      'services: both, literal first',
      { dns: ['8.8.8.8'], dnsFromIPPool: 'v4' },
      [
        { address: '8.8.8.8', type: 'dns' },
        { address: '10.1.2.53', type: 'dns' },
        { address: '10.1.2.54', type: 'dns' },
      ],
    ],
  ])('%s', (_name, services, expected) => {
    expect(networkDataValue(services === undefined ? {} : { services }, context()).services).toEqual(expected);
  });

  it('links, networks and services are always present', () => {
    expect(networkDataValue({}, context())).toEqual({ links: [], networks: [], services: [] });
  });

  it.each<[string, NetworkData, RegExp]>([
    ['a static network without a pool', { networks: { ipv4: [{ id: 'n', link: 'eth0' }] } }, /network n names no IP pool/u],
    [
      'a pool annotation that is absent',
      v4([], { fromPoolAnnotation: { object: 'machine', annotation: 'nope' } }),
      /annotation nope on the machine must name an IP pool/u,
    ],
  ])('error: %s', (_name, data, message) => {
    expect(() => networkDataValue(data, context())).toThrow(message);
  });
});

describe('netmask (Go net.CIDRMask → net.IP.String)', () => {
  it.each([
    [24, true, '255.255.255.0'],
    [0, true, '0.0.0.0'],
    [32, true, '255.255.255.255'],
    [17, true, '255.255.128.0'],
    [33, true, '?00000000000000000000ffff'],
    [-1, true, '?00000000000000000000ffff'],
    [64, false, 'ffff:ffff:ffff:ffff::'],
    [0, false, '::'],
    [128, false, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    [65, false, 'ffff:ffff:ffff:ffff:8000::'],
    [-1, false, '<nil>'],
  ])('/%i (IPv4: %s) → %s', (prefix, ipv4, expected) => {
    expect(netmask(prefix, ipv4)).toBe(expected);
  });
});
