// The seed story as a Metal3 user runs it, against a management cluster that runs pods: the local
// control plane with a real kubelet + containerd node (devenv/node.ts), cert-manager beside it
// (devenv/cert-manager.ts), and a local provider repository holding Cluster API's core, kubeadm
// bootstrap and kubeadm control-plane providers of the release tools/cluster-api pins
// (devenv/capi-repository.ts) and Ironhook as `metal3` (scripts/clusterctl-repo.ts). Every
// provider's image is built here (scripts/image.sh, `capi` for Cluster API's managers), mapped by
// clusterctl's `images:` setting and never pulled. The node is loopback-only, so the repository's
// copies of the components carry the loopback profile (devenv/loopback-components.ts): own ports
// per manager, webhooks called by URL.
//
// `clusterctl init` installs the four providers; the seed's cluster template is rendered by
// `clusterctl generate cluster` and applied: KubeadmControlPlane and the MachineDeployment create
// Machines, the kubeadm bootstrap provider writes init and join data, Ironhook's pods provision
// hosts selected by role with it through the emulated BMCs and the fake agent, and set the Nodes'
// providerIDs. What the hosts would do themselves (kubeadm init, kubelets) is played in the
// workload cluster by kubeadm-play.ts, with the CA KubeadmControlPlane generated; its etcd is
// external (kubeadm-play.ts says why). `clusterctl describe cluster` shows the seed Available.
// Twenty servers are registered (one for the control plane, nineteen for workers); the second
// day (seed-day2.ts) remediates a worker by reboot through the template's MachineHealthCheck and
// rolls the workers to a new image on the same hosts. `upgrade plan` and `delete` close it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redfishMAC, startBMCs, type BMCs } from '../../devenv/bmcs.js';
import { CAPI_PROVIDERS, clusterAPIModule } from '../../devenv/capi-repository.js';
import { kubectlApply } from '../../devenv/environment.js';
import { builtImages } from '../../devenv/images.js';
import { startWorkloadCluster, type WorkloadCluster } from '../../devenv/workload.js';
import { freePort, waitFor } from '../../devenv/processes.js';
import { PROVIDER_NAMESPACE, providerVersion } from '../../scripts/clusterctl-repo.js';
import type { ClusterctlResult } from '../support/clusterctl.js';
import { prepareChart } from '../support/helm.js';
import { playKubeadmInit, playKubeletJoin } from './kubeadm-play.js';
import { pods, PROVIDER_NAMESPACES, providers, ready, startManagementCluster, waitForIronhookPods, type ManagementCluster } from './management-cluster.js';
import { remediateUnreachableWorker, rollingUpgradeReusesHosts } from './seed-day2.js';
import { moveSeedToSecondManagementCluster } from './seed-move.js';
import {
  claimedWorkerHosts,
  describeSeedUntilAvailable,
  createExternalEtcdSecrets,
  createSeedHosts,
  hostUID,
  SEED,
  SEED_CONTROL_PLANE,
  SEED_SERVERS,
  SEED_WORKER_HOSTS,
  SEED_WORKER_REPLICAS,
  seedClusterPKI,
  seedMachines,
  seedVariables,
  withExternalEtcd,
  writtenConfigDrive,
} from './seed-support.js';
import { apply, createNamespace, host, poolHostYAML, waitForGone, waitForPoolState, type ClusterClient } from './support.js';

const PASSWORD = 'canary-Cctl-8e3f1';
const HOST = 'rf-0';
const WAIT = ['--wait-providers', '--wait-provider-timeout', '400'];

let dir = '';
let management: ManagementCluster | undefined;
/** The second management cluster, for clusterctl move. */
let target: ManagementCluster | undefined;
let bmcs: BMCs | undefined;
let client: ClusterClient;
let capiVersion = '';
/** The seed's control-plane endpoint and its external etcd, on loopback. */
const seedPorts = { apiserver: 0, etcd: 0 };
let workload: WorkloadCluster | undefined;

const clusterctl = (args: string[], env: Record<string, string> = {}): Promise<ClusterctlResult> => management!.clusterctl(args, env);

/** A field of a seed object in the management cluster, by kubectl jsonpath. */
async function jsonpath(kind: string, name: string, path: string): Promise<string> {
  return client.kubectl('get', kind, name, '-n', SEED, '-o', `jsonpath=${path}`);
}

async function generateSeed(variables: Record<string, string>): Promise<ClusterctlResult> {
  const args = ['generate', 'cluster', 'seed', '--infrastructure', 'metal3', '--target-namespace', SEED, '--kubernetes-version', 'v1.34.2'];
  return clusterctl([...args, '--worker-machine-count', String(SEED_WORKER_REPLICAS)], variables);
}

let images: string[] = [];

beforeAll(async () => {
  const built = builtImages();
  for (const name of ['ironhook', 'metacontroller', 'pause', 'capi-core', 'capi-kubeadm-bootstrap', 'capi-kubeadm-control-plane']) {
    if (!built.has(name)) throw new Error(`images.json lists no ${name} image: run \`npm run image\` and \`npm run image -- capi\``);
  }
  images = [...built.values()].map((image) => image.archives.docker.path);
  prepareChart();
  capiVersion = (await clusterAPIModule()).version;
  dir = mkdtempSync(join(tmpdir(), 'ironhook-clusterctl-init-'));
  bmcs = await startBMCs({ dir, password: PASSWORD, redfishHosts: 1 + SEED_SERVERS });
  management = await startManagementCluster({ dir: join(dir, 'management'), slot: 0, images, bmcs });
  client = management.client;
}, 900_000);

/** KEEP_TEST_DIR: the seed's objects and every provider's manager log, kept in the test directory. */
async function keepDiagnostics(): Promise<void> {
  const kinds = 'cluster,kubeadmcontrolplane,machinedeployment,machine,metal3machine,kubeadmconfig,bmh,metal3data,machinehealthcheck,metal3remediation';
  const dump = await client.kubectlResult('get', kinds, '-n', SEED, '-o', 'yaml');
  writeFileSync(join(dir, 'seed-objects.yaml'), dump.stdout + dump.stderr);
  for (const namespace of Object.values(PROVIDER_NAMESPACES)) {
    const logs = await client.kubectlResult('logs', '-n', namespace, '--all-containers', '--prefix', '-l', 'cluster.x-k8s.io/provider', '--tail=-1');
    writeFileSync(join(dir, `${namespace}.log`), logs.stdout + logs.stderr);
  }
}

afterAll(async () => {
  if (process.env.KEEP_TEST_DIR !== undefined && management !== undefined) await keepDiagnostics().catch(() => undefined);
  await workload?.stop();
  await bmcs?.close();
  await target?.stop();
  await management?.stop();
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe('clusterctl init against a management cluster that runs pods', () => {
  it('installs Cluster API core and the kubeadm providers, whose pods run the local images', async () => {
    const result = await clusterctl(['init', '--core', 'cluster-api', '--bootstrap', 'kubeadm', '--control-plane', 'kubeadm', ...WAIT]);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(result.stdout + result.stderr).toMatch(/Skipping installing cert-manager as it is already installed/u);
    expect(await providers(client)).toEqual(
      [
        `capi-kubeadm-bootstrap-system/bootstrap-kubeadm@${capiVersion}`,
        `capi-kubeadm-control-plane-system/control-plane-kubeadm@${capiVersion}`,
        `capi-system/cluster-api@${capiVersion}`,
      ].sort(),
    );
    for (const provider of CAPI_PROVIDERS) {
      const running = await pods(client, PROVIDER_NAMESPACES[provider.label] ?? '');
      expect(running.map((pod) => pod.spec.containers[0]?.image)).toEqual([`localhost/cluster-api/${provider.image}:${capiVersion}`]);
      expect(running.every(ready)).toBe(true);
    }
  });

  it('installs Ironhook as metal3; its pods take a host to available', async () => {
    // Every init checks cert-manager by creating test objects in the namespace cert-manager-test and
    // deleting it. While the previous init's copy is still terminating, the check cannot create
    // them and clusterctl keeps trying (once, in the full e2e tier, past this test's timeout).
    await waitFor(
      "the previous init's cert-manager-test namespace gone",
      async () => (await client.kubectlResult('get', 'namespace', 'cert-manager-test')).code !== 0,
      300_000,
      1000,
    ).catch(async (error: unknown) => {
      const state = await client.kubectlResult('get', 'namespace', 'cert-manager-test', '-o', 'yaml');
      throw new Error(`${String(error)}\n${state.stdout}`);
    });
    const result = await clusterctl(['init', '--infrastructure', 'metal3', ...WAIT, '--v', '3']);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(await providers(client)).toContain(`${PROVIDER_NAMESPACE}/infrastructure-metal3@${providerVersion()}`);
    process.stdout.write(`kubectl get providers -A:\n${await client.kubectl('get', 'providers.clusterctl.cluster.x-k8s.io', '-A')}\n`);
    await waitForIronhookPods(client);
    const running = await pods(client, PROVIDER_NAMESPACE);
    expect(running.map((pod) => pod.spec.containers[0]?.image).sort()).toEqual([
      'localhost/ironhook:' + providerVersion().slice(1),
      'localhost/ironhook:' + providerVersion().slice(1),
      'localhost/metacontroller:v4.17.2',
    ]);
    bmcs!.startAgents(`http://127.0.0.1:${String(management!.ports.agent)}`);
    const namespace = await createNamespace(client, 'clusterctl-init');
    const spec = { bootMACAddress: redfishMAC(HOST), bmc: { address: bmcs!.address(HOST), credentialsName: `${HOST}-bmc-secret` } };
    await apply(client, poolHostYAML(HOST, PASSWORD, spec), namespace);
    await waitForPoolState(client, namespace, HOST, 'available');
    await client.kubectl('delete', 'bmh', HOST, '-n', namespace, '--wait=false');
    await waitForGone(client, namespace, HOST);
  }, 900_000);

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
    await createSeedHosts(client, bmcs!, PASSWORD);
    process.stdout.write(`kubectl -n seed get bmh:\n${await client.kubectl('get', 'bmh', '-n', SEED)}\n`);
    // Nothing listens at the endpoint yet: Cluster API's connections to it are refused on loopback.
    seedPorts.apiserver = await freePort();
    seedPorts.etcd = await freePort();
    const files = bmcs!.files;
    const variables = seedVariables({
      CLUSTER_APIENDPOINT_HOST: '127.0.0.1',
      CLUSTER_APIENDPOINT_PORT: String(seedPorts.apiserver),
      IMAGE_URL: files.diskURL,
      IMAGE_CHECKSUM: files.diskChecksumURL,
    });
    const generated = await generateSeed(variables);
    expect(generated, generated.stderr).toEqual(expect.objectContaining({ code: 0 }));
    await createExternalEtcdSecrets(client, dir);
    expect(await kubectlApply(client.kubeconfig, withExternalEtcd(generated.stdout, seedPorts.etcd))).toEqual(expect.objectContaining({ code: 0 }));

    const provisioned = await waitForPoolState(client, SEED, SEED_CONTROL_PLANE, 'provisioned');
    const { controlPlane, workers } = await seedMachines(client);
    expect(controlPlane.map((machine) => machine.spec.bootstrap.dataSecretName)).toEqual([expect.stringMatching(/^seed-/u)]);
    expect(provisioned.spec?.consumerRef?.name).toBe(controlPlane[0]!.spec.infrastructureRef.name);
    expect(bmcs!.fleet.record(SEED_CONTROL_PLANE).images).toEqual([expect.objectContaining({ url: files.diskURL, digest: files.diskSHA256 })]);
    const drive = writtenConfigDrive(bmcs!, SEED_CONTROL_PLANE);
    expect(drive.user_data).toMatch(/kubeadm init/u);
    // The template's metadata: the index-based hostname and the first address of the control plane's IPPool.
    expect(drive.meta_data).toEqual(expect.objectContaining({ 'local-hostname': 'seed-controlplane-0', ip_address: '192.0.2.10' }));

    // Kubeadm join data waits for an initialized control plane, and no host is taken without it.
    expect(workers.map((machine) => machine.spec.bootstrap.dataSecretName)).toEqual(Array.from({ length: SEED_WORKER_REPLICAS }, () => undefined));
    expect(await claimedWorkerHosts(client)).toEqual(new Map());
    for (const name of SEED_WORKER_HOSTS) expect((await host(client, SEED, name)).status?.provisioning?.state).toBe('available');
  });

  it('the control plane comes up (kubeadm and kubelets played), workers join with join data, and clusterctl describe shows the seed Available', async () => {
    workload = await startWorkloadCluster({ dir: join(dir, 'workload'), clusterPKI: await seedClusterPKI(client), ports: seedPorts });
    const userData = writtenConfigDrive(bmcs!, SEED_CONTROL_PLANE).user_data ?? '';
    await playKubeadmInit(workload, { name: 'seed-controlplane-0', uuid: await hostUID(client, SEED_CONTROL_PLANE), userData });
    const providerID = async (): Promise<string> => (await workload!.node('seed-controlplane-0'))?.spec?.providerID ?? '';
    await waitFor('providerID on seed-controlplane-0', async () => (await providerID()).startsWith('metal3://'), 180_000, 1000);
    const initialized = async (): Promise<boolean> =>
      (await jsonpath('kubeadmcontrolplane', 'seed', '{.status.initialization.controlPlaneInitialized}')) === 'true';
    await waitFor('KubeadmControlPlane initialized', initialized, 180_000, 1000);

    await waitFor('two worker hosts claimed', async () => (await claimedWorkerHosts(client)).size === SEED_WORKER_REPLICAS, 180_000, 1000);
    for (const name of (await claimedWorkerHosts(client)).keys()) {
      await waitForPoolState(client, SEED, name, 'provisioned');
      const drive = writtenConfigDrive(bmcs!, name);
      expect(drive.user_data).toMatch(/kubeadm join/u);
      const hostname = String(drive.meta_data['local-hostname']);
      expect(hostname).toMatch(/^worker-\d+$/u);
      await playKubeletJoin(workload, { name: hostname, uuid: await hostUID(client, name) });
    }
    const available = async (): Promise<boolean> => (await jsonpath('cluster', 'seed', '{.status.conditions[?(@.type=="Available")].status}')) === 'True';
    await waitFor('Cluster seed Available', available, 300_000, 2000);
    const described = await describeSeedUntilAvailable(management!, 60_000);
    process.stdout.write(`clusterctl describe cluster seed:\n${described.stdout}\n`);
    expect(described, described.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(described.stdout).toMatch(/^Cluster seed\/seed\s+3\/3\s+3\s+3\s+3\s+True\s+Available/mu);
    expect(described.stdout).toMatch(/KubeadmControlPlane seed\/seed, v1\.34\.2\s+1\/1\s+1\s+1\s+1\s+True\s+Available/u);
    expect(described.stdout).toMatch(/MachineDeployment seed\/seed-workers, v1\.34\.2\s+2\/2\s+2\s+2\s+2\s+True\s+Available/u);
  }, 600_000);

  it("a worker whose Node stops answering is remediated by reboot: the template's MachineHealthCheck asks, Ironhook power-cycles the host", async () => {
    await remediateUnreachableWorker({ client, workload: workload!, bmcs: bmcs! });
  }, 600_000);

  it('a rolling upgrade of the workers to a new image reuses their hosts (nodeReuse, maxSurge 0); the spare servers stay untouched', async () => {
    await rollingUpgradeReusesHosts({ client, workload: workload!, bmcs: bmcs! });
  }, 1_200_000);

  it('clusterctl move carries the provisioned seed to a second management cluster: hosts keep their status, no BMC sees an action', async () => {
    target = await startManagementCluster({ dir: join(dir, 'target'), slot: 1, images, bmcs: bmcs! });
    await moveSeedToSecondManagementCluster({ source: management!, target, bmcs: bmcs! });
  }, 1_200_000);

  it('clusterctl upgrade plan reads every installed provider and the repository', async () => {
    const result = await clusterctl(['upgrade', 'plan']);
    expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
    for (const label of Object.keys(PROVIDER_NAMESPACES)) expect(result.stdout).toContain(label);
    expect(result.stdout).toMatch(/already up to date/iu);
  });

  it("clusterctl delete removes Ironhook's controllers and keeps its CRDs, then every provider", async () => {
    const ironhook = await clusterctl(['delete', '--infrastructure', 'metal3']);
    expect(ironhook, ironhook.stderr).toEqual(expect.objectContaining({ code: 0 }));
    await waitFor('Ironhook pods gone', async () => (await pods(client, PROVIDER_NAMESPACE)).length === 0, 120_000, 500);
    expect(await providers(client)).not.toContain(`${PROVIDER_NAMESPACE}/infrastructure-metal3@${providerVersion()}`);
    expect(await client.kubectl('get', 'crd', 'baremetalhosts.metal3.io', '-o', 'name')).toContain('baremetalhosts.metal3.io');
    const all = await clusterctl(['delete', '--all']);
    expect(all, all.stderr).toEqual(expect.objectContaining({ code: 0 }));
    expect(await providers(client)).toEqual([]);
  });
});
