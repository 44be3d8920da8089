// Which pools a Metal3DataTemplate references, and as which kind: one named row per source, each
// checked against upstream's getReferencedPools (test/differential/metal3data-pools.test.ts
// sweeps random templates through both).
import { describe, expect, it } from 'vitest';
import { isMetal3Pool, poolUse, templatePools, type PoolsResult } from '../../domain/metal3data/pools.js';
import type { Metal3DataTemplateSpec, SourceObject } from '../../domain/metal3data/types.js';

const annotations: Record<string, Record<string, string>> = { machine: { pool: 'from-machine', empty: '' }, metal3machine: { pool: 'from-m3m' } };
const lookup = (object: SourceObject, annotation: string): string | undefined => annotations[object]?.[annotation];
const names = (result: PoolsResult): unknown => ('pools' in result ? result.pools.map((p) => `${p.name}:${p.kind}.${p.apiGroup}`) : result);

const M3 = 'IPPool.ipam.metal3.io';
const IN_CLUSTER = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' };
const entry = (name: string, extra: Record<string, string> = {}): { key: string; name: string } => ({ key: `k-${name}`, name, ...extra });
// Loose shapes on purpose: some rows hold what the CRD rejects but upstream's code still reads.
const v4 = (net: Record<string, unknown>): Metal3DataTemplateSpec => ({ networkData: { networks: { ipv4: [{ id: 'n', link: 'l', ...net }] } } });
const route = (gateway: Record<string, unknown>, services?: Record<string, unknown>): Record<string, unknown> => ({
  network: '0.0.0.0',
  gateway,
  ...(services !== undefined && { services }),
});
const dhcp = (routes: Record<string, unknown>[], services?: Record<string, unknown>): Metal3DataTemplateSpec =>
  ({ networkData: { networks: { ipv4DHCP: [{ id: 'd', link: 'l', routes }] }, ...(services !== undefined && { services }) } }) as Metal3DataTemplateSpec;
const fromMachine = { object: 'machine', annotation: 'pool' };

describe('the pools a template references', () => {
  // prettier-ignore
  it.each<[string, Metal3DataTemplateSpec, unknown]>([
    ['none', {}, []],
    ['metaData lists, one entry per name, sorted', { metaData: { prefixesFromPool: [entry('z')], ipAddressesFromPool: [entry('a'), entry('z')] } }, [`a:${M3}`, `z:${M3}`]],
    ['dnsServersFromPool claims too', { metaData: { dnsServersFromPool: [entry('dns')] } }, [`dns:${M3}`]],
    ['a metaData entry naming another apiGroup/kind is the Metal3 IPPool of that name', { metaData: { gatewaysFromPool: [entry('p', IN_CLUSTER)] } }, [`p:${M3}`]],
    ['fromPoolRef of another kind: a Cluster API pool', v4({ fromPoolRef: { name: 'p', ...IN_CLUSTER } }), ['p:InClusterIPPool.ipam.cluster.x-k8s.io']],
    ['fromPoolRef with a kind only: the group defaults to ipam.metal3.io', v4({ fromPoolRef: { name: 'p', kind: 'InClusterIPPool' } }), ['p:InClusterIPPool.ipam.metal3.io']],
    ['fromPoolRef with a group only: the kind defaults to IPPool', v4({ fromPoolRef: { name: 'p', apiGroup: 'ipam.cluster.x-k8s.io' } }), ['p:IPPool.ipam.cluster.x-k8s.io']],
    ['fromPoolRef wins over ipAddressFromIPPool', v4({ fromPoolRef: { name: 'ref' }, ipAddressFromIPPool: 'named' }), [`ref:${M3}`]],
    ['fromPoolAnnotation and fromPoolRef both claim', v4({ fromPoolAnnotation: fromMachine, fromPoolRef: { name: 'ref', ...IN_CLUSTER } }), [`from-machine:${M3}`, 'ref:InClusterIPPool.ipam.cluster.x-k8s.io']],
    ['fromPoolAnnotation and ipAddressFromIPPool both claim', v4({ fromPoolAnnotation: { object: 'metal3machine', annotation: 'pool' }, ipAddressFromIPPool: 'named' }), [`from-m3m:${M3}`, `named:${M3}`]],
    ['a literal gateway still claims its fromIPPool', v4({ ipAddressFromIPPool: 'a', routes: [route({ string: '10.0.0.1', fromIPPool: 'gw' })] }), [`a:${M3}`, `gw:${M3}`]],
    ['a literal gateway still claims its fromPoolAnnotation', v4({ ipAddressFromIPPool: 'a', routes: [route({ string: '10.0.0.1', fromPoolAnnotation: fromMachine })] }), [`a:${M3}`, `from-machine:${M3}`]],
    ['route fromPoolRef wins over fromIPPool', v4({ ipAddressFromIPPool: 'a', routes: [route({ fromPoolRef: { name: 'gw', ...IN_CLUSTER }, fromIPPool: 'other' })] }), [`a:${M3}`, 'gw:InClusterIPPool.ipam.cluster.x-k8s.io']],
    ['DHCP routes: fromPoolRef and fromIPPool claim', dhcp([route({ fromPoolRef: { name: 'gw', ...IN_CLUSTER } }), route({ fromIPPool: 'b' })]), ['b:IPPool.ipam.metal3.io', 'gw:InClusterIPPool.ipam.cluster.x-k8s.io']],
    ['DHCP routes: a fromPoolAnnotation is not claimed', dhcp([route({ fromPoolAnnotation: fromMachine })]), []],
    ['route and global dnsFromIPPool', dhcp([route({}, { dnsFromIPPool: 'c' })], { dnsFromIPPool: 'd' }), [`c:${M3}`, `d:${M3}`]],
    ['an annotation reference with both fields empty is none', v4({ fromPoolAnnotation: { object: '', annotation: '' }, ipAddressFromIPPool: 'a' }), [`a:${M3}`]],
    ['the same pool named twice, once with the defaults spelled out', v4({ ipAddressFromIPPool: 'p', routes: [route({ fromPoolRef: { name: 'p', apiGroup: 'ipam.metal3.io', kind: 'IPPool' } })] }), [`p:${M3}`]],
    ['waits while the annotated object is unknown', v4({ fromPoolAnnotation: { object: 'baremetalhost', annotation: 'pool' } }), { waitingFor: 'the baremetalhost whose annotation pool names the pool' }],
  ])('%s', (_name, spec, expected) => {
    expect(names(templatePools(spec, lookup))).toEqual(expected);
  });

  // prettier-ignore
  it.each<[string, Metal3DataTemplateSpec, RegExp]>([
    ['a metaData name that networkData uses with another kind', { ...v4({ fromPoolRef: { name: 'p', ...IN_CLUSTER } }), metaData: { ipAddressesFromPool: [entry('p', IN_CLUSTER)] } }, /pool p is referenced both as IPPool.ipam.metal3.io and as InClusterIPPool.ipam.cluster.x-k8s.io/u],
    ['an annotation naming no pool', v4({ fromPoolAnnotation: { object: 'machine', annotation: 'empty' } }), /annotation empty on the machine must name an IP pool/u],
    ['an empty annotation behind a literal gateway', v4({ ipAddressFromIPPool: 'a', routes: [route({ string: '10.0.0.1', fromPoolAnnotation: { object: 'machine', annotation: 'empty' } })] }), /must name an IP pool/u],
  ])('error: %s', (_name, spec, message) => {
    expect(() => templatePools(spec, lookup)).toThrow(message);
  });
});

describe('pool kinds', () => {
  // prettier-ignore
  it.each<[string, [string, string], { apiGroup: string; kind: string }, boolean]>([
    ['both empty', ['', ''], { apiGroup: 'ipam.metal3.io', kind: 'IPPool' }, true],
    ["Metal3's own", ['ipam.metal3.io', 'IPPool'], { apiGroup: 'ipam.metal3.io', kind: 'IPPool' }, true],
    ['a kind in the empty group', ['', 'InClusterIPPool'], { apiGroup: 'ipam.metal3.io', kind: 'InClusterIPPool' }, false],
    ['IPPool of another group', ['ipam.cluster.x-k8s.io', ''], { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'IPPool' }, false],
    ['in-cluster', ['ipam.cluster.x-k8s.io', 'InClusterIPPool'], { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }, false],
  ])('%s: %j', (_name, [apiGroup, kind], defaulted, metal3) => {
    const use = poolUse('p', apiGroup, kind);
    expect(use).toEqual({ name: 'p', ...defaulted });
    expect(isMetal3Pool(use)).toBe(metal3);
  });
});
