// Shared e2e helpers: one environment per test file, one namespace per test, and a stand-in
// for the driver pool that writes request outcomes the way the pool will.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlApply, startEnvironment } from '../../devenv/environment.js';
import type { Environment, EnvironmentOptions } from '../../devenv/environment.js';
import { waitFor } from '../../devenv/processes.js';

/** What the helpers below need of a cluster: its kubeconfig and kubectl bound to it. */
export type ClusterClient = Pick<Environment, 'kubeconfig' | 'kubectl' | 'kubectlResult'>;

export interface Cluster {
  env: Environment;
  dir: string;
  close(): Promise<void>;
}

export async function openCluster(options: Omit<EnvironmentOptions, 'dir'> = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ironhook-e2e-'));
  const env = await startEnvironment({ dir, ...options });
  return {
    env,
    dir,
    close: async () => {
      await env.stop();
      if (process.env.KEEP_TEST_DIR === undefined) {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

let namespaceCounter = 0;

export async function createNamespace(env: ClusterClient, prefix: string): Promise<string> {
  namespaceCounter += 1;
  const name = `${prefix}-${String(process.pid)}-${String(namespaceCounter)}`;
  await env.kubectl('create', 'namespace', name);
  return name;
}

export async function apply(env: ClusterClient, yaml: string, namespace?: string): Promise<void> {
  const result = await kubectlApply(env.kubeconfig, yaml, namespace === undefined ? [] : ['-n', namespace]);
  if (result.code !== 0) {
    throw new Error(`apply failed: ${result.stderr}`);
  }
}

export async function getJSON<T = Record<string, unknown>>(env: ClusterClient, namespace: string, ...what: string[]): Promise<T> {
  return JSON.parse(await env.kubectl('get', ...what, '-n', namespace, '-o', 'json')) as T;
}

/**
 * Waits until the hook server has answered a sync for `namespace/name` handed a parent at least as
 * new as `resourceVersion` (its debug log line; the environment must run the hooks with
 * LOG_LEVEL=debug). Real Metacontroller coalesces events and may sync from a stale cache, so a
 * call count says nothing about which version the hook saw.
 */
export async function waitForHookSync(
  env: Environment,
  parent: { controller: string; namespace: string; name: string; resourceVersion: string },
): Promise<void> {
  const { controller, namespace, name, resourceVersion } = parent;
  const hooks = env.processes.find((started) => started.name === 'hooks');
  if (hooks === undefined) throw new Error('no hook server process in this environment');
  const wanted = BigInt(resourceVersion);
  const seen = (): boolean =>
    readFileSync(hooks.log, 'utf8')
      .split('\n')
      .some((line) => {
        if (!line.includes('"hook call"') || !line.includes(`"name":"${name}"`)) return false;
        const call = JSON.parse(line) as { controller?: string; hook?: string; namespace?: string; resourceVersion?: string; status?: number };
        return (
          call.controller === controller &&
          call.hook === 'sync' &&
          call.namespace === namespace &&
          call.status === 200 &&
          BigInt(call.resourceVersion ?? '0') >= wanted
        );
      });
  await waitFor(
    `a ${controller} sync of ${namespace}/${name} at resourceVersion ${resourceVersion} or later`,
    async () => Promise.resolve(seen()),
    30_000,
    100,
  );
}

export interface HostView {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: { consumerRef?: { name: string; kind?: string }; image?: { url: string } };
  status?: {
    operationalStatus?: string;
    errorType?: string;
    errorMessage?: string;
    poweredOn?: boolean;
    hardware?: { cpu?: { arch?: string } };
    provisioning?: { state?: string };
    ironhook?: { request?: { name: string; action: string; sequence: number; phase: string } };
    conditions?: { type: string; status: string; message: string }[];
  };
}

export interface OperationView {
  metadata: { name: string };
  spec: { action: string; sequence: number };
  status?: { phase?: string };
}

export async function host(env: ClusterClient, namespace: string, name: string): Promise<HostView> {
  return getJSON<HostView>(env, namespace, 'baremetalhost', name);
}

export async function operations(env: ClusterClient, namespace: string): Promise<OperationView[]> {
  const list = await getJSON<{ items: OperationView[] }>(env, namespace, 'hostoperations');
  return list.items.sort((a, b) => a.spec.sequence - b.spec.sequence);
}

export interface HostCheck {
  what: string;
  check: (view: HostView) => boolean;
}

/** Wait until the host satisfies `condition.check`. */
export async function waitForHost(env: ClusterClient, namespace: string, name: string, condition: HostCheck): Promise<HostView> {
  let last: HostView | undefined;
  await waitFor(
    `${name}: ${condition.what}`,
    async () => {
      last = await host(env, namespace, name);
      return condition.check(last);
    },
    60_000,
    250,
  );
  if (last === undefined) {
    throw new Error('unreachable');
  }
  return last;
}

export async function waitForState(env: ClusterClient, namespace: string, name: string, state: string): Promise<HostView> {
  return waitForHost(env, namespace, name, { what: `state "${state}"`, check: (view) => view.status?.provisioning?.state === state });
}

/** Wait for the current request of `action` and return its name. */
export async function waitForRequest(env: ClusterClient, namespace: string, action: string): Promise<string> {
  let found = '';
  await waitFor(
    `a ${action} request in ${namespace}`,
    async () => {
      const items = await operations(env, namespace);
      const current = items.at(-1);
      found = current?.spec.action === action ? current.metadata.name : '';
      return found !== '';
    },
    60_000,
    250,
  );
  return found;
}

const NOW = (): string => new Date().toISOString().replace(/\.\d{3}Z$/u, 'Z');

/** Write a request's status the way the driver pool does (status subresource, merge patch). */
async function report(env: Environment, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
  await env.kubectl('patch', 'hostoperation', name, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
}

export async function succeed(env: Environment, namespace: string, name: string, result: Record<string, unknown> = {}): Promise<void> {
  const now = NOW();
  await report(env, namespace, name, { phase: 'Succeeded', startTime: now, completionTime: now, result });
}

export async function start(env: Environment, namespace: string, name: string, message = 'working'): Promise<void> {
  await report(env, namespace, name, { phase: 'Running', startTime: NOW(), message });
}

export async function monitor(env: Environment, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
  const now = NOW();
  await env.kubectl(
    'patch',
    'bmcmonitor',
    name,
    '-n',
    namespace,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { observedTime: now, changedTime: now, reachable: true, ...status } }),
  );
}

/** The BMC of a pool environment (openCluster({bmcs})); throws without one. */
export function bmcsOf(env: Environment): NonNullable<Environment['bmcs']> {
  if (env.bmcs === undefined) {
    throw new Error('this environment has no emulated BMCs');
  }
  return env.bmcs;
}

/** A BMC credentials Secret and a BareMetalHost, as YAML. */
export function poolHostYAML(name: string, password: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}): string {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-bmc-secret` }, type: 'Opaque', stringData: { username: 'admin', password } };
  const bmh = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, annotations }, spec: { online: false, ...spec } };
  return `${JSON.stringify(secret)}\n---\n${JSON.stringify(bmh)}\n`;
}

const POOL_STATE_TIMEOUT_MS = 240_000;

/** Wait for a provisioning state with a longer, still bounded, budget (real BMCs and agents). */
export async function waitForPoolState(env: ClusterClient, namespace: string, name: string, state: string): Promise<HostView> {
  let last: HostView | undefined;
  await waitFor(
    `${name}: state "${state}"`,
    async () => {
      last = await host(env, namespace, name);
      const error = last.status?.errorMessage ?? '';
      if (error !== '' && last.status?.errorType !== undefined && last.status.errorType !== '') {
        process.stderr.write(`${name}: ${last.status.errorType}: ${error}\n`);
      }
      return last.status?.provisioning?.state === state;
    },
    POOL_STATE_TIMEOUT_MS,
    500,
  );
  if (last === undefined) {
    throw new Error('unreachable');
  }
  return last;
}

export async function waitForGone(env: ClusterClient, namespace: string, name: string, timeoutMs = 180_000): Promise<void> {
  await waitFor(`${name} deleted`, async () => (await env.kubectlResult('get', 'bmh', name, '-n', namespace)).code !== 0, timeoutMs, 500);
}
