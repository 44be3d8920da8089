// The remediation scenarios of capm3-provider.test.ts: the test plays the MachineHealthCheck by
// creating the Metal3Remediation (named after the Machine, owned by it) once the machine runs.
import type { ExpectStatic } from 'vitest';
import type { RedfishEmulator } from '../../emulators/redfish/index.js';
import { waitFor } from '../../devenv/processes.js';
import type { WorkloadCluster } from '../../devenv/workload.js';
import type { Metal3MachineView, ObjectView, Scene } from './capm3-support.js';
import { CAPI_API, INFRA_API, condition, openScene } from './capm3-support.js';
import type { Cluster } from './support.js';

export interface RemediationContext {
  cluster: Cluster;
  workload: WorkloadCluster;
  fleet: RedfishEmulator;
  expect: ExpectStatic;
  addFleetHost: (scene: Scene, id: string, labels: Record<string, string>) => Promise<void>;
  liveISO: Record<string, unknown>;
}

interface Running {
  scene: Scene;
  host: string;
  machine: string;
  node: string;
}

/** One provisioned worker on `host` with a registered Node carrying a label and an annotation. */
async function runningWorker(context: RemediationContext, prefix: string, host: string): Promise<Running> {
  const scene = await openScene(context.cluster.env, context.workload, prefix);
  const pool = { 'example.com/pool': host };
  await context.addFleetHost(scene, host, pool);
  await scene.waitHostState(host, 'available');
  await scene.createTemplate('workers', { image: context.liveISO, hostSelector: { matchLabels: pool } });
  await scene.createDeployment('workers', 'workers', 1);
  const [metal3Machine = ''] = await scene.waitMachines('workers', 1);
  context.expect(await scene.waitClaim(metal3Machine)).toBe(host);
  await scene.waitHostState(host, 'provisioned');
  const node = `${scene.namespace}-worker`;
  await context.workload.createNode({
    name: node,
    uuid: await scene.uid('baremetalhost', host),
    labels: { 'example.com/role': 'worker' },
    annotations: { 'example.com/rack': 'r1' },
  });
  const providerID = `metal3://${scene.namespace}/${host}/${metal3Machine}`;
  await scene.waitUntil<Metal3MachineView>('metal3machine', metal3Machine, {
    what: 'provisioned',
    check: (view) => view.spec.providerID === providerID && view.status?.initialization?.provisioned === true,
  });
  const machine = await scene.machineOf(metal3Machine);
  await scene.waitUntil<{ status?: { nodeRef?: { name: string } } }>('machine', machine, {
    what: 'nodeRef (Cluster API)',
    check: (view) => view.status?.nodeRef?.name === node,
  });
  return { scene, host, machine, node };
}

/** What a MachineHealthCheck does: a Metal3Remediation named after the Machine, owned by it. */
async function remediate(running: Running, strategy: Record<string, unknown>): Promise<string> {
  const { scene, machine } = running;
  const owner = { apiVersion: CAPI_API, kind: 'Machine', name: machine, uid: await scene.uid('machine', machine), controller: true, blockOwnerDeletion: true };
  await scene.apply([
    {
      apiVersion: INFRA_API,
      kind: 'Metal3Remediation',
      metadata: { name: machine, ownerReferences: [owner] },
      spec: { strategy: { type: 'Reboot', ...strategy } },
    },
  ]);
  return scene.uid('metal3remediation', machine);
}

/** Power-off resets the emulator recorded for `id` since `from` actions. */
function powerOffs(fleet: RedfishEmulator, id: string, from: number): number {
  return fleet
    .system(id)
    .actions.slice(from)
    .filter((action) => action.action === 'Reset' && /Off|Shutdown/u.test(action.detail ?? '')).length;
}

/** Polls the host every 250 ms and remembers whether `annotation` was ever present. */
function watchAnnotation(scene: Scene, host: string, annotation: string): { seen: () => boolean; stop: () => void } {
  let seen = false;
  let stopped = false;
  const poll = async (): Promise<void> => {
    while (!stopped && !seen) {
      seen = (await scene.host(host)).metadata.annotations?.[annotation] !== undefined;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  void poll().catch(() => undefined);
  return {
    seen: () => seen,
    stop: () => {
      stopped = true;
    },
  };
}

type RemediationView = ObjectView<unknown, { phase?: string; retryCount?: number }>;

export async function remediationSucceeds(context: RemediationContext): Promise<void> {
  const { expect, fleet, workload } = context;
  const running = await runningWorker(context, 'capm3-remedy', 'rem-0');
  const { scene, host, machine, node } = running;
  const actionsBefore = fleet.system(host).actions.length;
  const uidPromise = remediate(running, { retryLimit: 1, timeoutSeconds: 300 });
  const uid = await uidPromise;
  const powerAnnotation = `reboot.metal3.io/metal3-remediation-${uid}`;
  const watch = watchAnnotation(scene, host, powerAnnotation);
  await waitFor(`${host} powered off by the remediation`, async () => Promise.resolve(powerOffs(fleet, host, actionsBefore) >= 1), 120_000, 250);
  await waitFor(`Node ${node} fenced (deleted)`, async () => (await workload.node(node)) === undefined, 120_000, 1000);
  const waiting = await scene.waitUntil<RemediationView>(
    'metal3remediation',
    machine,
    { what: 'phase Waiting', check: (view) => view.status?.phase === 'Waiting' },
    120_000,
  );
  expect(waiting.status?.retryCount ?? 0).toBe(0);
  await waitFor(`${host} powered on again`, async () => Promise.resolve(fleet.system(host).powerState === 'On'), 120_000, 250);
  watch.stop();
  expect(watch.seen()).toBe(true);
  await scene.waitUntil<ObjectView>(
    'baremetalhost',
    host,
    { what: 'power-off annotation removed', check: (view) => view.metadata.annotations?.[powerAnnotation] === undefined },
    60_000,
  );

  await workload.createNode({ name: node, uuid: await scene.uid('baremetalhost', host) });
  await waitFor(
    `Node ${node} labels and annotations restored`,
    async () => {
      const view = await workload.node(node);
      return view?.metadata.labels?.['example.com/role'] === 'worker' && view.metadata.annotations?.['example.com/rack'] === 'r1';
    },
    120_000,
    1000,
  );
  const after = await scene.get<RemediationView>('metal3remediation', machine);
  expect(after.status?.phase).toBe('Waiting');
  expect(after.metadata.finalizers ?? []).not.toContain('metal3remediation.infrastructure.cluster.x-k8s.io');
}

export async function remediationGivesUp(context: RemediationContext): Promise<void> {
  const { expect, fleet, workload } = context;
  const running = await runningWorker(context, 'capm3-giveup', 'rem-1');
  const { scene, host, machine, node } = running;
  const actionsBefore = fleet.system(host).actions.length;
  await remediate(running, { retryLimit: 1, timeoutSeconds: 100 });
  await waitFor(`Node ${node} fenced (deleted)`, async () => (await workload.node(node)) === undefined, 120_000, 1000);
  const gaveUp = await scene.waitUntil<RemediationView>(
    'metal3remediation',
    machine,
    { what: 'phase Deleting machine', check: (view) => view.status?.phase === 'Deleting machine' },
    420_000,
  );
  expect(gaveUp.status?.retryCount).toBe(1);
  expect(powerOffs(fleet, host, actionsBefore)).toBeGreaterThanOrEqual(2);
  // The give-up ObjectPatches are created with the phase; the pool applies them after it lands.
  const owned = await scene.waitUntil<ObjectView>(
    'machine',
    machine,
    { what: 'OwnerRemediated on the Machine', check: (view) => condition(view, 'OwnerRemediated') !== undefined },
    60_000,
  );
  expect(condition(owned, 'OwnerRemediated')).toEqual(expect.objectContaining({ status: 'False', reason: 'WaitingForRemediation' }));
  const marked = await scene.waitUntil<ObjectView>(
    'baremetalhost',
    host,
    { what: 'the host marked unhealthy', check: (view) => Object.keys(view.metadata.annotations ?? {}).some((key) => key.endsWith('metal3.io/unhealthy')) },
    60_000,
  );
  const unhealthy = marked.metadata.annotations ?? {};
  expect(unhealthy['capm3.metal3.io/unhealthy'] ?? unhealthy['capi.metal3.io/unhealthy']).toBe('capm3/UnhealthyNode');
  expect(await workload.node(node)).toBeUndefined();
}
