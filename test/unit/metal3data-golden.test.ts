// The Secrets in the metal3data golden fixtures, decoded and compared with text written by hand
// from upstream's documented output, so a fixture regenerated from wrong output
// cannot pass unnoticed. Also upstream's two one-line examples, rendered directly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMetaData } from '../../domain/metal3data/metadata.js';
import { renderNetworkData } from '../../domain/metal3data/networkdata.js';
import type { RenderContext } from '../../domain/metal3data/context.js';
import type { KObject } from '../../domain/k8s.js';

const FIXTURES_ROOT = join(import.meta.dirname, '..', 'fixtures');

interface SecretChild {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

function secretsOf(scenario: string): Map<string, { labels: Record<string, string>; type: string | undefined; text: Record<string, string> }> {
  const response = JSON.parse(readFileSync(join(FIXTURES_ROOT, 'metal3data', scenario, 'response.json'), 'utf8')) as { children: SecretChild[] };
  const out = new Map<string, { labels: Record<string, string>; type: string | undefined; text: Record<string, string> }>();
  for (const child of response.children.filter((c) => c.kind === 'Secret')) {
    const text = Object.fromEntries(Object.entries(child.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    out.set(child.metadata.name, { labels: child.metadata.labels ?? {}, type: child.type, text });
  }
  return out;
}

// upstream's worked example, verbatim
const WORKED_META = `idx: node-0
name: w-abc-m
provIP: 192.168.0.10
providerid: metal3/node-3/w-abc
`;
const WORKED_NETWORK = `links:
- ethernet_mac_address: 52:54:00:aa:bb:cc
  id: enp1s0
  mtu: 1500
  type: phy
networks:
- id: net0
  ip_address: 192.168.0.10
  link: enp1s0
  netmask: 255.255.255.0
  routes:
  - gateway: 192.168.0.1
    netmask: 0.0.0.0
    network: 0.0.0.0
    services: []
  type: ipv4
services:
- address: 8.8.4.4
  type: dns
`;

/** The seed's template (examples/capm3/seed-workers.yaml) for worker N on server-0N+1. */
function seedMeta(index: number, m3m: string, host: string): string {
  return `index: "${String(index)}"
ip_address: 192.168.1.1${String(index)}
local-hostname: worker-${String(index)}
metal3machine: ${m3m}
namespace: metal3
providerid: metal3/${host}/${m3m}
`;
}

function seedNetwork(index: number, mac: string): string {
  return `links:
- ethernet_mac_address: ${mac}
  id: eno1
  mtu: 1500
  type: phy
networks:
- id: provisioning
  ip_address: 192.168.1.1${String(index)}
  link: eno1
  netmask: 255.255.255.0
  routes:
  - gateway: 192.168.1.1
    netmask: 0.0.0.0
    network: 0.0.0.0
    services: []
  type: ipv4
services:
- address: 192.168.1.1
  type: dns
`;
}

describe('golden Secrets (fixtures decoded)', () => {
  it('upstream worked example: w-abc-metadata and w-abc-networkdata exactly as the upstream example shows', () => {
    const secrets = secretsOf('upstream-worked-example');
    expect([...secrets.keys()]).toEqual(['w-abc-metadata', 'w-abc-networkdata']);
    expect(secrets.get('w-abc-metadata')).toEqual({
      labels: { 'cluster.x-k8s.io/cluster-name': 'test1' },
      type: 'infrastructure.cluster.x-k8s.io/secret',
      text: { metaData: WORKED_META },
    });
    expect(secrets.get('w-abc-networkdata')?.text).toEqual({ networkData: WORKED_NETWORK });
  });

  it('existing Secrets are returned unchanged although the host was re-inspected since', () => {
    const secrets = secretsOf('secrets-exist-never-rendered-again');
    expect(secrets.get('w-abc-metadata')?.text).toEqual({ metaData: WORKED_META });
    expect(secrets.get('w-abc-networkdata')?.text).toEqual({ networkData: WORKED_NETWORK });
  });

  it.each([
    [0, 'workers-xk4pq', 'server-01', '00:1a:2b:3c:4d:5e'],
    [1, 'workers-k4pq7', 'server-02', '00:1a:2b:3c:4d:6f'],
  ])('seed: worker-%i gets 192.168.1.1%i', (index, m3m, host, mac) => {
    const secrets = secretsOf(`seed-worker-${String(index)}`);
    expect(secrets.get(`${m3m}-metadata`)?.text).toEqual({ metaData: seedMeta(index, m3m, host) });
    expect(secrets.get(`${m3m}-networkdata`)?.text).toEqual({ networkData: seedNetwork(index, mac) });
    expect(secrets.get(`${m3m}-metadata`)?.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'seed' });
  });
});

const obj = (name: string, namespace = 'ns1', extra: Partial<KObject> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name, namespace },
  ...extra,
});

describe("upstream's one-line examples", () => {
  const ctx: RenderContext = {
    namespace: 'ns1',
    index: 0,
    metal3Machine: obj('m3m-0'),
    machine: obj('machine-0'),
    host: obj('bmh-0', 'ns1', { status: { hardware: { nics: [{ name: 'eth0', mac: '12:34:56:78:9A:BC' }] } } }),
    addresses: new Map(),
  };

  it('metaData with one string', () => {
    expect(renderMetaData({ strings: [{ key: 'String-1', value: 'String-1' }] }, ctx)).toBe('String-1: String-1\nproviderid: ns1/bmh-0/m3m-0\n');
  });

  it('networkData with one ethernet and nothing else', () => {
    const text = renderNetworkData({ links: { ethernets: [{ type: 'phy', id: 'eth0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' } }] } }, ctx);
    expect(text).toBe('links:\n- ethernet_mac_address: 12:34:56:78:9A:BC\n  id: eth0\n  mtu: 1500\n  type: phy\nnetworks: []\nservices: []\n');
  });
});
