// `clusterctl init` as a Metal3 user runs it, against a management cluster that runs pods: the
// local control plane with a real kubelet + containerd node (devenv/node.ts), cert-manager
// beside it (devenv/cert-manager.ts), and a local provider repository holding Cluster API's core,
// kubeadm bootstrap and kubeadm control-plane providers of the release tools/cluster-api pins
// (devenv/capi-repository.ts) and Ironhook as `metal3` (scripts/clusterctl-repo.ts). Every
// provider's image is built here (scripts/image.sh, `capi` for Cluster API's managers), mapped by
// clusterctl's `images:` setting and never pulled. The node is loopback-only, so the repository's
// copies of the components carry the loopback profile (devenv/loopback-components.ts): own ports
// per manager, webhooks called by URL. What runs afterwards is the real thing: the managers'
// admission webhooks answer the API server with cert-manager's certificates, and Ironhook's pods
// take a host to `available` through the emulated BMC.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { redfishMAC, startBMCs, type BMCs } from '../../devenv/bmcs.js';
import { CAPI_PROVIDERS, clusterAPIModule, localCAPIImages, writeCAPIProviders } from '../../devenv/capi-repository.js';
import { startCertManager, type CertManager } from '../../devenv/cert-manager.js';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, kubectlFor } from '../../devenv/environment.js';
import { builtImages } from '../../devenv/images.js';
import { loopbackComponents, type ManagerPorts } from '../../devenv/loopback-components.js';
import { startNode, type Node } from '../../devenv/node.js';
import { freePort, waitFor } from '../../devenv/processes.js';
import { PROVIDER_NAMESPACE, providerVersion, writeProviders } from '../../scripts/clusterctl-repo.js';
import { runClusterctl, type ClusterctlResult } from '../support/clusterctl.js';
import { prepareChart } from '../support/helm.js';
import { chooseLocalNodePorts, LOCAL_PROFILE, writeRunValues, type LocalNodePorts } from '../support/local-node.js';
import { apply, createNamespace, host, poolHostYAML, waitForGone, waitForPoolState, type ClusterClient } from './support.js';

const PASSWORD = 'canary-Cctl-8e3f1';
const HOST = 'rf-0';
/** The namespaces clusterctl installs each provider into (their components name them). */
const PROVIDER_NAMESPACES: Record<string, string> = {
  'cluster-api': 'capi-system',
  'bootstrap-kubeadm': 'capi-kubeadm-bootstrap-system',
  'control-plane-kubeadm': 'capi-kubeadm-control-plane-system',
  'infrastructure-metal3': PROVIDER_NAMESPACE,
};
const WAIT = ['--wait-providers', '--wait-provider-timeout', '600'];
const SEED = 'seed';
/** The seed's hosts by role (the template selects them by the label role). */
const SEED_CONTROL_PLANE = 'rf-1';
const SEED_WORKERS = ['rf-2', 'rf-3'];

let dir = '';
let config = '';
let plane: ControlPlane | undefined;
let node: Node | undefined;
let certManager: CertManager | undefined;
let bmcs: BMCs | undefined;
let client: ClusterClient;
let capiVersion = '';
let ports: LocalNodePorts;

const clusterctl = (args: string[], env: Record<string, string> = {}): Promise<ClusterctlResult> =>
  runClusterctl(dir, [...args, '--config', config, '--kubeconfig', plane?.kubeconfig ?? ''], env);

interface PodView {
  metadata: { name: string };
  spec: { hostNetwork?: boolean; containers: { image: string }[] };
  status: { containerStatuses?: { ready: boolean }[] };
}

async function pods(namespace: string): Promise<PodView[]> {
  return (JSON.parse(await client.kubectl('get', 'pods', '-n', namespace, '-o', 'json')) as { items: PodView[] }).items;
}

const ready = (pod: PodView): boolean => pod.status.containerStatuses?.every((status) => status.ready) === true;

async function providers(): Promise<string[]> {
  const list = JSON.parse(await client.kubectl('get', 'providers.clusterctl.cluster.x-k8s.io', '-A', '-o', 'json')) as {
    items: { metadata: { name: string; namespace: string }; version: string }[];
  };
  return list.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}@${item.version}`).sort();
}

/**
 * The seed template's variables. Addresses are documentation addresses (192.0.2.0/24): Ironhook
 * only writes them into the hosts' network data, and Cluster API only ever connects to the
 * control-plane endpoint, which a real apply points at 127.0.0.1.
 */
function seedVariables(overrides: Record<string, string>): Record<string, string> {
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

async function generateSeed(variables: Record<string, string>): Promise<ClusterctlResult> {
  const args = ['generate', 'cluster', 'seed', '--infrastructure', 'metal3', '--target-namespace', SEED, '--kubernetes-version', 'v1.34.2'];
  return clusterctl([...args, '--worker-machine-count', String(SEED_WORKERS.length)], variables);
}

/** The repository: Cluster API's three providers and Ironhook, each manager on its own loopback ports. */
async function writeRepository(): Promise<string> {
  const repository = join(dir, 'repository');
  const managerPorts = new Map<string, ManagerPorts>();
  for (const provider of CAPI_PROVIDERS)
    managerPorts.set(provider.label, { webhook: await freePort(), health: await freePort(), diagnostics: await freePort() });
  const capi = await writeCAPIProviders(repository, managerPorts);
  const runValues = writeRunValues(dir, ports, bmcs!.files);
  const ironhook = writeProviders(repository, { valueFiles: [LOCAL_PROFILE, runValues], transform: (objects) => loopbackComponents(objects) });
  const file = join(repository, 'clusterctl.yaml');
  writeFileSync(file, stringify({ providers: [...capi, ...ironhook], images: localCAPIImages() }, { lineWidth: 0 }));
  return file;
}

beforeAll(async () => {
  const images = builtImages();
  for (const name of ['ironhook', 'metacontroller', 'pause', 'capi-core', 'capi-kubeadm-bootstrap', 'capi-kubeadm-control-plane']) {
    if (!images.has(name)) throw new Error(`images.json lists no ${name} image: run \`npm run image\` and \`npm run image -- capi\``);
  }
  prepareChart();
  capiVersion = (await clusterAPIModule()).version;
  dir = mkdtempSync(join(tmpdir(), 'ironhook-clusterctl-init-'));
  mkdirSync(join(dir, 'home'), { recursive: true });
  plane = await startControlPlane({ dir: join(dir, 'plane'), node: true });
  client = { kubeconfig: plane.kubeconfig, ...kubectlFor(plane.kubeconfig) };
  node = await startNode({ controlPlane: plane, dir: join(dir, 'node'), images: [...images.values()].map((image) => image.archives.docker.path) });
  certManager = await startCertManager({ dir, kubeconfig: plane.kubeconfig });
  bmcs = await startBMCs({ dir, password: PASSWORD, redfishHosts: 1 + 1 + SEED_WORKERS.length });
  ports = await chooseLocalNodePorts();
  config = await writeRepository();
}, 900_000);

afterAll(async () => {
  await bmcs?.close();
  await node?.stop();
  await certManager?.stop();
  await plane?.stop();
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe('clusterctl init against a management cluster that runs pods', () => {
  it('installs Cluster API core and the kubeadm providers, whose pods run the local images', async () => {
    const result = await clusterctl(['init', '--core', 'cluster-api', '--bootstrap', 'kubeadm', '--control-plane', 'kubeadm', ...WAIT]);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(result.stdout + result.stderr).toMatch(/Skipping installing cert-manager as it is already installed/u);
    expect(await providers()).toEqual(
      [
        `capi-kubeadm-bootstrap-system/bootstrap-kubeadm@${capiVersion}`,
        `capi-kubeadm-control-plane-system/control-plane-kubeadm@${capiVersion}`,
        `capi-system/cluster-api@${capiVersion}`,
      ].sort(),
    );
    for (const provider of CAPI_PROVIDERS) {
      const running = await pods(PROVIDER_NAMESPACES[provider.label] ?? '');
      expect(running.map((pod) => pod.spec.containers[0]?.image)).toEqual([`localhost/cluster-api/${provider.image}:${capiVersion}`]);
      expect(running.every(ready)).toBe(true);
    }
  });

  it('installs Ironhook as metal3; its pods take a host to available', async () => {
    const result = await clusterctl(['init', '--infrastructure', 'metal3', ...WAIT]);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(await providers()).toContain(`${PROVIDER_NAMESPACE}/infrastructure-metal3@${providerVersion()}`);
    // --wait-providers waits for the Deployments; Metacontroller is a StatefulSet.
    await waitFor(
      'Ironhook pods ready',
      async () => {
        const current = await pods(PROVIDER_NAMESPACE);
        return current.length === 3 && current.every(ready);
      },
      300_000,
      1000,
    );
    const running = await pods(PROVIDER_NAMESPACE);
    expect(running.map((pod) => pod.spec.containers[0]?.image).sort()).toEqual([
      'localhost/ironhook:' + providerVersion().slice(1),
      'localhost/ironhook:' + providerVersion().slice(1),
      'localhost/metacontroller:v4.17.2',
    ]);
    bmcs!.startAgents(`http://127.0.0.1:${String(ports.agent)}`);
    const namespace = await createNamespace(client, 'clusterctl-init');
    const spec = { bootMACAddress: redfishMAC(HOST), bmc: { address: bmcs!.address(HOST), credentialsName: `${HOST}-bmc-secret` } };
    await apply(client, poolHostYAML(HOST, PASSWORD, spec), namespace);
    await waitForPoolState(client, namespace, HOST, 'available');
    await client.kubectl('delete', 'bmh', HOST, '-n', namespace, '--wait=false');
    await waitForGone(client, namespace, HOST);
  });

  it("the seed's cluster, rendered from the installed provider, passes every provider's admission webhooks (server-side dry run)", async () => {
    const variables = seedVariables({});
    // No `metal3:<version>`: clusterctl finds the installed provider's version in the cluster.
    const generated = await clusterctl(
      [
        'generate',
        'cluster',
        'seed',
        '--infrastructure',
        'metal3',
        '--target-namespace',
        'seed',
        '--kubernetes-version',
        'v1.34.2',
        '--worker-machine-count',
        '2',
      ],
      variables,
    );
    expect(generated, generated.stderr).toEqual(expect.objectContaining({ code: 0 }));
    await client.kubectl('create', 'namespace', SEED);
    expect(await kubectlApply(client.kubeconfig, generated.stdout, ['--dry-run=server'])).toEqual(expect.objectContaining({ code: 0 }));
    // The webhooks answered: KubeadmControlPlane's defaulting one puts the "v" in front of the
    // version and its validating one refuses what is still no version.
    const refused = await kubectlApply(client.kubeconfig, generated.stdout.replace(/version: v1\.34\.2/u, 'version: not-a-version'), ['--dry-run=server']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/KubeadmControlPlane "seed" is invalid: spec\.version: Invalid value: "vnot-a-version": must be a valid semantic version/u);
  });

  it("the seed applied: KubeadmControlPlane's Machine gets kubeadm init data and Ironhook provisions a control-plane host with it; workers wait for the control plane", async () => {
    for (const [name, role] of [[SEED_CONTROL_PLANE, 'control-plane'], ...SEED_WORKERS.map((worker) => [worker, 'worker'])] as const) {
      const spec = { bootMACAddress: redfishMAC(name), bmc: { address: bmcs!.address(name), credentialsName: `${name}-bmc-secret` } };
      await apply(client, poolHostYAML(name, PASSWORD, spec), SEED);
      await client.kubectl('label', 'bmh', name, '-n', SEED, `role=${role}`);
    }
    for (const name of [SEED_CONTROL_PLANE, ...SEED_WORKERS]) await waitForPoolState(client, SEED, name, 'available');
    // Nothing listens at the endpoint yet: Cluster API's connections to it are refused on loopback.
    const endpointPort = await freePort();
    const files = bmcs!.files;
    const variables = seedVariables({
      CLUSTER_APIENDPOINT_HOST: '127.0.0.1',
      CLUSTER_APIENDPOINT_PORT: String(endpointPort),
      IMAGE_URL: files.diskURL,
      IMAGE_CHECKSUM: files.diskChecksumURL,
    });
    const generated = await generateSeed(variables);
    expect(generated, generated.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(await kubectlApply(client.kubeconfig, generated.stdout)).toEqual(expect.objectContaining({ code: 0 }));

    const provisioned = await waitForPoolState(client, SEED, SEED_CONTROL_PLANE, 'provisioned');
    const machines = JSON.parse(await client.kubectl('get', 'machines.cluster.x-k8s.io', '-n', SEED, '-o', 'json')) as {
      items: {
        metadata: { name: string; labels?: Record<string, string> };
        spec: { bootstrap: { dataSecretName?: string }; infrastructureRef: { name: string } };
      }[];
    };
    const controlPlane = machines.items.filter((machine) => machine.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined);
    expect(controlPlane).toHaveLength(1);
    expect(controlPlane[0]?.spec.bootstrap.dataSecretName).toBeTruthy();
    expect((provisioned as unknown as { spec: { consumerRef?: { name: string } } }).spec.consumerRef?.name).toBe(controlPlane[0]?.spec.infrastructureRef.name);
    const [written] = bmcs!.fleet.record(SEED_CONTROL_PLANE).images;
    expect(written).toEqual(expect.objectContaining({ url: files.diskURL, digest: files.diskSHA256 }));
    expect(written?.configDrive?.user_data).toMatch(/kubeadm init/u);
    // The template's metadata: the index-based hostname and the first address of the control plane's IPPool.
    expect(written?.configDrive?.meta_data).toEqual(expect.objectContaining({ 'local-hostname': 'seed-controlplane-0', ip_address: '192.0.2.10' }));

    // Kubeadm join data waits for an initialized control plane, and no host is taken without it.
    const workers = machines.items.filter((machine) => machine.metadata.labels?.['cluster.x-k8s.io/deployment-name'] === 'seed-workers');
    expect(workers).toHaveLength(SEED_WORKERS.length);
    for (const worker of workers) expect(worker.spec.bootstrap.dataSecretName).toBeUndefined();
    for (const name of SEED_WORKERS) expect((await host(client, SEED, name)).status?.provisioning?.state).toBe('available');
  });

  it('clusterctl upgrade plan reads every installed provider and the repository', async () => {
    const result = await clusterctl(['upgrade', 'plan']);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    for (const label of Object.keys(PROVIDER_NAMESPACES)) expect(result.stdout).toContain(label);
    expect(result.stdout).toMatch(/already up to date/iu);
  });

  it("clusterctl delete removes Ironhook's controllers and keeps its CRDs, then every provider", async () => {
    const ironhook = await clusterctl(['delete', '--infrastructure', 'metal3']);
    expect(ironhook, ironhook.stderr).toEqual(expect.objectContaining({ code: 0 }));
    await waitFor('Ironhook pods gone', async () => (await pods(PROVIDER_NAMESPACE)).length === 0, 120_000, 500);
    expect(await providers()).not.toContain(`${PROVIDER_NAMESPACE}/infrastructure-metal3@${providerVersion()}`);
    expect(await client.kubectl('get', 'crd', 'baremetalhosts.metal3.io', '-o', 'name')).toContain('baremetalhosts.metal3.io');
    const all = await clusterctl(['delete', '--all']);
    expect(all, all.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(await providers()).toEqual([]);
  });
});
