// The seed story's second day (clusterctl-init.test.ts), once the seed is Available:
//   - a worker's Node stops answering; the template's MachineHealthCheck (Cluster API's own
//     controller) asks Ironhook for a Metal3Remediation, which power-cycles the host and fences the
//     Node; the kubelet comes back (played) and the MachineHealthCheck ends the remediation;
//   - a rolling upgrade of the workers to a Metal3MachineTemplate with a new image: with node
//     reuse and the template's maxSurge 0, each replacement Machine takes the host its predecessor
//     gave back, and the spare servers stay untouched.
import { expect } from 'vitest';
import type { BMCs } from '../../devenv/bmcs.js';
import { kubectlApply } from '../../devenv/environment.js';
import { waitFor } from '../../devenv/processes.js';
import type { WorkloadCluster } from '../../devenv/workload.js';
import { playKubeletJoin, playNodeUnreachable } from './kubeadm-play.js';
import { claimedWorkerHosts, hostUID, machineOf, SEED, SEED_WORKER_HOSTS, SEED_WORKER_REPLICAS, writtenConfigDrive } from './seed-support.js';
import { host, type ClusterClient } from './support.js';

export interface SeedScene {
  client: ClusterClient;
  workload: WorkloadCluster;
  bmcs: BMCs;
}

/** A worker in use: its host, Metal3Machine, Machine and Node. */
interface Worker {
  host: string;
  metal3Machine: string;
  machine: string;
  node: string;
}

async function workers(scene: SeedScene): Promise<Worker[]> {
  const claimed = await claimedWorkerHosts(scene.client);
  const result: Worker[] = [];
  for (const [name, metal3Machine] of claimed) {
    const node = String(writtenConfigDrive(scene.bmcs, name).meta_data['local-hostname']);
    result.push({ host: name, metal3Machine, machine: await machineOf(scene.client, metal3Machine), node });
  }
  return result;
}

async function exists(client: ClusterClient, kind: string, name: string): Promise<boolean> {
  return (await client.kubectlResult('get', kind, name, '-n', SEED)).code === 0;
}

/**
 * Whether the MachineHealthCheck counts every worker healthy (its status.currentHealthy). Not the
 * Machines' HealthCheckSucceeded: with a remediation template, Cluster API v1.14.2 skips that
 * condition's patch on a healthy Machine that has no remediation request (patchHealthyTargets).
 */
async function allWorkersHealthy(client: ClusterClient): Promise<boolean> {
  const healthy = await client.kubectl('get', 'machinehealthcheck', 'seed-workers', '-n', SEED, '-o', 'jsonpath={.status.currentHealthy}');
  return healthy === String(SEED_WORKER_REPLICAS);
}

function powerActions(bmcs: BMCs, id: string, from: number): string[] {
  return bmcs.redfish
    .system(id)
    .actions.slice(from)
    .filter((action) => action.action === 'Reset')
    .map((action) => action.detail ?? '');
}

/** The template's MachineHealthCheck with a test-sized timeout (the template's is 300 s). */
async function shortenHealthCheckTimeout(client: ClusterClient): Promise<void> {
  const conditions = ['Unknown', 'False'].map((status) => ({ type: 'Ready', status, timeoutSeconds: 5 }));
  const patch = [{ op: 'replace', path: '/spec/checks/unhealthyNodeConditions', value: conditions }];
  await client.kubectl('patch', 'machinehealthcheck', 'seed-workers', '-n', SEED, '--type=json', '-p', JSON.stringify(patch));
}

/** A worker's Node goes unreachable; the MachineHealthCheck and Ironhook's reboot remediation bring it back. */
export async function remediateUnreachableWorker(scene: SeedScene): Promise<void> {
  const { client, workload, bmcs } = scene;
  await shortenHealthCheckTimeout(client);
  const [worker] = await workers(scene);
  if (worker === undefined) throw new Error('no worker host is claimed');
  const imagesBefore = bmcs.fleet.record(worker.host).images.length;
  const actionsBefore = bmcs.redfish.system(worker.host).actions.length;
  await waitFor('the MachineHealthCheck counts every worker healthy', async () => allWorkersHealthy(client), 120_000, 1000);

  await playNodeUnreachable(workload, worker.node, new Date());
  // Cluster API's remediation request is named after the Machine.
  await waitFor('Metal3Remediation created by the MachineHealthCheck', async () => exists(client, 'metal3remediation', worker.machine), 120_000, 1000);
  const offThenOn = (resets: string[]): boolean => resets.length >= 2 && /Off|Shutdown/u.test(resets[0] ?? '') && /On$/u.test(resets.at(-1) ?? '');
  await waitFor(
    `${worker.host} powered off and on again by the remediation`,
    async () => Promise.resolve(offThenOn(powerActions(bmcs, worker.host, actionsBefore))),
    180_000,
    500,
  );
  await waitFor(`Node ${worker.node} fenced (deleted)`, async () => (await workload.node(worker.node)) === undefined, 120_000, 1000);
  const phase = async (): Promise<string> => client.kubectl('get', 'metal3remediation', worker.machine, '-n', SEED, '-o', 'jsonpath={.status.phase}');
  await waitFor('Metal3Remediation phase Waiting', async () => (await phase()) === 'Waiting', 120_000, 1000);
  process.stdout.write(`kubectl -n seed get metal3remediation:\n${await client.kubectl('get', 'metal3remediation', '-n', SEED)}\n`);

  // The host boots again and its kubelet re-registers the Node.
  await playKubeletJoin(workload, { name: worker.node, uuid: await hostUID(client, worker.host) });
  await waitFor('the MachineHealthCheck ends the remediation', async () => !(await exists(client, 'metal3remediation', worker.machine)), 180_000, 1000);
  await waitFor('the MachineHealthCheck counts every worker healthy again', async () => allWorkersHealthy(client), 120_000, 1000);
  const after = await host(client, SEED, worker.host);
  expect(after.status?.provisioning?.state).toBe('provisioned');
  expect(bmcs.fleet.record(worker.host).images).toHaveLength(imagesBefore);
  // The kubelet registers the Node without a providerID; the remediation's Restore puts the fenced Node's back.
  const providerID = async (): Promise<string> => (await workload.node(worker.node))?.spec?.providerID ?? '';
  await waitFor(`providerID on the re-registered ${worker.node}`, async () => (await providerID()).startsWith('metal3://'), 120_000, 1000);
}

/** The workers' Metal3MachineTemplate copied under a new name with a new image URL. */
async function createUpgradedTemplate(client: ClusterClient, name: string, imageURL: string): Promise<void> {
  interface TemplateView {
    apiVersion: string;
    kind: string;
    spec: { nodeReuse?: boolean; template: { spec: { image: Record<string, unknown> } & Record<string, unknown> } };
  }
  const current = JSON.parse(await client.kubectl('get', 'metal3machinetemplate', 'seed-workers', '-n', SEED, '-o', 'json')) as TemplateView;
  const { spec } = current;
  const upgraded = {
    apiVersion: current.apiVersion,
    kind: current.kind,
    metadata: { name, namespace: SEED },
    spec: { ...spec, template: { spec: { ...spec.template.spec, image: { ...spec.template.spec.image, url: imageURL } } } },
  };
  const created = await kubectlApply(client.kubeconfig, JSON.stringify(upgraded));
  if (created.code !== 0) throw new Error(`seed-workers-v2: ${created.stderr}`);
}

/**
 * Whether `worker`'s host is provisioned with `imageURL` for another Metal3Machine: a second image
 * written (the fake agent records the URL without its query, so the host's spec says which).
 */
async function reprovisioned(scene: SeedScene, worker: Worker, imageURL: string): Promise<boolean> {
  const view = await host(scene.client, SEED, worker.host);
  const newConsumer = ![undefined, worker.metal3Machine].includes(view.spec?.consumerRef?.name);
  const provisioned = view.status?.provisioning?.state === 'provisioned' && view.spec?.image?.url === imageURL;
  return newConsumer && provisioned && scene.bmcs.fleet.record(worker.host).images.length === 2;
}

/**
 * When `worker`'s host has been provisioned again for a new Machine with `imageURL`, and the old
 * Machine (with its Node) is gone, its kubelet joins under the new name: true once played.
 */
async function rejoinWhenReprovisioned(scene: SeedScene, worker: Worker, imageURL: string): Promise<boolean> {
  if (!(await reprovisioned(scene, worker, imageURL)) || (await exists(scene.client, 'machine', worker.machine))) return false;
  const name = String(writtenConfigDrive(scene.bmcs, worker.host).meta_data['local-hostname']);
  await playKubeletJoin(scene.workload, { name, uuid: await hostUID(scene.client, worker.host) });
  return true;
}

/** A rolling upgrade of the workers to a new image: every replacement reuses its predecessor's host. */
export async function rollingUpgradeReusesHosts(scene: SeedScene): Promise<void> {
  const { client, bmcs } = scene;
  const before = await workers(scene);
  const imageURL = `${bmcs.files.diskURL}?release=2`;
  await createUpgradedTemplate(client, 'seed-workers-v2', imageURL);
  const patch = { spec: { template: { spec: { infrastructureRef: { name: 'seed-workers-v2' } } } } };
  await client.kubectl('patch', 'machinedeployment', 'seed-workers', '-n', SEED, '--type=merge', '-p', JSON.stringify(patch));

  const rejoined = new Set<string>();
  const allRejoined = async (): Promise<boolean> => {
    for (const worker of before) if (!rejoined.has(worker.host) && (await rejoinWhenReprovisioned(scene, worker, imageURL))) rejoined.add(worker.host);
    return rejoined.size === before.length;
  };
  await waitFor('every worker host reprovisioned for a Machine of seed-workers-v2 and rejoined', allRejoined, 900_000, 2000);
  const upToDate = async (): Promise<boolean> => {
    const status = JSON.parse(await client.kubectl('get', 'machinedeployment', 'seed-workers', '-n', SEED, '-o', 'jsonpath={.status}')) as Record<
      string,
      number
    >;
    return status.replicas === before.length && status.upToDateReplicas === before.length && status.availableReplicas === before.length;
  };
  await waitFor('MachineDeployment seed-workers rolled out and available', upToDate, 300_000, 2000);

  process.stdout.write(`kubectl -n seed get machines:\n${await client.kubectl('get', 'machines.cluster.x-k8s.io', '-n', SEED)}\n`);
  process.stdout.write(`kubectl -n seed get bmh -l role=worker:\n${await client.kubectl('get', 'bmh', '-n', SEED, '-l', 'role=worker')}\n`);
  expect([...(await claimedWorkerHosts(client)).keys()]).toEqual(before.map((worker) => worker.host));
  for (const worker of before) {
    expect((await host(client, SEED, worker.host)).spec?.image?.url).toBe(imageURL);
    expect(bmcs.fleet.record(worker.host).images.map((image) => image.url)).toEqual([bmcs.files.diskURL, bmcs.files.diskURL]);
  }
  const spare = SEED_WORKER_HOSTS.filter((name) => !before.some((worker) => worker.host === name));
  for (const name of spare) expect(bmcs.fleet.record(name).images, name).toEqual([]);
}
