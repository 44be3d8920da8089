// Per-node data through the real Cluster API provider, and the provider's example manifests
// through the real API server (docs/dev/capm3-e2e.md). Same components as capm3-provider.test.ts:
// the kube-apiserver, upstream Metacontroller, the hook server, the driver pool on emulated
// Redfish BMCs, Cluster API's own core manager and a workload cluster. The addresses the data
// template hands out come from TEST-NET-1 (192.0.2.0/24): they are only rendered, never used.
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ExpectStatic } from 'vitest';
import { hostFromRedfishConfig, redfishBootEvents, startFakeAgent } from '../../emulators/agent/index.js';
import type { FakeAgentFleet } from '../../emulators/agent/index.js';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { BMC_USERNAME } from '../../devenv/bmcs.js';
import { startCAPIManager } from '../../devenv/capi-manager.js';
import type { CAPIManager } from '../../devenv/capi-manager.js';
import { waitFor } from '../../devenv/processes.js';
import { startWorkloadCluster, workloadDir } from '../../devenv/workload.js';
import type { WorkloadCluster } from '../../devenv/workload.js';
import type { BareMetalHostView, Metal3MachineView, ObjectView, Scene } from './capm3-support.js';
import { CLUSTER_NAME_LABEL, INFRA_API, openScene } from './capm3-support.js';
import { examplesApplyAndConvert, seedServerRegisters, SEED_SERVER } from './capm3-examples.js';
import type { Cluster } from './support.js';
import { bmcsOf, openCluster } from './support.js';

const PASSWORD = 'capm3-data-pw-7c2e';
const HOSTS = ['data-0', 'data-1'];
const macOf = (id: string): string => `52:54:00:3d:00:0${String(HOSTS.indexOf(id))}`;
const POOL_FIRST = 10;
const POOL_LAST = 19;
let cluster: Cluster;
let workload: WorkloadCluster;
let manager: CAPIManager;
let emulator: RedfishEmulator;
let agents: FakeAgentFleet;

beforeAll(async () => {
  cluster = await openCluster({ bmcs: { password: PASSWORD } });
  workload = await startWorkloadCluster({ dir: workloadDir(cluster.dir) });
  manager = await startCAPIManager({ dir: cluster.dir, kubeconfig: cluster.env.kubeconfig });
  const systems: SystemConfig[] = HOSTS.map((id) => ({ id, username: BMC_USERNAME, password: PASSWORD, powerState: 'Off', macs: [macOf(id)] }));
  emulator = await startRedfishEmulator({ systems: [...systems, SEED_SERVER], http: true, powerDelayMs: 100 });
  // Only the seed server inspects in band; the data hosts use fast inspection and a live ISO.
  const seedHost = hostFromRedfishConfig(SEED_SERVER, async () => {
    emulator.system(SEED_SERVER.id).setPower('Off');
    return Promise.resolve();
  });
  const agentPort = cluster.env.pool?.agentPort ?? 0;
  agents = startFakeAgent({
    apiURL: `http://127.0.0.1:${String(agentPort)}`,
    hosts: [seedHost],
    sources: [redfishBootEvents(emulator)],
    heartbeatIntervalMs: 500,
    lookupIntervalMs: 200,
    commandDelayMs: 200,
  });
}, 300_000);

afterAll(async () => {
  await (agents as FakeAgentFleet | undefined)?.close();
  await (emulator as RedfishEmulator | undefined)?.stop();
  await (manager as CAPIManager | undefined)?.stop();
  await (workload as WorkloadCluster | undefined)?.stop();
  await (cluster as Cluster | undefined)?.close();
}, 120_000);

const IP_POOL = {
  apiVersion: 'ipam.metal3.io/v1alpha1',
  kind: 'IPPool',
  metadata: { name: 'provisioning' },
  spec: {
    namePrefix: 'data-provisioning',
    pools: [{ start: `192.0.2.${String(POOL_FIRST)}`, end: `192.0.2.${String(POOL_LAST)}` }],
    prefix: 24,
    gateway: '192.0.2.1',
    dnsServers: ['192.0.2.1'],
  },
};

/** The seed's template (examples/capm3/seed-workers.yaml); the emulator names its first NIC NIC1. */
function dataTemplate(clusterName: string): Record<string, unknown> {
  const metaData = {
    indexes: [{ key: 'local-hostname', prefix: 'worker-' }, { key: 'index' }],
    ipAddressesFromPool: [{ key: 'ip_address', name: 'provisioning', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
    objectNames: [{ key: 'metal3machine', object: 'metal3machine' }],
  };
  const networkData = {
    links: { ethernets: [{ type: 'phy', id: 'eno1', mtu: 1500, macAddress: { fromHostInterface: 'NIC1' } }] },
    networks: {
      ipv4: [
        {
          id: 'provisioning',
          link: 'eno1',
          ipAddressFromIPPool: 'provisioning',
          routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromIPPool: 'provisioning' } }],
        },
      ],
    },
    services: { dnsFromIPPool: 'provisioning' },
  };
  return {
    apiVersion: INFRA_API,
    kind: 'Metal3DataTemplate',
    metadata: { name: 'workers', labels: { [CLUSTER_NAME_LABEL]: clusterName } },
    spec: { clusterName, metaData, networkData },
  };
}

type Ref = { name?: string; namespace?: string } | undefined;
type DataView = ObjectView<{ index: number; claim: { name: string }; template: { name: string } }, { ready?: boolean }>;
type ClaimView = ObjectView<{ template: { name: string } }, { renderedData?: Ref }> & { metadata: { ownerReferences?: { kind: string; name: string }[] } };
type IPClaimView = ObjectView<{ pool: { name: string } }, { address?: Ref }> & { metadata: { labels?: Record<string, string> } };
type IPAddressView = ObjectView<{ address: string; claim: { name: string } }>;
type SecretView = ObjectView & { data?: Record<string, string> };
type MachineDataView = Metal3MachineView & { status?: { metaData?: Ref; networkData?: Ref; renderedData?: Ref } };
type HostDataView = BareMetalHostView & { spec: { metaData?: Ref; networkData?: Ref } };
type OperationView = ObjectView<{ action: string; host?: { name?: string }; provision?: { metaData?: Ref; networkData?: Ref } }>;

interface RenderedMeta {
  'local-hostname': string;
  index: string | number;
  ip_address: string;
  metal3machine: string;
}
interface RenderedNetwork {
  links: { id: string; type: string; ethernet_mac_address: string }[];
  networks: { id: string; link: string; ip_address: string; netmask: string; routes: { gateway: string }[] }[];
  services: { type: string; address: string }[];
}

/** Everything one worker's per-node data consists of, read back from the API server. */
interface WorkerData {
  machine: string;
  host: string;
  data: DataView;
  ipClaim: IPClaimView;
  address: IPAddressView;
  meta: RenderedMeta;
  network: RenderedNetwork;
  secrets: { metaData: SecretView; networkData: SecretView };
}

function decode(secret: SecretView, key: string): unknown {
  return parse(Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8'));
}

async function readWorker(scene: Scene, machine: string, host: string): Promise<WorkerData> {
  const [data] = (await scene.list<DataView>('metal3data')).filter((view) => view.spec.claim.name === machine);
  if (data === undefined) {
    throw new Error(`no Metal3Data for ${machine}`);
  }
  const [ipClaim] = (await scene.list<IPClaimView>('ipclaim')).filter((view) => view.metadata.name === `${data.metadata.name}-provisioning`);
  const [address] = (await scene.list<IPAddressView>('ipaddress')).filter((view) => view.spec.claim.name === ipClaim?.metadata.name);
  if (ipClaim === undefined || address === undefined) {
    throw new Error(`no IPClaim or IPAddress for ${data.metadata.name}`);
  }
  const metaData = await scene.get<SecretView>('secret', `${machine}-metadata`);
  const networkData = await scene.get<SecretView>('secret', `${machine}-networkdata`);
  return {
    machine,
    host,
    data,
    ipClaim,
    address,
    meta: decode(metaData, 'metaData') as RenderedMeta,
    network: decode(networkData, 'networkData') as RenderedNetwork,
    secrets: { metaData, networkData },
  };
}

/** Claimed, provisioned with its data, Node registered by the test's kubelet, machine ready. */
async function runWorker(scene: Scene, machine: string): Promise<string> {
  const host = await scene.waitClaim(machine);
  await scene.waitHostState(host, 'provisioned');
  await scene.bootNode(`${scene.namespace}-${machine}`, host);
  const providerID = `metal3://${scene.namespace}/${host}/${machine}`;
  await scene.waitUntil<Metal3MachineView>('metal3machine', machine, {
    what: `provisioned with ${providerID}`,
    check: (view) => view.spec.providerID === providerID && view.status?.initialization?.provisioned === true,
  });
  return host;
}

async function poolIndexes(scene: Scene): Promise<Record<string, string>> {
  return (await scene.get<ObjectView<unknown, { indexes?: Record<string, string> }>>('ippool', 'provisioning')).status?.indexes ?? {};
}

/** Hosts, pool, data template, a Metal3MachineTemplate naming it and a deployment of `replicas`, all running. */
async function deployWorkers(scene: Scene, replicas: number): Promise<WorkerData[]> {
  const pool = { 'example.com/pool': 'data' };
  for (const id of HOSTS) {
    await scene.addHost(
      id,
      { address: emulator.address(id, 'redfish-virtualmedia'), mac: macOf(id), password: PASSWORD },
      { labels: pool, spec: { inspectionMode: 'fast', automatedCleaningMode: 'disabled' } },
    );
  }
  await scene.apply([IP_POOL, dataTemplate(scene.cluster)]);
  await Promise.all(HOSTS.map(async (id) => scene.waitHostState(id, 'available')));
  const liveISO = { url: bmcsOf(cluster.env).files.liveISOURL, diskFormat: 'live-iso' };
  await scene.createTemplate('workers', { image: liveISO, hostSelector: { matchLabels: pool }, dataTemplate: { name: 'workers' } });
  await scene.createDeployment('workers', 'workers', replicas);
  const machines = await scene.waitMachines('workers', replicas);
  return Promise.all(machines.map(async (machine) => readWorker(scene, machine, await runWorker(scene, machine))));
}

/** The deleted worker's claim, data, IPClaim, IPAddress and Secrets go; its address leaves the pool's allocations. */
async function waitDataGone(scene: Scene, gone: WorkerData): Promise<void> {
  await waitFor(`${gone.machine} deleted`, async () => !(await scene.exists('metal3machine', gone.machine)), 180_000, 1000);
  await waitFor(
    `${gone.machine}'s claim, data, IPClaim, IPAddress and Secrets deleted`,
    async () => {
      const left = await Promise.all([
        scene.exists('metal3dataclaim', gone.machine),
        scene.exists('metal3data', gone.data.metadata.name),
        scene.exists('ipclaim', gone.ipClaim.metadata.name),
        scene.exists('ipaddress', gone.address.metadata.name),
        scene.exists('secret', `${gone.machine}-metadata`),
        scene.exists('secret', `${gone.machine}-networkdata`),
      ]);
      return left.every((exists) => !exists);
    },
    120_000,
    1000,
  );
  await waitFor(
    `${gone.address.spec.address} back in the pool`,
    async () => (await poolIndexes(scene))[gone.ipClaim.metadata.name] === undefined,
    60_000,
    1000,
  );
  await scene.waitHostState(gone.host, 'available');
}

/** The remaining worker keeps the same Metal3Data, index, hostname, IPAddress and Secrets. */
async function expectUnmoved(expect: ExpectStatic, scene: Scene, before: WorkerData): Promise<void> {
  const after = await readWorker(scene, before.machine, before.host);
  expect(after.data.metadata.uid).toBe(before.data.metadata.uid);
  expect(after.data.spec.index).toBe(before.data.spec.index);
  expect(after.meta['local-hostname']).toBe(before.meta['local-hostname']);
  expect(after.address.metadata.uid).toBe(before.address.metadata.uid);
  expect(after.address.spec.address).toBe(before.address.spec.address);
  expect(after.secrets.metaData.data).toEqual(before.secrets.metaData.data);
  expect(after.secrets.networkData.data).toEqual(before.secrets.networkData.data);
  const host = await scene.get<HostDataView>('baremetalhost', before.host);
  expect(host.status?.provisioning?.state).toBe('provisioned');
  expect(host.spec.metaData?.name).toBe(`${before.machine}-metadata`);
}

describe.concurrent('per-node data and examples through the Cluster API provider', () => {
  it("a MachineDeployment of two workers with a dataTemplate: each gets its index, hostname, address and Secrets on its host; scaling to one frees only the deleted worker's data, and the next worker gets it back", async ({
    expect,
  }) => {
    const scene = await openScene(cluster.env, workload, 'capm3-data');
    const workers = await deployWorkers(scene, 2);
    expect(workers.map((worker) => worker.data.spec.index).sort()).toEqual([0, 1]);
    expect(new Set(workers.map((worker) => worker.host))).toEqual(new Set(HOSTS));
    expect(new Set(workers.map((worker) => worker.address.spec.address)).size).toBe(2);
    const allocated = await poolIndexes(scene);
    for (const worker of workers) {
      expectRendered(expect, worker);
      await expectWired(expect, scene, worker);
      expect(allocated[worker.ipClaim.metadata.name]).toBe(worker.address.spec.address);
    }

    await scene.scale('workers', 1);
    const [kept = ''] = await scene.waitMachines('workers', 1);
    const gone = workers.find((worker) => worker.machine !== kept);
    const stays = workers.find((worker) => worker.machine === kept);
    if (gone === undefined || stays === undefined) {
      throw new Error(`${kept} is not one of ${workers.map((worker) => worker.machine).join(', ')}`);
    }
    await waitDataGone(scene, gone);
    expect(Object.values(await poolIndexes(scene))).toEqual([stays.address.spec.address]);
    const released = await scene.get<HostDataView>('baremetalhost', gone.host);
    expect(released.spec.metaData).toBeUndefined();
    expect(released.spec.networkData).toBeUndefined();
    await expectUnmoved(expect, scene, stays);

    // The freed index is the lowest free one and the freed address the pool's lowest free one.
    await scene.scale('workers', 2);
    const [next = ''] = (await scene.waitMachines('workers', 2)).filter((machine) => machine !== stays.machine);
    const reused = await readWorker(scene, next, await runWorker(scene, next));
    expect(reused.host).toBe(gone.host);
    expect(reused.data.spec.index).toBe(gone.data.spec.index);
    expect(reused.meta['local-hostname']).toBe(gone.meta['local-hostname']);
    expect(reused.address.spec.address).toBe(gone.address.spec.address);
    expectRendered(expect, reused);
    await expectUnmoved(expect, scene, stays);
  }, 420_000);

  it('the examples apply: seed-cluster.yaml (v1beta2) and the upstream v1beta1 manifests, read back converted in the other version', async ({ expect }) => {
    await examplesApplyAndConvert(cluster.env, expect);
  }, 240_000);

  it('examples/seed/server-01.yaml validates unchanged and, pointed at a loopback Redfish emulator, registers, inspects and becomes available', async ({
    expect,
  }) => {
    await seedServerRegisters(cluster.env, emulator, expect);
  }, 240_000);
});

/** What one worker's Secrets say: its index, hostname, address, the host's NIC, the pool's gateway and DNS. */
function expectRendered(expect: ExpectStatic, worker: WorkerData): void {
  const { machine, host, data, address, meta, network } = worker;
  const ip = address.spec.address;
  const lastOctet = Number(ip.split('.')[3]);
  expect(ip.startsWith('192.0.2.') && lastOctet >= POOL_FIRST && lastOctet <= POOL_LAST).toBe(true);
  expect(data.metadata.name).toBe(`workers-${String(data.spec.index)}`);
  expect(data.status?.ready).toBe(true);
  expect(meta['local-hostname']).toBe(`worker-${String(data.spec.index)}`);
  expect(String(meta.index)).toBe(String(data.spec.index));
  expect(meta.ip_address).toBe(ip);
  expect(meta.metal3machine).toBe(machine);
  expect(network.links).toEqual([expect.objectContaining({ id: 'eno1', type: 'phy' })]);
  expect(network.links[0]?.ethernet_mac_address.toLowerCase()).toBe(macOf(host));
  expect(network.networks).toEqual([expect.objectContaining({ id: 'provisioning', link: 'eno1', ip_address: ip, netmask: '255.255.255.0' })]);
  expect(network.networks[0]?.routes).toEqual([expect.objectContaining({ gateway: '192.0.2.1' })]);
  expect(network.services).toEqual([{ type: 'dns', address: '192.0.2.1' }]);
}

/** How the data reaches the host: claim → data, Metal3Machine status, host spec, the Provision request. */
async function expectWired(expect: ExpectStatic, scene: Scene, worker: WorkerData): Promise<void> {
  const { machine, host, data } = worker;
  const named = (name: string): unknown => expect.objectContaining({ name });
  const claim = await scene.get<ClaimView>('metal3dataclaim', machine);
  expect(claim.spec.template.name).toBe('workers');
  expect(claim.metadata.ownerReferences).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'Metal3Machine', name: machine })]));
  expect(claim.status).toEqual(expect.objectContaining({ renderedData: named(data.metadata.name) }));
  const m3m = await scene.get<MachineDataView>('metal3machine', machine);
  expect(m3m.status).toEqual(
    expect.objectContaining({ metaData: named(`${machine}-metadata`), networkData: named(`${machine}-networkdata`), renderedData: named(data.metadata.name) }),
  );
  const bmh = await scene.get<HostDataView>('baremetalhost', host);
  expect(bmh.spec).toEqual(
    expect.objectContaining({ consumerRef: named(machine), metaData: named(`${machine}-metadata`), networkData: named(`${machine}-networkdata`) }),
  );
  expect(await provisionedWith(scene, host)).toContainEqual([`${machine}-metadata`, `${machine}-networkdata`]);
}

/** The metaData and networkData Secrets each Provision request of the host carried to the pool. */
async function provisionedWith(scene: Scene, host: string): Promise<string[][]> {
  const provisions = (await scene.list<OperationView>('hostoperation')).filter((op) => op.spec.action === 'Provision' && op.spec.host?.name === host);
  return provisions.map((op) => [op.spec.provision?.metaData?.name ?? '', op.spec.provision?.networkData?.name ?? '']);
}
