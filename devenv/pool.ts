// The driver pool as local processes on 127.0.0.1: one replica (LEADER_ELECT=false, the e2e
// default) or several with leader election on (ADR 0022), sharing the agent API port the way
// replicas share a Service (only the leader listens on it). Restart handles kill a replica with
// SIGKILL (or SIGTERM) and start it again with the same ports.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, isAlive, programArgs, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface PoolProcessOptions {
  dir: string;
  kubeconfig: string;
  metricsPort: number;
  agentPort: number;
  /** File server base URL (http://127.0.0.1:<port>) with /images/ironic-python-agent.{iso,kernel,initramfs}. */
  filesURL: string;
  detached?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Log file name (default driver-pool). */
  name?: string;
}

/** The driver pool (`node --import tsx drivers/main.ts`, or dist/: programArgs) on loopback, tuned for tests and demos. */
export async function startPoolProcess(options: PoolProcessOptions): Promise<StartedProcess> {
  const images = `${options.filesURL}/images/ironic-python-agent`;
  const started = startProcess({
    name: options.name ?? 'driver-pool',
    command: process.execPath,
    args: programArgs(ROOT, 'drivers/main'),
    cwd: ROOT,
    logDir: join(options.dir, 'logs'),
    detached: options.detached === true,
    env: {
      KUBECONFIG: options.kubeconfig,
      ALLOWED_BMC_NETWORKS: '127.0.0.0/8,::1/128',
      METRICS_BIND_ADDRESS: '127.0.0.1',
      METRICS_PORT: String(options.metricsPort),
      AGENT_API_HOST: '127.0.0.1',
      AGENT_API_PORT: String(options.agentPort),
      AGENT_STATE_STORE: 'secret',
      DEPLOY_ISO_URL: `${images}.iso`,
      DEPLOY_KERNEL_URL: `${images}.kernel`,
      DEPLOY_RAMDISK_URL: `${images}.initramfs`,
      IPMI_MIN_COMMAND_INTERVAL_MS: '0',
      LEADER_ELECT: 'false',
      SHUTDOWN_TIMEOUT_SECONDS: '2',
      POWER_STATE_CHANGE_TIMEOUT_SECONDS: '30',
      SOFT_POWER_OFF_TIMEOUT_SECONDS: '10',
      AGENT_BOOT_TIMEOUT_SECONDS: '120',
      AGENT_COMMAND_TIMEOUT_SECONDS: '120',
      BMC_TIMEOUT_SECONDS: '20',
      LOG_LEVEL: 'debug',
      ...options.env,
    },
  });
  await waitFor(`${started.name} /readyz`, async () => (await fetch(`http://127.0.0.1:${String(options.metricsPort)}/readyz`)).ok, 60_000);
  return started;
}

export interface PoolHandle {
  /** The first replica (the only one unless `replicas` > 1). */
  readonly process: StartedProcess;
  readonly replicas: readonly StartedProcess[];
  /** The first replica's metrics port. */
  readonly metricsPort: number;
  readonly metricsPorts: readonly number[];
  readonly agentPort: number;
  /** SIGKILL (or SIGTERM with `kill: false`) the first (or `replica`) and start it again with the same ports. */
  restart(options?: { kill?: boolean; replica?: number }): Promise<void>;
  stop(): Promise<void>;
}

interface PoolReplicaSettings {
  base: Omit<PoolProcessOptions, 'metricsPort' | 'name'>;
  replicas: number;
  /** The environment's process list: restarted replicas replace their predecessor there. */
  processes: StartedProcess[];
}

/** `settings.replicas` pool processes (leader election on when more than one), started one after the other. */
export async function startPoolReplicas(settings: PoolReplicaSettings): Promise<PoolHandle> {
  const { base, replicas, processes } = settings;
  const elect = replicas > 1 ? { LEADER_ELECT: 'true' } : {};
  const options: PoolProcessOptions[] = [];
  const current: StartedProcess[] = [];
  for (let index = 0; index < replicas; index += 1) {
    const name = replicas > 1 ? `driver-pool-${String(index)}` : 'driver-pool';
    options.push({ ...base, name, metricsPort: await freePort(), env: { ...elect, ...base.env } });
    current.push(await startPoolProcess(options[index] as PoolProcessOptions));
    processes.push(current[index] as StartedProcess);
  }
  const replica = (index: number): StartedProcess => {
    const found = current[index];
    if (found === undefined) throw new Error(`no driver pool replica ${String(index)}`);
    return found;
  };
  return {
    get process(): StartedProcess {
      return replica(0);
    },
    get replicas(): readonly StartedProcess[] {
      return [...current];
    },
    metricsPort: options[0]?.metricsPort ?? 0,
    metricsPorts: options.map((option) => option.metricsPort),
    agentPort: base.agentPort,
    restart: async (restart = {}) => {
      const index = restart.replica ?? 0;
      const old = replica(index);
      if (restart.kill === false) {
        await stopProcess(old.pid);
      } else {
        if (isAlive(old.pid)) process.kill(old.pid, 'SIGKILL');
        await waitFor('the killed pool to exit', async () => Promise.resolve(!isAlive(old.pid)), 10_000, 50);
      }
      current[index] = await startPoolProcess(options[index] as PoolProcessOptions);
      const at = processes.indexOf(old);
      if (at < 0) processes.push(replica(index));
      else processes.splice(at, 1, replica(index));
    },
    stop: async () => {
      for (const started of current) await stopProcess(started.pid);
    },
  };
}
