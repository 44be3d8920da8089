// The IPAM CRDs and Metacontroller objects: identity as upstream, printer columns, the examples
// against the OpenAPI schemas, the invalid examples by layer, what the hooks write fits the
// schemas, and manifests/controllers/ipam.yaml routes to hooks that exist. CEL runs against a real
// API server only (examples/ipam/invalid/cases.yaml lists the messages).
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ipamHooks } from '../../hooks/ipam/index.js';
import { ipclaimSync } from '../../hooks/ipam/ipclaim.js';
import type { KObject } from '../../domain/k8s.js';
import { EXAMPLES_DIR, ROOT, crdByKind, exampleFiles, loadCrds, readManifests, schemaErrors, type PrinterColumn } from '../support/crds.js';
import { PoolWorld } from '../fixtures/ippool/world.js';
import { claim, pool, poolRequest } from '../../devenv/builders/ippool.js';
import { ippoolSync } from '../../hooks/ipam/ippool.js';

const crds = loadCrds();

// prettier-ignore
const IDENTITIES = [
  { kind: 'IPPool', plural: 'ippools', shortNames: ['ipp', 'ippool', 'm3ipp', 'm3ippool', 'm3ippools', 'metal3ipp', 'metal3ippool', 'metal3ippools'], categories: ['cluster-api'], status: true },
  { kind: 'IPClaim', plural: 'ipclaims', shortNames: ['ipc', 'ipclaim', 'm3ipc', 'm3ipclaim', 'm3ipclaims', 'metal3ipc', 'metal3ipclaim', 'metal3ipclaims'], categories: ['cluster-api'], status: true },
  { kind: 'IPAddress', plural: 'ipaddresses', shortNames: ['ipa', 'ipaddress', 'm3ipa', 'm3ipaddress', 'm3ipaddresses', 'metal3ipa', 'metal3ipaddress', 'metal3ipaddresses'], categories: ['metal3'], status: false },
];

describe('IPAM CRD identity (upstream names, short names and categories)', () => {
  it.each(IDENTITIES)('$kind', (want) => {
    const { crd, file, version } = crdByKind(crds, want.kind);
    expect(file).toBe(`ipam.metal3.io_${want.plural}.yaml`);
    expect(crd.metadata.name).toBe(`${want.plural}.ipam.metal3.io`);
    expect(crd.spec).toMatchObject({ group: 'ipam.metal3.io', scope: 'Namespaced' });
    expect(crd.spec.names).toEqual({
      categories: want.categories,
      kind: want.kind,
      listKind: `${want.kind}List`,
      plural: want.plural,
      shortNames: want.shortNames,
      singular: want.kind.toLowerCase(),
    });
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha1', true, true]]);
    // A CompositeController parent needs the status subresource; IPAddress (a child) has none, as upstream.
    expect(version.subresources?.status !== undefined).toBe(want.status);
  });

  it('IPPool defaults allocationStrategy to sequential and requires namePrefix', () => {
    const spec = crdByKind(crds, 'IPPool').schema.properties!.spec!;
    expect(spec.required).toEqual(['namePrefix']);
    expect(spec.properties!.allocationStrategy).toMatchObject({ default: 'sequential', enum: ['sequential', 'random'] });
  });
});

const col = (c: PrinterColumn): string => `${c.name} ${c.jsonPath}${c.priority === undefined ? '' : ' (wide)'}`;

describe('printer columns', () => {
  it.each([
    [
      'IPPool',
      [
        'Cluster .spec.clusterName',
        'Capacity .status.capacity',
        'Allocated .status.ironhook.allocatedIPCount',
        'Available IPs .status.availableIPCount',
        'Ready .status.conditions[?(@.type=="Ready")].status',
        'Error .status.ironhook.errors[0] (wide)',
        'Capacity Capped .status.capacityCapped (wide)',
        'Age .metadata.creationTimestamp',
      ],
    ],
    ['IPClaim', ['Pool .spec.pool.name', 'Address .status.address.name', 'Error .status.errorMessage', 'Age .metadata.creationTimestamp']],
    ['IPAddress', ['Address .spec.address', 'Prefix .spec.prefix', 'Pool .spec.pool.name', 'Claim .spec.claim.name', 'Age .metadata.creationTimestamp']],
  ])('%s', (kind, want) => {
    expect((crdByKind(crds, kind).version.additionalPrinterColumns ?? []).map(col)).toEqual(want);
  });
});

function ipamObjects(path: string): KObject[] {
  return readManifests(path).filter((o) => ['IPPool', 'IPClaim', 'IPAddress'].includes(o.kind));
}

describe('examples/ipam', () => {
  const examples = exampleFiles('ipam').flatMap((path) => ipamObjects(path).map((o) => [`${basename(path)} ${o.kind}/${o.metadata.name ?? ''}`, o] as const));

  it('include upstream’s documented pool, metal3-dev-env’s pools and an IPv6 pool', () => {
    expect(exampleFiles('ipam').map((p) => basename(p))).toEqual([
      'capi-ipaddressclaim.yaml',
      'ipv6-pool.yaml',
      'metal3-dev-env-pools.yaml',
      'upstream-ippool.yaml',
    ]);
  });

  it.each(examples)('%s validates against its CRD schema', (_name, object) => {
    expect(schemaErrors(crdByKind(crds, object.kind), object)).toEqual([]);
  });
});

interface Case {
  file: string;
  layer: 'schema' | 'cel';
  expect: string;
}

describe('examples/ipam/invalid', () => {
  const [doc] = readManifests(join(EXAMPLES_DIR, 'ipam', 'invalid', 'cases.yaml')) as unknown as { cases: Case[] }[];
  const cases = doc!.cases;

  it('cases.yaml lists every file once', () => {
    expect(cases.map((c) => c.file).sort()).toEqual(exampleFiles(join('ipam', 'invalid')).map((p) => basename(p)));
  });

  it.each(cases.map((c) => [c.file, c] as const))('%s fails exactly at its layer', (file, c) => {
    const objects = ipamObjects(join(EXAMPLES_DIR, 'ipam', 'invalid', file));
    expect(objects).toHaveLength(1);
    const errors = schemaErrors(crdByKind(crds, objects[0]!.kind), objects[0]);
    if (c.layer === 'schema') expect(errors).not.toEqual([]);
    else expect(errors).toEqual([]);
  });
});

describe('what the hooks write fits the schemas', () => {
  const world = new PoolWorld({
    namePrefix: 'pool1',
    pools: [{ start: '10.0.0.1', end: '10.0.0.2', gateway: '10.0.0.254', dnsServers: ['10.0.0.53'] }],
    prefix: 24,
    preAllocations: { z: '10.9.9.9' },
  });
  for (const name of ['a', 'b', 'c']) world.addClaim(name);
  world.syncPool();
  world.syncClaims();

  it('IPPool status, including claim errors and pool problems', () => {
    const status = world.pool.status as Record<string, unknown>;
    expect((status.ironhook as Record<string, unknown>).errors).toBeDefined();
    expect(schemaErrors(crdByKind(crds, 'IPPool'), { ...world.pool, spec: { namePrefix: 'pool1' } })).toEqual([]);
  });

  it('a capped, blocked pool status', () => {
    const big = pool('pool1', { namePrefix: 'p', pools: [{ subnet: '2001:db8::/64' }] }, { deletionTimestamp: '2026-11-29T16:00:00Z' });
    const response = ippoolSync(poolRequest({ pool: big, claims: [claim('a')] }));
    expect(schemaErrors(crdByKind(crds, 'IPPool'), { ...big, status: response.status })).toEqual([]);
  });

  it('IPAddress children', () => {
    expect(world.children()).toHaveLength(2);
    for (const child of world.children()) expect(schemaErrors(crdByKind(crds, 'IPAddress'), child)).toEqual([]);
  });

  it('IPClaim status, with an address and with an error', () => {
    for (const obj of world.claims.values()) expect(schemaErrors(crdByKind(crds, 'IPClaim'), obj)).toEqual([]);
    expect(world.claims.get('c')?.status).toEqual({ errorMessage: 'Exhausted IP Pools' });
    const response = ipclaimSync({ parent: claim('x'), children: {}, related: {}, finalizing: false });
    expect(response.status).toEqual({});
  });
});

interface Rule {
  apiVersion: string;
  resource: string;
  updateStrategy?: { method?: string };
}

interface ControllerObject {
  kind: string;
  metadata: { name: string };
  spec: { parentResource?: Rule; childResources?: Rule[]; resources?: Rule[]; hooks: Record<string, { version?: string; webhook?: { url?: string } }> };
}

describe('manifests/controllers/ipam.yaml', () => {
  const objects = readManifests(join(ROOT, 'manifests', 'controllers', 'ipam.yaml')) as unknown as ControllerObject[];

  it('has the three controllers the hooks expect (names match the finalizers and routes)', () => {
    expect(objects.map((o) => [o.kind, o.metadata.name])).toEqual([
      ['CompositeController', 'ironhook-ippool'],
      ['CompositeController', 'ironhook-ipclaim'],
      ['DecoratorController', 'ipaddressclaim-ipam'],
    ]);
  });

  it.each(objects.map((o) => [o.metadata.name, o] as const))('%s: every hook is v2 and routed to an existing hook function', (_name, o) => {
    for (const [kind, hook] of Object.entries(o.spec.hooks)) {
      expect(hook.version).toBe('v2');
      const match = /\/hooks\/([^/]+)\/(sync|finalize|customize)$/u.exec(hook.webhook?.url ?? '');
      expect(match?.[2]).toBe(kind);
      expect(ipamHooks[match?.[1] ?? '']?.[kind as 'sync']).toBeTypeOf('function');
    }
  });

  it('parents have the status subresource and children are OnDelete (IPAddresses are immutable)', () => {
    const [ippool, ipclaim] = objects;
    expect(ippool!.spec.parentResource).toMatchObject({ apiVersion: 'ipam.metal3.io/v1alpha1', resource: 'ippools' });
    expect(ipclaim!.spec.parentResource).toMatchObject({ apiVersion: 'ipam.metal3.io/v1alpha1', resource: 'ipclaims' });
    expect(crdByKind(crds, 'IPPool').version.subresources?.status).toEqual({});
    expect(crdByKind(crds, 'IPClaim').version.subresources?.status).toEqual({});
    expect(ippool!.spec.childResources).toEqual([
      { apiVersion: 'ipam.metal3.io/v1alpha1', resource: 'ipaddresses', updateStrategy: { method: 'OnDelete' } },
      { apiVersion: 'ipam.cluster.x-k8s.io/v1beta2', resource: 'ipaddresses', updateStrategy: { method: 'OnDelete' } },
    ]);
    expect(ipclaim!.spec.childResources).toEqual([]);
  });
});
