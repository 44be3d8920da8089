// Per-node data through the local environment (kube-apiserver, upstream Metacontroller, the
// hook server, the IPAM controllers): claims of a Metal3DataTemplate get distinct indexes and
// addresses and rendered Secrets; deleting one claim and adding two moves nothing.
//
// The test plays the Cluster API provider: its Metal3Machines belong to a Cluster that does not
// exist, so the real Metal3Machine controller leaves them waiting, and the test creates their
// claims itself (capm3-data.test.ts has the provider create them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, createNamespace, getJSON, openCluster } from './support.js';
import { addWorker } from './metal3data-worker.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';

const POOL = `apiVersion: ipam.metal3.io/v1alpha1
kind: IPPool
metadata: {name: provisioning}
spec:
  namePrefix: e2e-provisioning
  pools:
  - {start: 192.168.1.10, end: 192.168.1.40}
  prefix: 24
  gateway: 192.168.1.1
  dnsServers: [192.168.1.1]
`;

const TEMPLATE = `apiVersion: ${GROUP}/v1beta2
kind: Metal3DataTemplate
metadata:
  name: workers
  labels: {cluster.x-k8s.io/cluster-name: e2e}
spec:
  clusterName: e2e
  metaData:
    indexes:
    - {key: local-hostname, prefix: worker-}
    ipAddressesFromPool:
    - {key: ip_address, name: provisioning, apiGroup: ipam.metal3.io, kind: IPPool}
    fromHostInterfaces:
    - {key: boot_mac, fromBootMAC: true}
  networkData:
    links:
      ethernets:
      - type: phy
        id: eno1
        macAddress:
          fromAnnotation: {object: baremetalhost, annotation: example.com/eno1-mac}
    networks:
      ipv4:
      - id: provisioning
        link: eno1
        ipAddressFromIPPool: provisioning
        routes:
        - network: 0.0.0.0
          gateway: {fromIPPool: provisioning}
    services:
      dnsFromIPPool: provisioning
`;

interface Named {
  metadata: { name: string; uid: string; resourceVersion: string; deletionTimestamp?: string };
}
interface DataView extends Named {
  spec: { index: number; claim: { name: string } };
  status?: { ready?: boolean; errorMessage?: string; ironhook?: { addresses?: Record<string, string> } };
}
interface SecretView extends Named {
  data: Record<string, string>;
}

let cluster: Cluster;

beforeAll(async () => {
  cluster = await openCluster();
});

afterAll(async () => {
  await cluster.close();
});

interface Snapshot {
  data: Map<string, DataView>;
  secrets: Map<string, SecretView>;
}

async function snapshot(namespace: string): Promise<Snapshot> {
  const datas = await getJSON<{ items: DataView[] }>(cluster.env, namespace, `metal3datas.${GROUP}`);
  const secrets = await getJSON<{ items: SecretView[] }>(cluster.env, namespace, 'secrets');
  return {
    data: new Map(datas.items.filter((d) => d.metadata.deletionTimestamp === undefined).map((d) => [d.spec.claim.name, d])),
    secrets: new Map(secrets.items.map((s) => [s.metadata.name, s])),
  };
}

/** Waits until exactly `claims` have ready data with an address and both Secrets. */
async function settled(namespace: string, claims: string[]): Promise<Snapshot> {
  let last: Snapshot = { data: new Map(), secrets: new Map() };
  await waitFor(
    `ready data for ${claims.join(', ')}`,
    async () => {
      last = await snapshot(namespace);
      const complete = claims.every(
        (c) => last.data.get(c)?.status?.ready === true && last.secrets.has(`${c}-metadata`) && last.secrets.has(`${c}-networkdata`),
      );
      return complete && last.data.size === claims.length;
    },
    180_000,
    500,
  );
  return last;
}

const decode = (secret: SecretView | undefined, key: string): string => Buffer.from(secret?.data[key] ?? '', 'base64').toString('utf8');
const addressOf = (d: DataView | undefined): string => d?.status?.ironhook?.addresses?.provisioning ?? '';

function expectConsistent(snap: Snapshot, claim: string): void {
  const d = snap.data.get(claim)!;
  const meta = decode(snap.secrets.get(`${claim}-metadata`), 'metaData');
  const host = `host-${claim.slice(2)}`;
  expect(d.metadata.name).toBe(`workers-${String(d.spec.index)}`);
  expect(meta).toContain(`local-hostname: worker-${String(d.spec.index)}\n`);
  expect(meta).toContain(`ip_address: ${addressOf(d)}\n`);
  expect(meta).toMatch(new RegExp(`providerid: [^/]+/${host}/${claim}\n`, 'u'));
  expect(decode(snap.secrets.get(`${claim}-networkdata`), 'networkData')).toContain(`ip_address: ${addressOf(d)}\n`);
}

/** The surviving claims keep their Metal3Data (same object), index, address and Secrets (never rewritten). */
function expectNothingMoved(before: Snapshot, after: Snapshot, claims: string[]): void {
  for (const c of claims) {
    const was = before.data.get(c)!;
    const now = after.data.get(c)!;
    expect([now.metadata.uid, now.spec.index, addressOf(now)], `${c} did not move`).toEqual([was.metadata.uid, was.spec.index, addressOf(was)]);
    for (const suffix of ['metadata', 'networkdata']) {
      expect(after.secrets.get(`${c}-${suffix}`)?.metadata.resourceVersion, `${c}-${suffix} was not rewritten`).toBe(
        before.secrets.get(`${c}-${suffix}`)?.metadata.resourceVersion,
      );
    }
  }
}

describe('Metal3DataTemplate / Metal3Data / Metal3DataClaim through Metacontroller', () => {
  it('5 claims get 5 distinct indexes and addresses; deleting one and adding two moves nothing', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'm3data');
    await apply(env, POOL, namespace);
    await apply(env, TEMPLATE, namespace);

    // The first worker alone: index 0, the pool's first address (the seed's worker-0 → 192.168.1.10).
    await addWorker(cluster.env, namespace, 0);
    const first = await settled(namespace, ['w-0']);
    expect(first.data.get('w-0')?.spec.index).toBe(0);
    expect(addressOf(first.data.get('w-0'))).toBe('192.168.1.10');
    expect(decode(first.secrets.get('w-0-metadata'), 'metaData')).toBe(
      `boot_mac: 52:54:00:aa:00:00\nip_address: 192.168.1.10\nlocal-hostname: worker-0\nproviderid: ${namespace}/host-0/w-0\n`,
    );

    for (const n of [1, 2, 3, 4]) await addWorker(cluster.env, namespace, n);
    const five = ['w-0', 'w-1', 'w-2', 'w-3', 'w-4'];
    const before = await settled(namespace, five);
    expect(new Set(five.map((c) => before.data.get(c)?.spec.index))).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(new Set(five.map((c) => addressOf(before.data.get(c)))).size).toBe(5);
    for (const c of five) expectConsistent(before, c);
    const claimStatus = await getJSON<{ status?: { renderedData?: { name: string } } }>(env, namespace, `metal3dataclaims.${GROUP}`, 'w-3');
    expect(claimStatus.status?.renderedData?.name).toBe(before.data.get('w-3')?.metadata.name);

    const removed = 'w-2';
    const freedIndex = before.data.get(removed)!.spec.index;
    const freedAddress = addressOf(before.data.get(removed));
    await env.kubectl('delete', `metal3dataclaims.${GROUP}`, removed, '-n', namespace, '--wait=false');
    const kept = five.filter((c) => c !== removed);
    await settled(namespace, kept);
    await waitFor(
      `the IPClaim of ${removed} to be released`,
      async () => {
        const claims = await getJSON<{ items: Named[] }>(env, namespace, 'ipclaims');
        return claims.items.length === 4;
      },
      120_000,
      500,
    );

    await addWorker(cluster.env, namespace, 5);
    await addWorker(cluster.env, namespace, 6);
    const after = await settled(namespace, [...kept, 'w-5', 'w-6']);
    expectNothingMoved(before, after, kept);
    const newIndexes = [after.data.get('w-5')!.spec.index, after.data.get('w-6')!.spec.index].sort();
    expect(newIndexes).toEqual([freedIndex, 5].sort());
    const all = [...kept, 'w-5', 'w-6'];
    expect(new Set(all.map((c) => after.data.get(c)?.spec.index)).size).toBe(6);
    expect(new Set(all.map((c) => addressOf(after.data.get(c)))).size).toBe(6);
    expect([addressOf(after.data.get('w-5')), addressOf(after.data.get('w-6'))]).toContain(freedAddress);
    for (const c of ['w-5', 'w-6']) expectConsistent(after, c);
  });

  it('a template in use cannot be deleted until its claims are gone', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'm3data-del');
    await apply(env, POOL, namespace);
    await apply(env, TEMPLATE, namespace);
    await addWorker(cluster.env, namespace, 0);
    await settled(namespace, ['w-0']);
    await env.kubectl('delete', `metal3datatemplates.${GROUP}`, 'workers', '-n', namespace, '--wait=false');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await snapshot(namespace)).data.get('w-0')?.status?.ready).toBe(true);
    expect((await env.kubectlResult('get', `metal3datatemplates.${GROUP}`, 'workers', '-n', namespace)).code).toBe(0);
    await env.kubectl('delete', `metal3dataclaims.${GROUP}`, 'w-0', '-n', namespace, '--wait=false');
    await waitFor(
      'the template to be gone',
      async () => (await env.kubectlResult('get', `metal3datatemplates.${GROUP}`, 'workers', '-n', namespace)).code !== 0,
      120_000,
      500,
    );
    await waitFor(
      'addresses and Secrets to be released',
      async () => {
        const claims = await getJSON<{ items: Named[] }>(env, namespace, 'ipclaims');
        const left = await snapshot(namespace);
        return claims.items.length === 0 && !left.secrets.has('w-0-metadata');
      },
      120_000,
      500,
    );
  });
});
