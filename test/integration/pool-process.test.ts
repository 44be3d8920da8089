// `npm run drivers` as a real process (drivers/main.ts) against a real kube-apiserver and
// Ironhook's Redfish emulator, everything on 127.0.0.1: leader election over a Lease, /readyz
// and /metrics, requests executed through the real Redfish driver, a standby replica taking
// over when the leader gets SIGTERM, a leader killed with SIGKILL mid-request whose successor
// does not repeat the power action, and a canary BMC password that no log line carries.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import type { HostOperation } from '../../domain/operations.js';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator } from '../../emulators/redfish/index.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, REPO_ROOT } from '../../devenv/environment.js';
import { binary, freePort, isAlive, startProcess, stopProcess, waitFor } from '../../devenv/processes.js';
import type { StartedProcess } from '../../devenv/processes.js';
import { credentialsSecret, operation } from '../support/fake-driver.js';

const CANARY = 'canary-Pool-Pr0cess-91c4';
const NS = 'pool-process';
const run = promisify(execFile);

let plane: ControlPlane;
let emulator: RedfishEmulator;
let dir = '';
const started: StartedProcess[] = [];

interface PoolProcess {
  process: StartedProcess;
  metricsPort: number;
  name: string;
}

async function kubectl(...args: string[]): Promise<string> {
  return (await run(binary('kubectl'), ['--kubeconfig', plane.kubeconfig, ...args])).stdout;
}

async function apply(object: unknown): Promise<void> {
  const result = await kubectlApply(plane.kubeconfig, JSON.stringify(object));
  if (result.code !== 0) {
    throw new Error(`apply failed: ${result.stderr}`);
  }
}

async function startPool(name: string): Promise<PoolProcess> {
  const [metricsPort, agentPort] = [await freePort(), await freePort()];
  const process = startProcess({
    name,
    command: globalThis.process.execPath,
    args: ['--import', 'tsx', join(REPO_ROOT, 'drivers', 'main.ts')],
    cwd: REPO_ROOT,
    logDir: dir,
    env: {
      KUBECONFIG: plane.kubeconfig,
      WATCH_NAMESPACE: NS,
      ALLOWED_BMC_NETWORKS: '127.0.0.0/8,::1/128',
      METRICS_BIND_ADDRESS: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      AGENT_API_HOST: '127.0.0.1',
      AGENT_API_PORT: String(agentPort),
      AGENT_STATE_STORE: 'memory',
      LEADER_ELECTION_NAMESPACE: NS,
      POD_NAME: name,
      LEASE_DURATION_SECONDS: '4',
      RENEW_DEADLINE_SECONDS: '3',
      RETRY_PERIOD_SECONDS: '1',
      SHUTDOWN_TIMEOUT_SECONDS: '2',
      LOG_LEVEL: 'debug',
    },
  });
  started.push(process);
  await waitFor(`${name} /healthz`, async () => (await fetch(`http://127.0.0.1:${String(metricsPort)}/healthz`)).ok, 60_000);
  return { process, metricsPort, name };
}

async function metrics(pool: PoolProcess): Promise<string> {
  return (await fetch(`http://127.0.0.1:${String(pool.metricsPort)}/metrics`)).text();
}

async function isLeader(pool: PoolProcess): Promise<boolean> {
  return /^ironhook_pool_is_leader 1$/m.test(await metrics(pool));
}

async function phaseOf(name: string): Promise<HostOperation['status']> {
  return (JSON.parse(await kubectl('get', 'hostoperation', name, '-n', NS, '-o', 'json')) as HostOperation).status;
}

async function waitForPhase(name: string, phase: string, timeoutMs = 60_000): Promise<HostOperation['status']> {
  let status: HostOperation['status'];
  await waitFor(
    `${name} ${phase}`,
    async () => {
      status = await phaseOf(name);
      return status?.phase === phase;
    },
    timeoutMs,
  );
  return status;
}

function resets(id: string): string[] {
  return emulator
    .system(id)
    .actions.filter((action) => action.action === 'Reset')
    .map((action) => action.detail ?? '');
}

function request(action: 'Register' | 'PowerOn' | 'PowerOff', sequence: number, host: string): HostOperation {
  return operation(action, sequence, {
    namespace: NS,
    host: { name: host, uid: `uid-${host}` },
    bmc: { address: emulator.address(host), credentialsName: `${host}-bmc` },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-pool-process-'));
  plane = await startControlPlane({ dir, controllerManager: false });
  for (const crd of ['ironhook.dev_hostoperations.yaml', 'ironhook.dev_bmcmonitors.yaml']) {
    await kubectl('apply', '--server-side', '-f', join(REPO_ROOT, 'manifests', 'crds', crd));
  }
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', 'hostoperations.ironhook.dev', 'bmcmonitors.ironhook.dev');
  await kubectl('create', 'namespace', NS);
  const systems = ['host-0', 'host-1', 'host-2'].map((id) => ({ id, username: 'admin', password: CANARY, powerState: 'Off' as const }));
  emulator = await startRedfishEmulator({ systems, http: true, powerDelayMs: 300 });
  for (const id of ['host-0', 'host-1', 'host-2']) {
    await apply(credentialsSecret(`${id}-bmc`, 'admin', CANARY, NS));
  }
});

afterAll(async () => {
  for (const process of started) {
    await stopProcess(process.pid, 5000);
  }
  await emulator.stop();
  await plane.stop();
  if (process.env.KEEP_TEST_DIR === undefined) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the driver pool process', () => {
  it('takes the lease, becomes ready, executes requests through the real Redfish driver and exports metrics', async () => {
    const pool = await startPool('pool-a');
    await waitFor('pool-a to lead', () => isLeader(pool), 30_000);
    await waitFor('pool-a /readyz', async () => (await fetch(`http://127.0.0.1:${String(pool.metricsPort)}/readyz`)).ok, 30_000);
    const lease = JSON.parse(await kubectl('get', 'lease', 'ironhook-driver-pool', '-n', NS, '-o', 'json')) as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toBe('pool-a');

    await apply(request('Register', 1, 'host-0'));
    expect((await waitForPhase('host-0-register-1', Phase.Succeeded))?.result?.poweredOn).toBe(false);
    await apply(request('PowerOn', 2, 'host-0'));
    await waitForPhase('host-0-poweron-2', Phase.Succeeded);
    expect(emulator.system('host-0').powerState).toBe('On');
    expect(resets('host-0')).toEqual(['On']);
    const text = await metrics(pool);
    expect(text).toContain('metal3_operation_power_change_total{namespace="pool-process",host="host-0",on_off="on"} 1');
    expect(text).toMatch(/ironhook_bmc_request_duration_seconds_count\{driver="redfish",op="setPower",result="success"\} 1/);
  });

  it('a standby replica takes over when the leader is stopped with SIGTERM, and the leader releases the lease', async () => {
    const standby = await startPool('pool-b');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await isLeader(standby)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${String(standby.metricsPort)}/readyz`)).ok).toBe(true);
    const leader = started.find((process) => process.name === 'pool-a');
    await stopProcess(leader?.pid ?? 0, 10_000);
    expect(readFileSync(leader?.log ?? '', 'utf8')).toContain('released the lease');
    await waitFor('pool-b to lead', () => isLeader(standby), 15_000);
    await apply(request('Register', 1, 'host-1'));
    await waitForPhase('host-1-register-1', Phase.Succeeded);
  });

  it('a leader killed with SIGKILL mid-request: its successor resumes and sends no second power command', async () => {
    await apply(request('Register', 1, 'host-2'));
    await waitForPhase('host-2-register-1', Phase.Succeeded);
    const leader = started.find((process) => process.name === 'pool-b' && isAlive(process.pid));
    await apply(request('PowerOn', 2, 'host-2'));
    await waitFor('the power command', () => Promise.resolve(resets('host-2').length === 1), 30_000);
    process.kill(leader?.pid ?? 0, 'SIGKILL');
    expect((await phaseOf('host-2-poweron-2'))?.phase).toBe(Phase.Running);
    const successor = await startPool('pool-c');
    await waitFor('pool-c to lead', () => isLeader(successor), 30_000);
    const status = await waitForPhase('host-2-poweron-2', Phase.Succeeded);
    expect(resets('host-2')).toEqual(['On']);
    expect(status?.steps?.map((step) => step.name)).toContain('Resume');
  });

  it('never writes the BMC password to a log line', () => {
    for (const process of started) {
      expect(readFileSync(process.log, 'utf8')).not.toContain(CANARY);
    }
  });
});
