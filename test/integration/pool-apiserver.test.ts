// The driver pool against a real kube-apiserver (devenv/controlplane.ts, Ironhook's CRDs
// from manifests/crds) with the fake BMC fleet and fake agent: requests created by the test are
// executed and their status written through the status subresource, monitors refreshed, Events
// created; and a pool that dies right after a power action (or after writing an image) and is
// restarted resumes without repeating it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import type { BMCMonitor, HostOperation, HostOperationStatus } from '../../domain/operations.js';
import { systemClock } from '../../drivers/pool/clock.js';
import { KubeClient, loadKubeConfig } from '../../drivers/kube/client.js';
import type { KubePort } from '../../drivers/kube/port.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { createPoolMetrics } from '../../drivers/pool/metrics.js';
import type { PoolMetrics } from '../../drivers/pool/metrics.js';
import { DriverPool } from '../../drivers/pool/pool.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, REPO_ROOT } from '../../devenv/environment.js';
import { waitFor } from '../../devenv/processes.js';
import { DEFAULT_SETTINGS, FakeAgentService, FakeFleet, LogCapture, credentialsSecret, monitor, operation } from '../support/fake-driver.js';
import type { FakeBMC } from '../support/fake-driver.js';

const IPMI = 'ipmi://127.0.0.1:6230';
const REDFISH = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1';

let plane: ControlPlane;
let dir = '';
let kubeconfig = '';
let namespaceCounter = 0;

async function kubectl(...args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { binary } = await import('../../devenv/processes.js');
  const { stdout } = await promisify(execFile)(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args]);
  return stdout;
}

async function apply(object: unknown): Promise<void> {
  const result = await kubectlApply(kubeconfig, JSON.stringify(object));
  if (result.code !== 0) {
    throw new Error(`apply failed: ${result.stderr}`);
  }
}

async function namespace(): Promise<string> {
  namespaceCounter += 1;
  const name = `pool-${String(process.pid)}-${String(namespaceCounter)}`;
  await kubectl('create', 'namespace', name);
  return name;
}

async function getStatus(ns: string, name: string): Promise<HostOperationStatus | undefined> {
  return (JSON.parse(await kubectl('get', 'hostoperation', name, '-n', ns, '-o', 'json')) as HostOperation).status;
}

async function waitForPhase(ns: string, name: string, phase: string): Promise<HostOperationStatus> {
  let status: HostOperationStatus | undefined;
  await waitFor(
    `${name} ${phase}`,
    async () => {
      status = await getStatus(ns, name);
      return status?.phase === phase;
    },
    60_000,
    200,
  );
  return status ?? {};
}

interface RunningPool {
  pool: DriverPool;
  logs: LogCapture;
  metrics: PoolMetrics;
  stop(): Promise<void>;
}

async function startPool(fleet: FakeFleet, agent: FakeAgentService, ns: string, kube?: KubePort): Promise<RunningPool> {
  const logs = new LogCapture();
  const logger = createLogger({ level: 'debug', destination: logs });
  const client = kube ?? new KubeClient(loadKubeConfig(kubeconfig), { clock: systemClock, livenessMs: 60_000, watchTimeoutSeconds: 60 });
  const settings = { ...DEFAULT_SETTINGS, namespaces: [ns], powerSettleTimeoutMs: 20_000 };
  const metrics = createPoolMetrics({ defaultMetrics: false });
  const pool = new DriverPool({
    kube: client,
    clock: systemClock,
    logger,
    metrics,
    agent,
    factory: fleet.factory,
    settings,
    instance: 'pool-it',
  });
  await pool.start();
  return { pool, logs, metrics, stop: () => pool.stop() };
}

/** A KubePort that "dies" when `deadly` matches a status write: from then on every call hangs, as for a killed process. */
function killable(inner: KubePort, deadly: (status: Record<string, unknown>) => boolean): { kube: KubePort; dead: () => boolean } {
  let dead = false;
  const hang = <T>(): Promise<T> => new Promise<T>(() => undefined);
  const watches: { stop(): void }[] = [];
  const kube: KubePort = {
    watch: (resource, options, onEvent) => {
      const watch = inner.watch(resource, options, (event) => {
        if (!dead) {
          onEvent(event);
        }
      });
      watches.push(watch);
      return watch;
    },
    patchStatus: (resource, ns, name, status) => {
      if (dead || deadly(status)) {
        dead = true;
        watches.forEach((watch) => {
          watch.stop();
        });
        return hang();
      }
      return inner.patchStatus(resource, ns, name, status);
    },
    getSecret: (ns, name) => (dead ? hang() : inner.getSecret(ns, name)),
    patchSecretMetadata: (ns, name, patch) => (dead ? hang() : inner.patchSecretMetadata(ns, name, patch)),
    createEvent: (ns, event) => (dead ? hang() : inner.createEvent(ns, event)),
    patchEvent: (ns, name, patch) => (dead ? hang() : inner.patchEvent(ns, name, patch)),
    deleteRequest: (resource, ns, name, uid) => (dead ? hang() : inner.deleteRequest(resource, ns, name, uid)),
    patchLabels: (resource, ns, name, labels) => (dead ? hang() : inner.patchLabels(resource, ns, name, labels)),
    getLease: (ns, name) => inner.getLease(ns, name),
    createLease: (lease) => inner.createLease(lease),
    replaceLease: (lease) => inner.replaceLease(lease),
    deleteLease: (lease) => inner.deleteLease(lease),
    servedRequestResources: () => inner.servedRequestResources(),
  };
  return { kube, dead: () => dead };
}

function fleetWith(address: string, configure: (bmc: FakeBMC) => void = () => undefined): { fleet: FakeFleet; bmc: FakeBMC; agent: FakeAgentService } {
  const fleet = new FakeFleet();
  const bmc = fleet.add(address, configure);
  const agent = new FakeAgentService();
  agent.onAgentPowerOff = () => {
    bmc.setNow('off');
  };
  return { fleet, bmc, agent };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-pool-'));
  plane = await startControlPlane({ dir, controllerManager: false });
  kubeconfig = plane.kubeconfig;
  for (const crd of ['ironhook.dev_hostoperations.yaml', 'ironhook.dev_bmcmonitors.yaml', 'metal3.io_baremetalhosts.yaml']) {
    await kubectl('apply', '--server-side', '-f', join(REPO_ROOT, 'manifests', 'crds', crd));
  }
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    'hostoperations.ironhook.dev',
    'bmcmonitors.ironhook.dev',
    'baremetalhosts.metal3.io',
  );
});

afterAll(async () => {
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Sets a BareMetalHost's status through the status subresource, as the hook would. */
async function setHostState(ns: string, name: string, state: string, errorType?: string): Promise<void> {
  const status = {
    operationalStatus: errorType === undefined ? 'OK' : 'error',
    errorMessage: '',
    errorCount: 0,
    poweredOn: false,
    provisioningFailCount: 0,
    provisioning: { ID: '', state },
    ...(errorType === undefined ? {} : { errorType }),
  };
  await kubectl('patch', 'baremetalhost', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
}

describe('driver pool against a real apiserver', () => {
  it('counts BareMetalHosts by state for the ironhook_hosts gauges from its watch, following status writes', async () => {
    const ns = await namespace();
    for (const name of ['host-a', 'host-b']) {
      await apply({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: ns }, spec: { online: false } });
    }
    await setHostState(ns, 'host-a', 'available');
    const { fleet, agent } = fleetWith(REDFISH);
    const running = await startPool(fleet, agent, ns);
    try {
      await setHostState(ns, 'host-b', 'registering', 'registration error');
      let text = '';
      await waitFor(
        'ironhook_hosts to show both hosts',
        async () => {
          text = await running.metrics.registry.metrics();
          return text.includes('ironhook_hosts{state="registering"} 1');
        },
        30_000,
        200,
      );
      expect(text).toContain('ironhook_hosts{state="available"} 1');
      expect(text).toContain('ironhook_hosts_errors{error_type="registration error"} 1');
      await kubectl('delete', 'baremetalhost', 'host-a', '-n', ns, '--wait=true');
      await waitFor('host-a to leave the gauges', async () => !(await running.metrics.registry.metrics()).includes('state="available"'), 30_000, 200);
    } finally {
      await running.stop();
    }
  });

  it('executes requests created by the test, writes their status (spec untouched) and records Events', async () => {
    const ns = await namespace();
    const { fleet, bmc, agent } = fleetWith(REDFISH);
    await apply(credentialsSecret('server-01-bmc', 'admin', 'password', ns));
    const running = await startPool(fleet, agent, ns);
    try {
      const register = operation('Register', 1, { namespace: ns, bmc: { address: REDFISH, credentialsName: 'server-01-bmc' } });
      await apply(register);
      const registered = await waitForPhase(ns, 'server-01-register-1', Phase.Succeeded);
      expect(registered.result).toMatchObject({ credentials: { name: 'server-01-bmc', namespace: ns }, poweredOn: false, provisioningID: 'uid-server-01' });
      const secret = JSON.parse(await kubectl('get', 'secret', 'server-01-bmc', '-n', ns, '-o', 'json')) as {
        metadata: { labels?: Record<string, string>; finalizers?: string[]; resourceVersion: string };
      };
      expect(secret.metadata.labels?.['environment.metal3.io']).toBe('baremetal');
      expect(secret.metadata.finalizers).toEqual(['baremetalhost.metal3.io/secret']);
      expect(registered.result?.credentials?.credentialsVersion).toBe(secret.metadata.resourceVersion);

      await apply(operation('PowerOn', 2, { namespace: ns, bmc: { address: REDFISH, credentialsName: 'server-01-bmc' } }));
      const powered = await waitForPhase(ns, 'server-01-poweron-2', Phase.Succeeded);
      expect(powered.result?.poweredOn).toBe(true);
      expect(bmc.commandsOf('power:')).toEqual(['power:on']);
      const stored = JSON.parse(await kubectl('get', 'hostoperation', 'server-01-poweron-2', '-n', ns, '-o', 'json')) as HostOperation;
      expect(stored.spec.action).toBe('PowerOn');
      expect(stored.metadata.generation).toBe(1);

      const events = JSON.parse(await kubectl('get', 'events', '-n', ns, '-o', 'json')) as {
        items: { reason: string; reportingComponent?: string; involvedObject: { kind: string; name: string } }[];
      };
      expect(events.items.map((event) => event.reason).sort()).toEqual(['BMCAccessValidated', 'PowerOn', 'Registered']);
      expect(events.items[0]).toMatchObject({ reportingComponent: 'ironhook.dev/driver-pool', involvedObject: { kind: 'BareMetalHost', name: 'server-01' } });
    } finally {
      await running.stop();
    }
  });

  it('refreshes a BMCMonitor through the status subresource', async () => {
    const ns = await namespace();
    const { fleet, agent } = fleetWith(REDFISH, (bmc) => {
      bmc.power = 'on';
    });
    await apply(credentialsSecret('server-01-bmc', 'admin', 'password', ns));
    const running = await startPool(fleet, agent, ns);
    try {
      await apply(monitor('server-01', { namespace: ns, address: REDFISH }));
      let status: BMCMonitor['status'];
      await waitFor('monitor status', async () => {
        status = (JSON.parse(await kubectl('get', 'bmcmonitor', 'server-01', '-n', ns, '-o', 'json')) as BMCMonitor).status;
        return status?.observedTime !== undefined;
      });
      expect(status).toMatchObject({ poweredOn: true, reachable: true, credentials: { name: 'server-01-bmc', namespace: ns } });
    } finally {
      await running.stop();
    }
  });

  it('a pool killed after the power action but before its status write does not repeat the action when restarted', async () => {
    const ns = await namespace();
    const { fleet, bmc, agent } = fleetWith(IPMI, (b) => {
      b.settlePolls = 1;
    });
    await apply(credentialsSecret('server-01-bmc', 'admin', 'password', ns));
    const first = killable(
      new KubeClient(loadKubeConfig(kubeconfig), { clock: systemClock, livenessMs: 60_000, watchTimeoutSeconds: 60 }),
      (status) => status.phase === Phase.Succeeded,
    );
    await startPool(fleet, agent, ns, first.kube);
    await apply(operation('PowerOn', 1, { namespace: ns, bmc: { address: IPMI, credentialsName: 'server-01-bmc' } }));
    await waitFor('the first pool to die', () => Promise.resolve(first.dead()), 60_000);
    const interrupted = await getStatus(ns, 'server-01-poweron-1');
    expect(interrupted?.phase).toBe(Phase.Running);
    expect(bmc.power).toBe('on');
    expect(bmc.commandsOf('power:')).toEqual(['power:on']);

    const second = await startPool(fleet, agent, ns);
    try {
      const status = await waitForPhase(ns, 'server-01-poweron-1', Phase.Succeeded);
      expect(bmc.commandsOf('power:')).toEqual(['power:on']);
      expect(status.steps?.map((step) => step.name)).toEqual(['PowerOn', 'Resume', 'PowerOn']);
      expect(status.steps?.at(-1)?.message).toBe('already on; no command sent');
      expect(status.startTime).toBe(interrupted?.startTime);
    } finally {
      await second.stop();
    }
  });

  it('a pool killed mid-provisioning, after the image was written, does not write it again when restarted', async () => {
    const ns = await namespace();
    const { fleet, bmc, agent } = fleetWith(IPMI);
    agent.link({ namespace: ns, name: 'server-01' }, bmc);
    await apply(credentialsSecret('server-01-bmc', 'admin', 'password', ns));
    let wroteImage = false;
    const first = killable(new KubeClient(loadKubeConfig(kubeconfig), { clock: systemClock, livenessMs: 60_000, watchTimeoutSeconds: 60 }), (status) => {
      const steps = (status.steps ?? []) as { name: string; state: string }[];
      if (wroteImage) {
        return true;
      }
      wroteImage = steps.some((step) => step.name === 'WriteImage' && step.state === Phase.Succeeded);
      return false;
    });
    await startPool(fleet, agent, ns, first.kube);
    const image = { url: 'http://127.0.0.1:8081/images/disk.qcow2', checksum: 'c'.repeat(64), checksumType: 'sha256' as const, format: 'qcow2' as const };
    await apply(operation('Provision', 1, { namespace: ns, bmc: { address: IPMI, credentialsName: 'server-01-bmc' }, provision: { image } }));
    await waitFor('the first pool to die', () => Promise.resolve(first.dead()), 60_000);
    expect(agent.images).toHaveLength(1);
    expect((await getStatus(ns, 'server-01-provision-1'))?.phase).toBe(Phase.Running);

    const second = await startPool(fleet, agent, ns);
    try {
      const status = await waitForPhase(ns, 'server-01-provision-1', Phase.Succeeded);
      expect(agent.images).toHaveLength(1);
      expect(bmc.boot).toMatchObject({ device: 'disk', persistent: true });
      expect(bmc.power).toBe('on');
      expect(status.steps?.map((step) => step.name)).toContain('Resume');
    } finally {
      await second.stop();
    }
  });
});
