// The whole stack the scale bench measures, every part a process of its own on 127.0.0.1: etcd,
// kube-apiserver and kube-controller-manager, upstream Metacontroller with the chart's flags, the
// hook server, one driver pool replica with the chart's defaults, and the emulated rack (fleet.ts).
// Only the file server (agent ISO, disk image, live ISO) runs inside the bench's own process.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startFileServer, type ImageFiles } from '../bmcs.js';
import { startEnvironment, type Environment } from '../environment.js';
import { startPoolReplicas, type PoolHandle } from '../pool.js';
import { freePort } from '../processes.js';
import { startScaleFleet, type ScaleFleet } from './fleet.js';

export interface StackOptions {
  dir: string;
  hosts: number;
  hostsPerEmulator: number;
  powerDelayMs: number;
  /** Extra pool environment (concurrency settings under test). */
  poolEnv?: NodeJS.ProcessEnv;
  /** Extra hook server environment. */
  hookEnv?: NodeJS.ProcessEnv;
  /** Metacontroller flags replacing the chart's (the tuning under test). */
  metacontrollerFlags?: readonly string[];
}

export interface ScaleStack {
  env: Environment;
  pool: PoolHandle;
  fleet: ScaleFleet;
  files: ImageFiles;
  password: string;
  /** The processes measured, by the role the report groups them under. */
  roles(): { role: string; pid: number }[];
  stop(): Promise<void>;
}

/** The pool as the chart runs it, but quiet: debug logging of 1000 hosts would measure the logger. */
function poolEnv(options: StackOptions): NodeJS.ProcessEnv {
  return { LOG_LEVEL: 'info', AGENT_BOOT_TIMEOUT_SECONDS: '600', AGENT_COMMAND_TIMEOUT_SECONDS: '600', ...options.poolEnv };
}

const ROLE_OF: Record<string, string> = {
  etcd: 'etcd',
  'kube-apiserver': 'apiserver',
  'kube-controller-manager': 'controller-manager',
  metacontroller: 'metacontroller',
  hooks: 'hooks',
  'driver-pool': 'pool',
};

/** The report's role for a started process (Ironhook's run and upstream's, devenv/upstream). */
export function roleOf(name: string): string {
  if (/^redfish-\d+-agent$/u.test(name)) return 'fake agents';
  if (/^redfish-\d+$/u.test(name)) return 'emulators';
  return ROLE_OF[name] ?? name;
}

export async function startScaleStack(options: StackOptions): Promise<ScaleStack> {
  const env = await startEnvironment({
    dir: options.dir,
    ...(options.hookEnv === undefined ? {} : { hookEnv: options.hookEnv }),
    ...(options.metacontrollerFlags === undefined ? {} : { metacontrollerFlags: options.metacontrollerFlags }),
  });
  let files: ImageFiles | undefined;
  let pool: PoolHandle | undefined;
  try {
    files = await startFileServer(join(options.dir, 'images'));
    const agentPort = await freePort();
    const base = { dir: options.dir, kubeconfig: env.kubeconfig, agentPort, filesURL: files.url, env: poolEnv(options) };
    pool = await startPoolReplicas({ base, replicas: 1, processes: env.processes });
    const password = `bench-${randomBytes(6).toString('hex')}`;
    const fleet = await startScaleFleet({
      dir: options.dir,
      hosts: options.hosts,
      perProcess: options.hostsPerEmulator,
      password,
      agentAPIURL: `http://127.0.0.1:${String(agentPort)}`,
      powerDelayMs: options.powerDelayMs,
      processes: env.processes,
    });
    const [startedFiles, startedPool] = [files, pool];
    return {
      env,
      pool: startedPool,
      fleet,
      files: startedFiles,
      password,
      roles: () => env.processes.map((started) => ({ role: roleOf(started.name), pid: started.pid })),
      stop: async () => {
        await startedPool.stop();
        await env.stop();
        await startedFiles.close();
      },
    };
  } catch (error) {
    await pool?.stop();
    await env.stop();
    await files?.close();
    throw error;
  }
}
