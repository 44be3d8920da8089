// The pool's configuration: environment variables (the chart's names) and flags, flags winning.
// Every default is here and in docs/drivers.md; invalid values stop the process at start.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { ExecutorSettings } from './executors/context.js';
import { DEFAULT_DENIED_NETWORKS, parseNetworkList } from './network-guard.js';

export interface LeaderElectionConfig {
  enabled: boolean;
  namespace: string;
  name: string;
  identity: string;
  /**
   * The pod this replica runs in (POD_NAME + POD_UID, from the downward API): the Lease it holds is
   * owned by it, so the garbage collector removes the Lease with the last leader's pod (after
   * `helm uninstall`, or a leader killed without releasing).
   */
  pod?: { name: string; uid: string };
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

interface AgentAPIConfig {
  /** Listen address of the agent API (IPA lookup/heartbeat). */
  host: string;
  port: number;
  /** ipa-api-url as the hosts reach it; default http://<host>:<port>. */
  advertiseURL: string | undefined;
  /** Where armed hosts (tokens) survive a restart: "secret" (default) or "memory". */
  store: 'secret' | 'memory';
}

/** The pool's settings; the executors' own (timeouts, deploy images) come from ExecutorSettings. */
export interface PoolConfig extends ExecutorSettings {
  /** Namespaces to watch; empty means all. */
  namespaces: string[];
  kubeconfig: string | undefined;
  allowedNetworks: string[];
  deniedNetworks: string[];
  concurrency: number;
  provisioningLimit: number;
  monitorConcurrency: number;
  bmcTimeoutMs: number;
  /** Spacing between two commands to the same IPMI BMC (Ironic's min_command_interval). */
  ipmiCommandIntervalMs: number;
  metricsHost: string;
  metricsPort: number;
  metricsHostLabels: boolean;
  watchLivenessMs: number;
  watchTimeoutSeconds: number;
  eventDedupWindowMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  leaderElection: LeaderElectionConfig;
  agentAPI: AgentAPIConfig;
}

const FLAGS = {
  namespace: { type: 'string' },
  kubeconfig: { type: 'string' },
  'allowed-bmc-networks': { type: 'string' },
  'denied-bmc-networks': { type: 'string' },
  concurrency: { type: 'string' },
  'provisioning-limit': { type: 'string' },
  'metrics-port': { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'leader-elect': { type: 'string' },
  'log-level': { type: 'string' },
  'agent-api-port': { type: 'string' },
  'agent-api-url': { type: 'string' },
} as const;

type Env = Record<string, string | undefined>;

/** An integer setting ≥ `min`, or `fallback` when unset; anything else is a startup error. */
export function integer(name: string, raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${String(min)}, got "${raw}"`);
  }
  return value;
}

function seconds(name: string, raw: string | undefined, fallbackSeconds: number): number {
  return integer(name, raw, fallbackSeconds) * 1000;
}

/** A boolean setting (true/false, 1/0, yes/no), or `fallback` when unset. */
export function bool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) {
    return true;
  }
  if (['false', '0', 'no'].includes(raw.toLowerCase())) {
    return false;
  }
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function optionalURL(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') {
    return undefined;
  }
  try {
    new URL(raw.trim());
    return raw.trim();
  } catch {
    throw new Error(`${name} must be a URL`);
  }
}

function namespaces(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function leaderElection(env: Env, flag: string | undefined): LeaderElectionConfig {
  const identity = env.POD_NAME ?? `${hostname()}-${String(process.pid)}`;
  return {
    enabled: bool('--leader-elect / LEADER_ELECT', flag ?? env.LEADER_ELECT, true),
    namespace: env.LEADER_ELECTION_NAMESPACE ?? env.POD_NAMESPACE ?? 'default',
    name: env.LEADER_ELECTION_ID ?? 'ironhook-driver-pool',
    identity,
    ...(env.POD_NAME !== undefined && env.POD_UID !== undefined && env.POD_UID !== '' ? { pod: { name: env.POD_NAME, uid: env.POD_UID } } : {}),
    leaseDurationMs: seconds('LEASE_DURATION_SECONDS', env.LEASE_DURATION_SECONDS, 15),
    renewDeadlineMs: seconds('RENEW_DEADLINE_SECONDS', env.RENEW_DEADLINE_SECONDS, 10),
    retryPeriodMs: seconds('RETRY_PERIOD_SECONDS', env.RETRY_PERIOD_SECONDS, 2),
  };
}

function timings(
  env: Env,
): Pick<
  PoolConfig,
  'bmcTimeoutMs' | 'ipmiCommandIntervalMs' | 'powerSettleTimeoutMs' | 'softPowerOffTimeoutMs' | 'agentBootTimeoutMs' | 'agentCommandTimeoutMs'
> {
  return {
    bmcTimeoutMs: seconds('BMC_TIMEOUT_SECONDS', env.BMC_TIMEOUT_SECONDS, 30),
    ipmiCommandIntervalMs: integer('IPMI_MIN_COMMAND_INTERVAL_MS', env.IPMI_MIN_COMMAND_INTERVAL_MS, 0),
    powerSettleTimeoutMs: seconds('POWER_STATE_CHANGE_TIMEOUT_SECONDS', env.POWER_STATE_CHANGE_TIMEOUT_SECONDS, 60),
    softPowerOffTimeoutMs: seconds('SOFT_POWER_OFF_TIMEOUT_SECONDS', env.SOFT_POWER_OFF_TIMEOUT_SECONDS, 180),
    agentBootTimeoutMs: seconds('AGENT_BOOT_TIMEOUT_SECONDS', env.AGENT_BOOT_TIMEOUT_SECONDS, 1800),
    agentCommandTimeoutMs: seconds('AGENT_COMMAND_TIMEOUT_SECONDS', env.AGENT_COMMAND_TIMEOUT_SECONDS, 1800),
  };
}

function deployImages(env: Env): Pick<PoolConfig, 'deployISOURL' | 'deployKernelURL' | 'deployRamdiskURL'> {
  const kernel = optionalURL('DEPLOY_KERNEL_URL', env.DEPLOY_KERNEL_URL);
  const ramdisk = optionalURL('DEPLOY_RAMDISK_URL', env.DEPLOY_RAMDISK_URL);
  if ((kernel === undefined) !== (ramdisk === undefined)) {
    throw new Error('DEPLOY_KERNEL_URL and DEPLOY_RAMDISK_URL must be set together');
  }
  return { deployISOURL: optionalURL('DEPLOY_ISO_URL', env.DEPLOY_ISO_URL), deployKernelURL: kernel, deployRamdiskURL: ramdisk };
}

function agentAPI(env: Env, values: Flags): AgentAPIConfig {
  const store = env.AGENT_STATE_STORE ?? 'secret';
  if (store !== 'secret' && store !== 'memory') {
    throw new Error(`AGENT_STATE_STORE must be secret or memory, got "${store}"`);
  }
  return {
    host: env.AGENT_API_HOST ?? '0.0.0.0',
    port: integer('AGENT_API_PORT', values['agent-api-port'] ?? env.AGENT_API_PORT, 6385),
    advertiseURL: optionalURL('AGENT_API_URL', values['agent-api-url'] ?? env.AGENT_API_URL),
    store,
  };
}

type Flags = ReturnType<typeof parseFlags>;

function parseFlags(argv: string[]): { [K in keyof typeof FLAGS]?: string } {
  return parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }).values;
}

function networks(env: Env, values: Flags): Pick<PoolConfig, 'allowedNetworks' | 'deniedNetworks'> {
  const denied = values['denied-bmc-networks'] ?? env.DENIED_BMC_NETWORKS;
  return {
    allowedNetworks: parseNetworkList(values['allowed-bmc-networks'] ?? env.ALLOWED_BMC_NETWORKS),
    deniedNetworks: denied === undefined ? [...DEFAULT_DENIED_NETWORKS] : parseNetworkList(denied),
  };
}

function limits(env: Env, values: Flags): Pick<PoolConfig, 'concurrency' | 'provisioningLimit' | 'monitorConcurrency'> {
  return {
    concurrency: integer('POOL_CONCURRENCY', values.concurrency ?? env.POOL_CONCURRENCY, 20, 1),
    provisioningLimit: integer('PROVISIONING_LIMIT', values['provisioning-limit'] ?? env.PROVISIONING_LIMIT, 20, 1),
    monitorConcurrency: integer('MONITOR_CONCURRENCY', env.MONITOR_CONCURRENCY, 10, 1),
  };
}

function metricsSettings(env: Env, values: Flags): Pick<PoolConfig, 'metricsHost' | 'metricsPort' | 'metricsHostLabels'> {
  return {
    metricsHost: values['metrics-bind-address'] ?? env.METRICS_BIND_ADDRESS ?? '0.0.0.0',
    metricsPort: integer('METRICS_PORT', values['metrics-port'] ?? env.METRICS_PORT ?? env.PORT, 9090),
    metricsHostLabels: bool('METRICS_HOST_LABELS', env.METRICS_HOST_LABELS, true),
  };
}

/** Reads flags (`argv` without node and script) and the environment. Throws on invalid values. */
export function loadConfig(argv: string[], env: Env): PoolConfig {
  const values = parseFlags(argv);
  return {
    namespaces: namespaces(values.namespace ?? env.WATCH_NAMESPACE),
    kubeconfig: values.kubeconfig ?? env.KUBECONFIG,
    ...networks(env, values),
    ...limits(env, values),
    ...timings(env),
    ...deployImages(env),
    ...metricsSettings(env, values),
    watchLivenessMs: seconds('WATCH_LIVENESS_SECONDS', env.WATCH_LIVENESS_SECONDS, 150),
    watchTimeoutSeconds: integer('WATCH_TIMEOUT_SECONDS', env.WATCH_TIMEOUT_SECONDS, 300, 1),
    eventDedupWindowMs: seconds('EVENT_DEDUP_SECONDS', env.EVENT_DEDUP_SECONDS, 600),
    shutdownTimeoutMs: seconds('SHUTDOWN_TIMEOUT_SECONDS', env.SHUTDOWN_TIMEOUT_SECONDS, 20),
    logLevel: values['log-level'] ?? env.LOG_LEVEL ?? 'info',
    leaderElection: leaderElection(env, values['leader-elect']),
    agentAPI: agentAPI(env, values),
  };
}
