// The seed story's objects and checks (clusterctl-init.test.ts): the template's variables, the
// hosts by role, the external etcd the played control plane uses, and readers of what Cluster API
// and the emulated hosts show.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { redfishMAC, type BMCs } from '../../devenv/bmcs.js';
import type { ClusterPKI } from '../../devenv/controlplane.js';
import { makeCa, makeLeaf, readPem } from '../../devenv/tls.js';
import type { FakeConfigDrive } from '../../emulators/agent/configdrive.js';
import { waitFor } from '../../devenv/processes.js';
import type { ClusterctlResult } from '../support/clusterctl.js';
import type { ManagementCluster } from './management-cluster.js';
import { apply, poolHostYAML, waitForPoolState, type ClusterClient } from './support.js';

export const SEED = 'seed';
/**
 * The seed's 20 servers by role (the template selects them by the label role): rf-1 for the
 * control plane, rf-2 … rf-20 for workers, of which the MachineDeployment takes two.
 */
export const SEED_SERVERS = 20;
export const SEED_CONTROL_PLANE = 'rf-1';
export const SEED_WORKER_HOSTS = Array.from({ length: SEED_SERVERS - 1 }, (_, index) => `rf-${String(index + 2)}`);
export const SEED_WORKER_REPLICAS = 2;

/**
 * The seed template's variables. Addresses are documentation addresses (192.0.2.0/24): Ironhook
 * only writes them into the hosts' network data, and Cluster API only ever connects to the
 * control-plane endpoint, which a real apply points at 127.0.0.1.
 */
export function seedVariables(overrides: Record<string, string>): Record<string, string> {
  return {
    CLUSTER_APIENDPOINT_HOST: '192.0.2.5',
    CONTROL_PLANE_IP_START: '192.0.2.10',
    CONTROL_PLANE_IP_END: '192.0.2.19',
    WORKER_IP_START: '192.0.2.20',
    WORKER_IP_END: '192.0.2.99',
    IP_GATEWAY: '192.0.2.1',
    IMAGE_URL: 'http://192.0.2.1/images/node.raw',
    IMAGE_CHECKSUM: 'http://192.0.2.1/images/node.raw.sha256sum',
    ...overrides,
  };
}

/**
 * The rendered seed with the KubeadmControlPlane's etcd external: the workload cluster's own etcd
 * (kubeadm-play.ts says why). The file paths are kubeadm's, for the apiserver on a real host.
 */
export function withExternalEtcd(rendered: string, etcdPort: number): string {
  const external = {
    endpoints: [`http://127.0.0.1:${String(etcdPort)}`],
    caFile: '/etc/kubernetes/pki/etcd/ca.crt',
    certFile: '/etc/kubernetes/pki/apiserver-etcd-client.crt',
    keyFile: '/etc/kubernetes/pki/apiserver-etcd-client.key',
  };
  return parseAllDocuments(rendered)
    .map((doc) => {
      const obj = doc.toJS() as { kind: string; spec: { kubeadmConfigSpec: { clusterConfiguration?: Record<string, unknown> } } };
      if (obj.kind !== 'KubeadmControlPlane') return JSON.stringify(obj);
      const spec = obj.spec.kubeadmConfigSpec;
      spec.clusterConfiguration = { ...spec.clusterConfiguration, etcd: { external } };
      return JSON.stringify(obj);
    })
    .join('\n---\n');
}

/**
 * The certificates an external etcd comes with, which Cluster API expects as Secrets before the
 * control plane starts: the etcd CA (`<cluster>-etcd`) and the apiserver's etcd client certificate
 * (`<cluster>-apiserver-etcd-client`). Throwaway ones: the played apiserver talks plain HTTP to its etcd.
 */
export async function createExternalEtcdSecrets(client: ClusterClient, dir: string): Promise<void> {
  const pki = join(dir, 'external-etcd');
  mkdirSync(pki, { recursive: true });
  makeCa(pki, 'etcd-ca', 2);
  makeLeaf(pki, 'apiserver-etcd-client', { ca: 'etcd-ca', ext: 'extendedKeyUsage=clientAuth\n', days: 2 });
  for (const [name, prefix] of [
    ['seed-etcd', 'etcd-ca'],
    ['seed-apiserver-etcd-client', 'apiserver-etcd-client'],
  ] as const) {
    const data = { 'tls.crt': readPem(pki, `${prefix}.crt`), 'tls.key': readPem(pki, `${prefix}.key`) };
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: SEED, labels: { 'cluster.x-k8s.io/cluster-name': 'seed' } },
      type: 'cluster.x-k8s.io/secret',
      stringData: data,
    };
    const file = join(pki, `${name}.json`);
    writeFileSync(file, JSON.stringify(secret), { mode: 0o600 });
    await client.kubectl('create', '-f', file);
  }
}

/** The seed's servers, labelled by role, registered and inspected. */
export async function createSeedHosts(client: ClusterClient, bmcs: BMCs, password: string): Promise<void> {
  const hosts = [SEED_CONTROL_PLANE, ...SEED_WORKER_HOSTS];
  const spec = (name: string) => ({ bootMACAddress: redfishMAC(name), bmc: { address: bmcs.address(name), credentialsName: `${name}-bmc-secret` } });
  await apply(client, hosts.map((name) => poolHostYAML(name, password, spec(name))).join('---\n'), SEED);
  await client.kubectl('label', 'bmh', SEED_CONTROL_PLANE, '-n', SEED, 'role=control-plane');
  await client.kubectl('label', 'bmh', ...SEED_WORKER_HOSTS, '-n', SEED, 'role=worker');
  for (const name of hosts) await waitForPoolState(client, SEED, name, 'available');
}

interface HostListView {
  items: { metadata: { name: string }; spec: { consumerRef?: { name: string } } }[];
}

/** The worker hosts a Metal3Machine has claimed: host name → Metal3Machine name, sorted by host. */
export async function claimedWorkerHosts(client: ClusterClient): Promise<Map<string, string>> {
  const list = JSON.parse(await client.kubectl('get', 'bmh', '-n', SEED, '-l', 'role=worker', '-o', 'json')) as HostListView;
  const claimed = list.items.filter((item) => item.spec.consumerRef !== undefined);
  const entries = claimed.map((item): [string, string] => [item.metadata.name, item.spec.consumerRef?.name ?? '']);
  return new Map(entries.sort(([a], [b]) => a.localeCompare(b)));
}

/** The Machine a Metal3Machine belongs to (its owner). */
export async function machineOf(client: ClusterClient, metal3Machine: string): Promise<string> {
  return client.kubectl('get', 'metal3machine', metal3Machine, '-n', SEED, '-o', 'jsonpath={.metadata.ownerReferences[?(@.kind=="Machine")].name}');
}

export interface MachineView {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { bootstrap: { dataSecretName?: string }; infrastructureRef: { name: string } };
}

/** The seed's Machines: the control plane's and the workers'. */
export async function seedMachines(client: ClusterClient): Promise<{ controlPlane: MachineView[]; workers: MachineView[] }> {
  const list = JSON.parse(await client.kubectl('get', 'machines.cluster.x-k8s.io', '-n', SEED, '-o', 'json')) as { items: MachineView[] };
  const label = (machine: MachineView, key: string): string | undefined => machine.metadata.labels?.[key];
  return {
    controlPlane: list.items.filter((machine) => label(machine, 'cluster.x-k8s.io/control-plane') !== undefined),
    workers: list.items.filter((machine) => label(machine, 'cluster.x-k8s.io/deployment-name') === 'seed-workers'),
  };
}

/** The config drive the pool wrote with the host's latest image, as the fake agent recorded it. */
export function writtenConfigDrive(bmcs: BMCs, host: string): FakeConfigDrive {
  const drive = bmcs.fleet.record(host).images.at(-1)?.configDrive;
  if (drive === undefined) throw new Error(`${host}: no config drive was written`);
  return drive;
}

/** The workload cluster's PKI as Cluster API generated it: the `<cluster>-ca` and `<cluster>-sa` Secrets. */
export async function seedClusterPKI(client: ClusterClient): Promise<ClusterPKI> {
  const secret = async (name: string): Promise<{ crt: string; key: string }> => {
    const data = JSON.parse(await client.kubectl('get', 'secret', name, '-n', SEED, '-o', 'jsonpath={.data}')) as Record<string, string>;
    const decoded = (key: string): string => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
    return { crt: decoded('tls.crt'), key: decoded('tls.key') };
  };
  const [ca, sa] = [await secret('seed-ca'), await secret('seed-sa')];
  return { ca: { cert: ca.crt, key: ca.key }, serviceAccount: { publicKey: sa.crt, privateKey: sa.key } };
}

export async function hostUID(client: ClusterClient, name: string): Promise<string> {
  return client.kubectl('get', 'bmh', name, '-n', SEED, '-o', 'jsonpath={.metadata.uid}');
}

/**
 * `clusterctl describe cluster seed`, polled until the seed shows 3 of 3 machines available (the
 * Cluster's replica counters trail its Available condition by a sync); the last output either way,
 * for the caller's assertions.
 */
export async function describeSeedUntilAvailable(cluster: Pick<ManagementCluster, 'clusterctl'>, timeoutMs: number): Promise<ClusterctlResult> {
  let described: ClusterctlResult = { code: -1, stdout: '', stderr: '' };
  const available = async (): Promise<boolean> => {
    described = await cluster.clusterctl(['describe', 'cluster', 'seed', '-n', SEED]);
    return /^Cluster seed\/seed\s+3\/3\s+3\s+3\s+3\s+True\s+Available/mu.test(described.stdout);
  };
  await waitFor('clusterctl describe: 3 of 3 machines available', available, timeoutMs, 2000).catch(() => undefined);
  return described;
}
