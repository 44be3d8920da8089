// The CRD conversion webhook through a real kube-apiserver: the local environment serves POST
// /convert over HTTPS on the hook server's conversion listener and points every CRD with a
// Webhook conversion at it (devenv/conversion.ts), so objects of the
// infrastructure.cluster.x-k8s.io kinds can be written and read in v1beta1 and in v1beta2 (the
// storage version).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from './support.js';
import { apply, createNamespace, getJSON, openCluster } from './support.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';
const V1BETA1 = `${GROUP}/v1beta1`;
const V1BETA2 = `${GROUP}/v1beta2`;

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

/** `<plural>.<version>.<group>`: kubectl reads and lists in exactly that version. */
const resource = (plural: string, apiVersion: string): string => `${plural}.${apiVersion.split('/')[1] ?? ''}.${GROUP}`;

const V1BETA1_META = {
  strings: [{ key: 'role', value: 'worker' }],
  indexes: [{ key: 'local-hostname', prefix: 'worker-', offset: 0, step: 1 }],
  ipAddressesFromIPPool: [{ key: 'ip_address', name: 'provisioning' }],
  prefixesFromIPPool: [{ key: 'prefix', name: 'provisioning' }],
  gatewaysFromIPPool: [{ key: 'gateway', name: 'provisioning' }],
  dnsServersFromIPPool: [{ key: 'dns', name: 'provisioning' }],
};

/** A v1beta1 template using every renamed metaData list and a bond with a parameters map. */
const legacyTemplate: Obj = {
  apiVersion: V1BETA1,
  kind: 'Metal3DataTemplate',
  metadata: { name: 'legacy', labels: { 'cluster.x-k8s.io/cluster-name': 'conv' } },
  spec: {
    clusterName: 'conv',
    metaData: V1BETA1_META,
    networkData: {
      links: {
        ethernets: [{ type: 'phy', id: 'eno1', mtu: 1500, macAddress: { fromHostInterface: 'eno1' } }],
        bonds: [
          {
            id: 'bond0',
            bondMode: '802.3ad',
            bondLinks: ['eno1'],
            mtu: 1500,
            macAddress: { fromHostInterface: 'eno1' },
            parameters: { miimon: 100, lacp_rate: 'fast' },
          },
        ],
      },
    },
  },
};

/** A v1beta2 template with a field v1beta1 cannot hold (fromBootMAC). */
const currentTemplate: Obj = {
  apiVersion: V1BETA2,
  kind: 'Metal3DataTemplate',
  metadata: { name: 'current', labels: { 'cluster.x-k8s.io/cluster-name': 'conv' } },
  spec: {
    clusterName: 'conv',
    metaData: {
      ipAddressesFromPool: [{ key: 'ip_address', name: 'provisioning' }],
      fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }],
    },
  },
};

const keysOf = (value: unknown): string[] => Object.keys(value ?? {}).sort();

describe('conversion webhook through kube-apiserver', () => {
  let cluster: Cluster;
  let namespace = '';

  beforeAll(async () => {
    cluster = await openCluster();
    namespace = await createNamespace(cluster.env, 'conversion');
    await apply(cluster.env, JSON.stringify(legacyTemplate), namespace);
    await apply(cluster.env, JSON.stringify(currentTemplate), namespace);
  }, 300_000);

  afterAll(async () => {
    await cluster.close();
  });

  const read = (plural: string, apiVersion: string, name: string): Promise<Obj> => getJSON<Obj>(cluster.env, namespace, resource(plural, apiVersion), name);
  const list = async (plural: string, apiVersion: string): Promise<Obj[]> =>
    (await getJSON<{ items: Obj[] }>(cluster.env, namespace, resource(plural, apiVersion))).items;

  it('points every Webhook conversion of the installed CRDs at the HTTPS conversion listener', async () => {
    const crds = JSON.parse(await cluster.env.kubectl('get', 'crd', '-o', 'json')) as {
      items: {
        metadata: { name: string };
        spec: { conversion?: { strategy: string; webhook?: { clientConfig?: { url?: string; caBundle?: string; service?: unknown } } } };
      }[];
    };
    const webhooks = crds.items.filter((crd) => crd.spec.conversion?.strategy === 'Webhook');
    expect(webhooks.map((crd) => crd.metadata.name)).toContain(`metal3datatemplates.${GROUP}`);
    for (const crd of webhooks) {
      const config = crd.spec.conversion?.webhook?.clientConfig;
      expect(config?.url, crd.metadata.name).toBe(cluster.env.conversion.url);
      expect(config?.service, crd.metadata.name).toBeUndefined();
      expect(config?.caBundle, crd.metadata.name).toMatch(/^[A-Za-z0-9+/]+=*$/);
    }
  });

  it('stores a v1beta1 Metal3DataTemplate as v1beta2: *FromIPPool lists become *FromPool, bond parameters a list', async () => {
    const stored = await read('metal3datatemplates', V1BETA2, 'legacy');
    expect(stored.apiVersion).toBe(V1BETA2);
    const meta = stored.spec.metaData as Record<string, unknown>;
    expect(keysOf(meta)).toEqual(['dnsServersFromPool', 'gatewaysFromPool', 'indexes', 'ipAddressesFromPool', 'prefixesFromPool', 'strings']);
    expect(meta.ipAddressesFromPool).toEqual(V1BETA1_META.ipAddressesFromIPPool);
    expect(meta.dnsServersFromPool).toEqual(V1BETA1_META.dnsServersFromIPPool);
    const bond = (stored.spec.networkData as { links: { bonds: { parameters: unknown }[] } }).links.bonds[0];
    expect(bond?.parameters).toEqual([
      { name: 'lacp_rate', value: 'fast' },
      { name: 'miimon', value: 100 },
    ]);
  });

  it('reads the v1beta1 object back in v1beta1 exactly as it was written', async () => {
    const back = await read('metal3datatemplates', V1BETA1, 'legacy');
    expect(back.apiVersion).toBe(V1BETA1);
    expect(back.spec).toEqual(legacyTemplate.spec);
    expect(back.metadata.annotations?.['conversion.ironhook.dev/v1beta2']).toBeUndefined();
  });

  it('lists both templates in either version, each in that version', async () => {
    const [old, current] = [await list('metal3datatemplates', V1BETA1), await list('metal3datatemplates', V1BETA2)];
    expect(old.map((o) => o.metadata.name).sort()).toEqual(['current', 'legacy']);
    expect(current.map((o) => o.metadata.name).sort()).toEqual(['current', 'legacy']);
    for (const o of old) expect(o.apiVersion).toBe(V1BETA1);
    for (const o of current) expect(o.apiVersion).toBe(V1BETA2);
    expect(keysOf(old.find((o) => o.metadata.name === 'current')?.spec.metaData)).toEqual(['fromHostInterfaces', 'ipAddressesFromIPPool']);
    expect(keysOf(current.find((o) => o.metadata.name === 'legacy')?.spec.metaData)).toContain('ipAddressesFromPool');
  });

  it('keeps a v1beta2-only field through a write in v1beta1', async () => {
    const old = await read('metal3datatemplates', V1BETA1, 'current');
    expect(old.metadata.annotations?.['conversion.ironhook.dev/v1beta2'], 'v1beta1 keeps fromBootMAC in the annotation').toContain('fromBootMAC');
    await cluster.env.kubectl('label', '-n', namespace, resource('metal3datatemplates', V1BETA1), 'current', 'written-through=v1beta1');
    const current = await read('metal3datatemplates', V1BETA2, 'current');
    expect(current.metadata.labels?.['written-through']).toBe('v1beta1');
    expect(current.spec).toEqual(currentTemplate.spec);
    expect(current.metadata.annotations?.['conversion.ironhook.dev/v1beta2']).toBeUndefined();
  });

  it('converts a Metal3DataClaim written in v1beta1', async () => {
    const claim = { apiVersion: V1BETA1, kind: 'Metal3DataClaim', metadata: { name: 'worker-0' }, spec: { template: { name: 'legacy' } } };
    await apply(cluster.env, JSON.stringify(claim), namespace);
    const current = await read('metal3dataclaims', V1BETA2, 'worker-0');
    expect(current.apiVersion).toBe(V1BETA2);
    expect((current.spec.template as { name: string }).name).toBe('legacy');
    expect((await read('metal3dataclaims', V1BETA1, 'worker-0')).spec).toEqual(claim.spec);
  });

  it('reads a v1beta1 Metal3Machine image.format as v1beta2 image.diskFormat, and back', async () => {
    const image = {
      url: 'http://images.example/ubuntu.qcow2',
      checksum: 'http://images.example/ubuntu.qcow2.sha256sum',
      checksumType: 'sha256',
      format: 'qcow2',
    };
    const machine = { apiVersion: V1BETA1, kind: 'Metal3Machine', metadata: { name: 'worker-0' }, spec: { image } };
    await apply(cluster.env, JSON.stringify(machine), namespace);
    const current = await read('metal3machines', V1BETA2, 'worker-0');
    const { format, ...rest } = image;
    expect(current.spec.image).toEqual({ ...rest, diskFormat: format });
    expect((await read('metal3machines', V1BETA1, 'worker-0')).spec.image).toEqual(image);
  });
});
