// The whole local environment: control plane, Ironhook's CRDs and controller objects, the hook
// server and upstream Metacontroller v4.17.2 (built by scripts/setup-test-binaries.sh, run with
// the chart's flags), all on 127.0.0.1. Backs the e2e tests and `npm run env:up` (the demo).
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { clusterAPICRDFiles } from './capi.js';
import { conversionListenerEnv, crdsWithLocalConversion, makeConversionTLS, type ConversionTLS } from './conversion.js';
import { startControlPlane } from './controlplane.js';
import type { ControlPlane } from './controlplane.js';
import { startBMCs } from './bmcs.js';
import type { BMCs } from './bmcs.js';
import { METACONTROLLER_CRDS, startMetacontroller } from './metacontroller.js';
import type { MetacontrollerProcess } from './metacontroller.js';
import { startPoolReplicas } from './pool.js';
import type { PoolHandle } from './pool.js';
import { binary, freePort, isAlive, programArgs, startProcess, stopProcess, waitFor } from './processes.js';
import type { RandomFaultConfig } from '../emulators/redfish/index.js';
import type { StartedProcess } from './processes.js';
import { httpsOk } from './tls.js';

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCAL_HOOK_BASE = 'http://127.0.0.1:8080';

export interface Environment {
  controlPlane: ControlPlane;
  kubeconfig: string;
  hookPort: number;
  /** The hook server's HTTPS conversion listener, which the CRDs' conversion webhooks call. */
  conversion: { port: number; url: string; caFile: string };
  processes: StartedProcess[];
  /** Upstream Metacontroller (its metrics and health ports). */
  metacontroller: MetacontrollerProcess;
  kubectl(...args: string[]): Promise<string>;
  /** kubectl that resolves to {code, stdout, stderr} instead of throwing on a non-zero exit. */
  kubectlResult(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Stop the hook server (SIGTERM, or SIGKILL with `kill`) and start it again on the same ports. */
  restartHooks(options?: { kill?: boolean }): Promise<void>;
  /** SIGKILL Metacontroller and start it again (new health and metrics ports). */
  restartMetacontroller(): Promise<void>;
  /** SIGKILL the kube-apiserver and start it again on the same port; etcd keeps the data. */
  restartApiserver(): Promise<void>;
  /** With `bmcs`: the emulators (their own state for assertions) and the driver pool process. */
  bmcs?: BMCs;
  pool?: PoolHandle;
  stop(): Promise<void>;
}

interface BMCEnvironmentOptions {
  /** The BMC password of every emulated BMC (default a generated one). */
  password?: string;
  /** Extra environment for the pool process. */
  poolEnv?: NodeJS.ProcessEnv;
  /** How long the fake agent's commands stay RUNNING (default 200 ms). */
  agentCommandDelayMs?: number;
  /** Redfish hosts the fake agent leaves to another agent (the real IPA). */
  realAgentHosts?: readonly string[];
  /** How many Redfish systems (rf-0 …) the emulator has (default 3). */
  redfishHosts?: number;
  /** Each Redfish system on a port of its own (one BMC endpoint per host) besides the shared one. */
  redfishPortPerHost?: boolean;
  /** Seeded probabilistic faults on every Redfish request (the chaos soak). */
  randomFaults?: RandomFaultConfig;
  /** Driver pool replicas (default 1; more run with leader election, ADR 0022). */
  poolReplicas?: number;
}

export interface EnvironmentOptions {
  dir: string;
  detached?: boolean;
  hookPort?: number;
  /** Port of the hook server's conversion listener (default: a free one). */
  conversionPort?: number;
  /** Extra controller manifests (YAML text) to apply after Ironhook's own. */
  hookEnv?: NodeJS.ProcessEnv;
  /** Also start the file server, the emulators, the fake agent and the driver pool process. */
  bmcs?: boolean | BMCEnvironmentOptions;
  /** The hook server serves HTTPS (hookEnv sets TLS_CERT_FILE/TLS_KEY_FILE): the CA file its readiness probe trusts. */
  hookCAFile?: string;
  /** Apply manifests/controllers pointed at the hook server (default true); false when the test applies its own. */
  applyControllers?: boolean;
  /** Metacontroller flags that replace the chart's (same name) or are added (the scale bench's tuning). */
  metacontrollerFlags?: readonly string[];
}

async function kubectlIn(kubeconfig: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = run(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failure.code === 'number' ? failure.code : 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** Ironhook's controller objects with the hook URLs pointed at this environment's hook server. */
function controllerManifests(hookPort: number): string {
  const dir = join(REPO_ROOT, 'manifests', 'controllers');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => readFileSync(join(dir, name), 'utf8').replaceAll(LOCAL_HOOK_BASE, `http://127.0.0.1:${String(hookPort)}`))
    .join('\n---\n');
}

interface HookListeners {
  port: number;
  conversionPort: number;
  tls: ConversionTLS;
}

function startHooks(dir: string, listeners: HookListeners, options: EnvironmentOptions): StartedProcess {
  const monitor = options.bmcs === undefined || options.bmcs === false ? {} : { BMC_MONITOR_INTERVAL_SECONDS: '5' };
  return startProcess({
    name: 'hooks',
    command: process.execPath,
    args: programArgs(REPO_ROOT, 'hooks/main'),
    cwd: REPO_ROOT,
    env: {
      PORT: String(listeners.port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_SECONDS: '0',
      ...conversionListenerEnv(listeners.tls, listeners.conversionPort),
      ...monitor,
      ...options.hookEnv,
    },
    logDir: join(dir, 'logs'),
    detached: options.detached === true,
  });
}

async function startBMCEnvironment(options: EnvironmentOptions, kubeconfig: string, processes: StartedProcess[]): Promise<{ bmcs: BMCs; pool: PoolHandle }> {
  const settings = typeof options.bmcs === 'object' ? options.bmcs : {};
  const bmcs = await startBMCs({
    dir: options.dir,
    password: settings.password ?? `bmc-${Math.random().toString(36).slice(2, 12)}`,
    ...(settings.agentCommandDelayMs === undefined ? {} : { agentCommandDelayMs: settings.agentCommandDelayMs }),
    ...(settings.realAgentHosts === undefined ? {} : { realAgentHosts: settings.realAgentHosts }),
    ...(settings.redfishHosts === undefined ? {} : { redfishHosts: settings.redfishHosts }),
    ...(settings.redfishPortPerHost === undefined ? {} : { redfishPortPerHost: settings.redfishPortPerHost }),
    ...(settings.randomFaults === undefined ? {} : { randomFaults: settings.randomFaults }),
  });
  const agentPort = await freePort();
  const base = { dir: options.dir, kubeconfig, agentPort, filesURL: bmcs.files.url, detached: options.detached === true, env: settings.poolEnv };
  const pool = await startPoolReplicas({ base, replicas: settings.poolReplicas ?? 1, processes });
  bmcs.startAgents(`http://127.0.0.1:${String(agentPort)}`);
  return { bmcs, pool };
}

async function applyOrThrow(kubeconfig: string, args: string[], input?: string): Promise<void> {
  const result = await kubectlIn(kubeconfig, args, input);
  if (result.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  }
}

async function installDefinitions(kubeconfig: string, conversion: { url: string; caBundle: string }): Promise<void> {
  await applyOrThrow(kubeconfig, ['apply', '--server-side', '-f', METACONTROLLER_CRDS]);
  for (const file of await clusterAPICRDFiles()) {
    await applyOrThrow(kubeconfig, ['apply', '--server-side', '-f', file]);
  }
  const crds = crdsWithLocalConversion(join(REPO_ROOT, 'manifests', 'crds'), conversion.url, conversion.caBundle);
  await applyOrThrow(kubeconfig, ['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds }));
  await applyOrThrow(kubeconfig, ['apply', '--server-side', '-f', join(REPO_ROOT, 'manifests', 'policies')]);
  await applyOrThrow(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}

/** Picks the hook server's ports and makes the conversion listener's CA and certificate. */
async function hookListeners(options: EnvironmentOptions): Promise<{ listeners: HookListeners; conversion: Environment['conversion'] }> {
  const listeners: HookListeners = {
    port: options.hookPort ?? (await freePort()),
    conversionPort: options.conversionPort ?? (await freePort()),
    tls: makeConversionTLS(options.dir),
  };
  const conversion = { port: listeners.conversionPort, url: `https://127.0.0.1:${String(listeners.conversionPort)}/convert`, caFile: listeners.tls.caFile };
  return { listeners, conversion };
}

/** SIGKILL `pid` and wait until it is gone. */
async function killProcess(what: string, pid: number): Promise<void> {
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await waitFor(`the killed ${what} to exit`, async () => Promise.resolve(!isAlive(pid)), 10_000, 50);
}

/** Puts `started` where `old` was in `processes` (or at the end). */
function replaceProcess(processes: StartedProcess[], old: StartedProcess, started: StartedProcess): void {
  const index = processes.indexOf(old);
  if (index < 0) processes.push(started);
  else processes.splice(index, 1, started);
}

/** Starts the hook server (added to `processes`), waits until it is ready, and returns its restart. */
async function startHookServer(options: EnvironmentOptions, listeners: HookListeners, processes: StartedProcess[]): Promise<Environment['restartHooks']> {
  const caFile = options.hookCAFile;
  const readyz = `${caFile === undefined ? 'http' : 'https'}://127.0.0.1:${String(listeners.port)}/readyz`;
  const ready = async (): Promise<boolean> => (caFile === undefined ? (await fetch(readyz)).ok : httpsOk(readyz, caFile));
  let hooks = startHooks(options.dir, listeners, options);
  processes.push(hooks);
  await waitFor('hook server /readyz', ready, 60_000);
  return async (restart = {}): Promise<void> => {
    await (restart.kill === true ? killProcess('hook server', hooks.pid) : stopProcess(hooks.pid));
    const old = hooks;
    hooks = startHooks(options.dir, listeners, options);
    replaceProcess(processes, old, hooks);
    await waitFor('hook server /readyz after restart', ready, 60_000);
  };
}

/** Starts Metacontroller (added to `processes`) and applies Ironhook's controllers pointed at the hook server. */
async function startControllers(
  kubeconfig: string,
  options: EnvironmentOptions,
  hookPort: number,
  processes: StartedProcess[],
): Promise<MetacontrollerProcess> {
  const metacontroller = await startMetacontroller({
    kubeconfig,
    logDir: join(options.dir, 'logs'),
    detached: options.detached === true,
    ...(options.metacontrollerFlags === undefined ? {} : { flags: options.metacontrollerFlags }),
  });
  processes.push(metacontroller);
  if (options.applyControllers !== false) await applyOrThrow(kubeconfig, ['apply', '-f', '-'], controllerManifests(hookPort));
  return metacontroller;
}

/** kubectl against `kubeconfig` (with `input` on stdin): its stdout, or an error with its stderr. */
export async function kubectlOrThrow(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const result = await kubectlIn(kubeconfig, args, input);
  if (result.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} failed (${String(result.code)}): ${result.stderr}`);
  }
  return result.stdout;
}

/** kubectl bound to `kubeconfig`, throwing or resolving to its result. */
export function kubectlFor(kubeconfig: string): Pick<Environment, 'kubectl' | 'kubectlResult'> {
  const kubectlResult = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => kubectlIn(kubeconfig, args);
  const kubectl = async (...args: string[]): Promise<string> => kubectlOrThrow(kubeconfig, args);
  return { kubectl, kubectlResult };
}

export async function startEnvironment(options: EnvironmentOptions): Promise<Environment> {
  const controlPlane = await startControlPlane({ dir: options.dir, detached: options.detached === true });
  const { kubeconfig } = controlPlane;
  const processes: StartedProcess[] = [...controlPlane.processes];
  let bmcs: BMCs | undefined;
  let pool: PoolHandle | undefined;
  const stop = async (): Promise<void> => {
    if (pool !== undefined) {
      await pool.stop();
    }
    await bmcs?.close();
    for (const started of [...processes].reverse()) {
      await stopProcess(started.pid);
    }
  };
  try {
    const { listeners, conversion } = await hookListeners(options);
    await installDefinitions(kubeconfig, { url: conversion.url, caBundle: listeners.tls.caBundle });
    const restartHooks = await startHookServer(options, listeners, processes);
    let metacontroller = await startControllers(kubeconfig, options, listeners.port, processes);
    const restartMetacontroller = async (): Promise<void> => {
      const old = metacontroller;
      await killProcess('Metacontroller', old.pid);
      metacontroller = await startMetacontroller({ kubeconfig, logDir: join(options.dir, 'logs') });
      replaceProcess(processes, old, metacontroller);
    };
    const restartApiserver = async (): Promise<void> => {
      const old = processes.find((started) => started.name === 'kube-apiserver');
      const started = await controlPlane.restartApiserver();
      if (old !== undefined) replaceProcess(processes, old, started);
    };
    if (options.bmcs !== undefined && options.bmcs !== false) {
      ({ bmcs, pool } = await startBMCEnvironment(options, kubeconfig, processes));
    }
    writeFileSync(join(options.dir, 'pids.json'), JSON.stringify(processes, null, 2));
    return {
      controlPlane,
      kubeconfig,
      hookPort: listeners.port,
      conversion,
      processes,
      get metacontroller(): MetacontrollerProcess {
        return metacontroller;
      },
      restartMetacontroller,
      restartApiserver,
      ...kubectlFor(kubeconfig),
      restartHooks,
      stop,
      ...(bmcs === undefined ? {} : { bmcs }),
      ...(pool === undefined ? {} : { pool }),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** kubectl with stdin, for applying generated manifests. */
export async function kubectlApply(kubeconfig: string, yaml: string, extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return kubectlIn(kubeconfig, ['apply', ...extra, '-f', '-'], yaml);
}
