// The driver pool process (`npm run drivers`): configuration from flags and the environment
// (drivers/pool/config.ts, docs/drivers.md), leader election, the probe and metrics server,
// and a graceful shutdown on SIGTERM/SIGINT. The agent API and the pool start only on the
// leader, so armed hosts are restored from their Secrets by the replica that will use them and
// a standby never answers an agent.
import type { Server } from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { agentGuard } from './agent/guard.js';
import { startAgentSide } from './agent/server.js';
import { loadClusterRequestSettings } from './cluster/config.js';
import type { ClusterRequestSettings } from './cluster/config.js';
import { createClusterRequestMetrics } from './cluster/metrics.js';
import type { ClusterRequestMetrics } from './cluster/metrics.js';
import { ClusterRequestRunner, managementCluster } from './cluster/runner.js';
import type { AgentSide } from './agent/server.js';
import { SecretAgentStateStore } from './agent/secret-store.js';
import { createBMCDriver } from './bmc/registry.js';
import { systemClock } from './pool/clock.js';
import { loadConfig } from './pool/config.js';
import type { PoolConfig } from './pool/config.js';
import { KubeClient, loadKubeConfig } from './kube/client.js';
import { LeaderElector } from './pool/leader.js';
import { createLogger, errorFields } from './pool/logging.js';
import type { Logger } from './pool/logging.js';
import { createPoolMetrics } from './pool/metrics.js';
import type { PoolMetrics } from './pool/metrics.js';
import { createNetworkGuard } from './pool/network-guard.js';
import type { NetworkGuard } from './pool/network-guard.js';
import { DriverPool } from './pool/pool.js';
import { EventRecorder } from './pool/events.js';
import { close, createProbeServer, listen } from './pool/server.js';

interface Runtime {
  config: PoolConfig;
  logger: Logger;
  metrics: PoolMetrics;
  kubeConfig: KubeConfig;
  kube: KubeClient;
  guard: NetworkGuard;
  pool: DriverPool | undefined;
  /** ObjectPatches and NodeOperations of the Cluster API provider (drivers/cluster). */
  cluster: { settings: ClusterRequestSettings; metrics: ClusterRequestMetrics; runner: ClusterRequestRunner | undefined };
  agent: AgentSide | undefined;
  server: Server | undefined;
  elector: LeaderElector | undefined;
  stopping: boolean;
}

async function startAgent(config: PoolConfig, kube: KubeConfig, guard: NetworkGuard, logger: Logger): Promise<AgentSide> {
  const store = config.agentAPI.store === 'secret' ? new SecretAgentStateStore(kube.makeApiClient(CoreV1Api)) : undefined;
  return startAgentSide({
    host: config.agentAPI.host,
    port: config.agentAPI.port,
    advertiseURL: config.agentAPI.advertiseURL,
    logger: logger.child({ component: 'agent-api' }),
    store,
    client: { guard: agentGuard(guard) },
  });
}

async function shutdown(runtime: Runtime, why: string, code: number): Promise<void> {
  if (runtime.stopping) {
    return;
  }
  runtime.stopping = true;
  runtime.logger.info({ why }, 'shutting down');
  await runtime.cluster.runner?.stop();
  await runtime.pool?.stop();
  await runtime.elector?.stop();
  await runtime.agent?.close();
  runtime.metrics.leader.set(0);
  if (runtime.server !== undefined) {
    await close(runtime.server);
  }
  process.exit(code);
}

/** On becoming the leader: the agent API (restoring armed hosts), then the pool's watches. */
async function work(runtime: Runtime): Promise<void> {
  const { config, logger, metrics, kube, guard } = runtime;
  const agent = await startAgent(config, runtime.kubeConfig, guard, logger);
  runtime.agent = agent;
  const pool = new DriverPool({
    kube,
    clock: systemClock,
    logger,
    metrics,
    agent: agent.service,
    factory: createBMCDriver,
    settings: config,
    instance: config.leaderElection.identity,
    guard,
  });
  runtime.pool = pool;
  logger.info({ agentAPI: agent.url }, 'agent API listening');
  await pool.start();
  await startClusterRequests(runtime);
}

/** The second runner: same leadership, clock, logger and registry as the pool. */
async function startClusterRequests(runtime: Runtime): Promise<void> {
  const { settings, metrics } = runtime.cluster;
  if (!settings.enabled) {
    return;
  }
  const logger = runtime.logger.child({ component: 'cluster-requests' });
  const management = managementCluster(runtime.kubeConfig, settings, systemClock, logger);
  const events = new EventRecorder({
    kube: management.kube,
    clock: systemClock,
    windowMs: runtime.config.eventDedupWindowMs,
    instance: runtime.config.leaderElection.identity,
    logger,
  });
  const runner = new ClusterRequestRunner({ ...management, clock: systemClock, logger, metrics, settings, events });
  runtime.cluster.runner = runner;
  await runner.start();
}

function ready(runtime: Runtime): boolean {
  const clusterReady = !runtime.cluster.settings.enabled || runtime.cluster.runner?.ready === true;
  return runtime.pool?.ready === true && clusterReady;
}

function startWork(runtime: Runtime): void {
  runtime.metrics.leader.set(1);
  work(runtime).catch((error: unknown) => {
    runtime.logger.fatal({ err: errorFields(error) }, 'the driver pool could not start');
    void shutdown(runtime, 'start failed', 1);
  });
}

function kubeClient(kubeConfig: KubeConfig, config: PoolConfig, metrics: PoolMetrics, logger: Logger): KubeClient {
  return new KubeClient(kubeConfig, {
    clock: systemClock,
    livenessMs: config.watchLivenessMs,
    watchTimeoutSeconds: config.watchTimeoutSeconds,
    onWatchRestart: (resource, reason, error) => {
      metrics.watchRestarts.inc({ resource, reason });
      const fields = { resource, reason, ...(error !== undefined && { err: errorFields(error) }) };
      if (reason === 'error') {
        logger.warn(fields, 'watch restarted');
      } else {
        logger.debug(fields, 'watch restarted');
      }
    },
  });
}

/** Leader election when enabled (ADR 0022), else work at once. */
function elect(runtime: Runtime): void {
  const { config, kube, logger } = runtime;
  if (!config.leaderElection.enabled) {
    startWork(runtime);
    return;
  }
  const callbacks = {
    onStartedLeading: () => {
      startWork(runtime);
    },
    onStoppedLeading: () => {
      void shutdown(runtime, 'lost the lease', 1);
    },
  };
  runtime.elector = new LeaderElector({ kube, clock: systemClock, config: config.leaderElection, callbacks, logger });
  runtime.elector.start();
}

async function serveProbes(runtime: Runtime): Promise<number> {
  const server = createProbeServer(runtime.metrics.registry, {
    ready: () => !runtime.stopping && (runtime.elector?.isLeader === false || ready(runtime)),
    reason: () => (runtime.stopping ? 'shutting down' : 'watches not synced yet'),
  });
  runtime.server = server;
  return listen(server, runtime.config.metricsHost, runtime.config.metricsPort);
}

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2), process.env);
  const logger = createLogger({ level: config.logLevel });
  const metrics = createPoolMetrics({ hostLabels: config.metricsHostLabels });
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const kube = kubeClient(kubeConfig, config, metrics, logger);
  const guard = createNetworkGuard({ allowed: config.allowedNetworks, denied: config.deniedNetworks });
  if (config.allowedNetworks.length === 0) {
    logger.warn({}, 'ALLOWED_BMC_NETWORKS is empty: every BMC, agent and image address is refused');
  }
  const shared = {
    namespaces: config.namespaces,
    watchLivenessMs: config.watchLivenessMs,
    watchTimeoutSeconds: config.watchTimeoutSeconds,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  };
  const cluster = { settings: loadClusterRequestSettings(process.env, shared), metrics: createClusterRequestMetrics(metrics.registry), runner: undefined };
  const runtime: Runtime = {
    config,
    logger,
    metrics,
    kubeConfig,
    kube,
    guard,
    pool: undefined,
    cluster,
    agent: undefined,
    server: undefined,
    elector: undefined,
    stopping: false,
  };
  const port = await serveProbes(runtime);
  logger.info({ port, server: kube.server(), allowedNetworks: config.allowedNetworks }, 'driver pool process started');
  elect(runtime);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void shutdown(runtime, signal, 0);
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`driver pool: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
