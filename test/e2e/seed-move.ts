// The seed story's last step (clusterctl-init.test.ts): `clusterctl move` of the provisioned and
// running seed to a second management cluster that runs pods too (management-cluster.ts, the
// node in slot 1), with Cluster API and Ironhook installed there by `clusterctl init` from a
// repository of its own. The BareMetalHost and HardwareData CRDs get the move labels upstream's
// pivoting guide gives them, and IPPools move with their addresses. What is checked: the move
// waits for block-move, the hosts arrive with their status (carried in
// `baremetalhost.metal3.io/status`), the target unpauses them, every child Metacontroller made
// belongs to its re-created parent again, the IPClaims keep their addresses, the Cluster is
// Available there, and no BMC saw a single action and no agent an image from the first pause to
// the end.
import { expect } from 'vitest';
import type { BMCs } from '../../devenv/bmcs.js';
import { waitFor } from '../../devenv/processes.js';
import { waitForIronhookPods, type ManagementCluster } from './management-cluster.js';
import { describeSeedUntilAvailable, SEED, SEED_CONTROL_PLANE, SEED_WORKER_HOSTS } from './seed-support.js';
import type { ClusterClient, HostView } from './support.js';

const SEED_HOSTS = [SEED_CONTROL_PLANE, ...SEED_WORKER_HOSTS];
const PAUSED = 'baremetalhost.metal3.io/paused';
const BLOCK_MOVE = 'clusterctl.cluster.x-k8s.io/block-move';
const STATUS = 'baremetalhost.metal3.io/status';

export interface MoveScene {
  source: ManagementCluster;
  target: ManagementCluster;
  bmcs: BMCs;
}

interface MovedHost {
  state: string | undefined;
  poweredOn: boolean | undefined;
  consumer: string | undefined;
  image: string | undefined;
}

async function seedHosts(client: ClusterClient): Promise<Map<string, HostView>> {
  const list = JSON.parse(await client.kubectl('get', 'bmh', '-n', SEED, '-o', 'json')) as { items: HostView[] };
  return new Map(list.items.map((item) => [item.metadata.name, item]));
}

function summary(view: HostView): MovedHost {
  return {
    state: view.status?.provisioning?.state,
    poweredOn: view.status?.poweredOn,
    consumer: view.spec?.consumerRef?.name,
    image: view.spec?.image?.url,
  };
}

/** On the target: the state the host had on the source; a claimed host unpaused, with block-move again. */
function restoredAsBefore(view: HostView | undefined, before: MovedHost): boolean {
  if (view === undefined) return false;
  const annotations = view.metadata.annotations ?? {};
  const unpaused = before.consumer === undefined || (!(PAUSED in annotations) && BLOCK_MOVE in annotations);
  return view.status?.provisioning?.state === before.state && unpaused;
}

/** Everything every emulated BMC and the fake agent have done so far, per host. */
function bmcActivity(bmcs: BMCs): Map<string, { actions: number; images: number }> {
  return new Map(SEED_HOSTS.map((name) => [name, { actions: bmcs.redfish.system(name).actions.length, images: bmcs.fleet.record(name).images.length }]));
}

async function installProviders(target: ManagementCluster): Promise<void> {
  const args = ['init', '--core', 'cluster-api', '--bootstrap', 'kubeadm', '--control-plane', 'kubeadm', '--infrastructure', 'metal3'];
  const result = await target.clusterctl([...args, '--wait-providers', '--wait-provider-timeout', '400']);
  expect(result, result.stderr).toEqual(expect.objectContaining({ code: 0 }));
  await waitForIronhookPods(target.client);
}

/** The labels upstream's pivoting guide puts on the host CRDs, so that hosts move with their children. */
async function labelHostCRDs(source: ManagementCluster): Promise<void> {
  const labels = ['clusterctl.cluster.x-k8s.io=', 'clusterctl.cluster.x-k8s.io/move='];
  await source.client.kubectl('label', '--overwrite', 'crd', 'baremetalhosts.metal3.io', ...labels, 'clusterctl.cluster.x-k8s.io/move-hierarchy=');
  await source.client.kubectl('label', '--overwrite', 'crd', 'hardwaredata.metal3.io', ...labels);
  // No Cluster owns an IPPool here (upstream's IPAM adds that owner reference): the pools move with their addresses.
  await source.client.kubectl('label', '--overwrite', 'crd', 'ippools.ipam.metal3.io', ...labels, 'clusterctl.cluster.x-k8s.io/move-hierarchy=');
}

/** Each IPClaim's address, by claim. */
async function claimedAddresses(client: ClusterClient): Promise<Record<string, string | undefined>> {
  const list = JSON.parse(await client.kubectl('get', 'ipclaims', '-n', SEED, '-o', 'json')) as {
    items: { metadata: { name: string }; status?: { address?: { name?: string } } }[];
  };
  return Object.fromEntries(list.items.map((item) => [item.metadata.name, item.status?.address?.name]));
}

/**
 * Hosts no machine holds are not the provider's to pause: the SRE pauses them with their status
 * (docs/capm3.md, "clusterctl move"), or the target registers and inspects them anew.
 */
async function pauseFreeHosts(client: ClusterClient, hosts: Map<string, HostView>): Promise<string[]> {
  const free = [...hosts.values()].filter((view) => view.spec?.consumerRef === undefined);
  for (const view of free) {
    const status = Object.fromEntries(Object.entries(view.status ?? {}).filter(([key]) => key !== 'hardware'));
    await client.kubectl('annotate', 'bmh', '-n', SEED, view.metadata.name, `${PAUSED}=move`, `${STATUS}=${JSON.stringify(status)}`);
  }
  return free.map((view) => view.metadata.name).sort();
}

interface ChildView {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { uid: string; controller?: boolean }[] };
}

/** Metacontroller's children in the seed's namespace whose controller-uid label names no controller owner. */
async function unadoptedChildren(client: ClusterClient): Promise<string[]> {
  const kinds = [
    'hardwaredata,hostfirmwaresettings,metal3dataclaims,metal3datas,ipclaims,ipaddresses.ipam.metal3.io,secrets',
    'hostoperations,bmcmonitors,objectpatches,nodeoperations',
  ].join(',');
  const list = JSON.parse(await client.kubectl('get', kinds, '-n', SEED, '-l', 'controller-uid', '-o', 'json')) as { items: ChildView[] };
  return list.items
    .filter((item) => !(item.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === item.metadata.labels?.['controller-uid']))
    .map((item) => `${item.kind}/${item.metadata.name}`)
    .sort();
}

export async function moveSeedToSecondManagementCluster(scene: MoveScene): Promise<void> {
  const { source, target, bmcs } = scene;
  await installProviders(target);
  await labelHostCRDs(source);
  const sourceHosts = await seedHosts(source.client);
  const before = new Map([...sourceHosts].map(([name, view]) => [name, summary(view)]));
  expect([...before.keys()].sort()).toEqual([...SEED_HOSTS].sort());
  const activity = bmcActivity(bmcs);
  const addresses = await claimedAddresses(source.client);
  expect(Object.keys(addresses)).toHaveLength(3);
  const free = await pauseFreeHosts(source.client, sourceHosts);
  expect(free).toHaveLength(SEED_HOSTS.length - 3);

  const started = Date.now();
  const moved = await source.clusterctl(['move', '-n', SEED, '--to-kubeconfig', target.plane.kubeconfig, '--v', '3']);
  process.stdout.write(`clusterctl move (${String(Math.round((Date.now() - started) / 1000))} s):\n${moved.stdout}${moved.stderr}\n`);
  expect(moved, moved.stderr).toEqual(expect.objectContaining({ code: 0 }));
  expect(moved.stdout + moved.stderr).toMatch(/block-move/iu);

  // Nothing of the seed is left on the source.
  expect((await source.client.kubectl('get', 'cluster,bmh,metal3machine', '-n', SEED, '-o', 'name')).trim()).toBe('');

  // The free hosts unpaused on the target take their status from the annotation (before that, a
  // paused host is left alone); the claimed ones are unpaused by the provider, with block-move again.
  for (const name of free) await target.client.kubectl('annotate', 'bmh', '-n', SEED, name, `${PAUSED}-`);
  const restored = async (): Promise<boolean> => {
    const hosts = await seedHosts(target.client);
    return [...before].every(([name, was]) => restoredAsBefore(hosts.get(name), was));
  };
  await waitFor("the target's hosts with their status, the claimed ones unpaused", restored, 300_000, 2000);
  // Once restored, the annotation is read no more; removing it is tidying up.
  for (const name of free) await target.client.kubectl('annotate', 'bmh', '-n', SEED, name, `${STATUS}-`);
  // The children Metacontroller made on the source belong to their re-created parents again.
  await waitFor("the moved children adopted by the target's parents", async () => (await unadoptedChildren(target.client)).length === 0, 120_000, 2000).catch(
    () => undefined,
  );
  expect(await unadoptedChildren(target.client)).toEqual([]);
  await waitFor(
    'the IPClaims with their addresses',
    async () => JSON.stringify(await claimedAddresses(target.client)) === JSON.stringify(addresses),
    120_000,
    2000,
  ).catch(() => undefined);
  expect(await claimedAddresses(target.client)).toEqual(addresses);
  const hardware = [...(await seedHosts(target.client)).values()].filter((view) => view.status?.hardware?.cpu === undefined);
  expect(hardware.map((view) => view.metadata.name)).toEqual([]);
  const described = await describeSeedUntilAvailable(target, 300_000);
  process.stdout.write(`clusterctl describe cluster seed (target):\n${described.stdout}\n`);
  process.stdout.write(`kubectl -n seed get bmh (target):\n${await target.client.kubectl('get', 'bmh', '-n', SEED)}\n`);
  process.stdout.write(`kubectl -n seed get hostoperations (target):\n${await target.client.kubectl('get', 'hostoperations', '-n', SEED)}\n`);
  expect(described.stdout).toMatch(/^Cluster seed\/seed\s+3\/3\s+3\s+3\s+3\s+True\s+Available/mu);
  const after = new Map([...(await seedHosts(target.client))].map(([name, view]) => [name, summary(view)]));
  expect(after).toEqual(before);
  // No BMC saw a power, boot or media action and no agent wrote an image, on either side.
  expect(bmcActivity(bmcs)).toEqual(activity);
}
