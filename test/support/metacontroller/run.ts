// Starting and stopping the stand-in in-process (main.ts wraps this for the command line;
// integration tests call it directly).
import type { Server } from 'node:http';
import { Manager } from './controllers/manager.js';
import type { Runtime } from './controllers/runtime.js';
import type { Options } from './flags.js';
import { parseAddress, targetMatcher } from './flags.js';
import { Discovery } from './kube/discovery.js';
import { EventRecorder } from './kube/events.js';
import { InformerFactory } from './kube/informer.js';
import { ObjectOps } from './kube/ops.js';
import { RestClient } from './kube/rest.js';
import { Logger } from './log.js';
import type { Sink } from './log.js';
import { Metrics, closeServer, startHealthServer, startMetricsServer } from './server.js';

export interface StandIn {
  runtime: Runtime;
  ready(): boolean;
  stop(): Promise<void>;
}

const STARTUP_ATTEMPTS = 6;
const STARTUP_DELAY_MS = 5000;

/** Upstream retries reaching the API server 6 x 5 s at start (sidecars may still be starting). */
async function firstDiscovery(discovery: Discovery, log: Logger, intervalMs: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await discovery.start(intervalMs);
      return;
    } catch (error) {
      if (attempt >= STARTUP_ATTEMPTS) throw error;
      log.error(`API server not reachable (attempt ${String(attempt)}): ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, STARTUP_DELAY_MS));
    }
  }
}

async function servers(options: Options, metrics: Metrics, ready: () => boolean): Promise<Server[]> {
  const started: Server[] = [];
  const health = parseAddress(options.healthProbeBindAddress);
  if (health !== undefined) started.push(await startHealthServer(health.host, health.port, ready));
  const metricsAddress = parseAddress(options.metricsAddress);
  if (metricsAddress !== undefined) started.push(await startMetricsServer(metricsAddress.host, metricsAddress.port, metrics));
  return started;
}

export async function startStandIn(options: Options, sink?: Sink): Promise<StandIn> {
  const log = new Logger(options.verbosity, sink);
  const client = await RestClient.fromFile(options.kubeconfig);
  const discovery = new Discovery(client, log);
  const metrics = new Metrics();
  const runtime: Runtime = {
    client,
    ops: new ObjectOps(client),
    discovery,
    informers: new InformerFactory(client, log),
    events: new EventRecorder(client, log),
    log,
    workers: options.workers,
    cacheFlushIntervalMs: options.cacheFlushIntervalMs,
    metrics,
  };
  let isReady = false;
  const started = await servers(options, metrics, () => isReady);
  await firstDiscovery(discovery, log, options.discoveryIntervalMs);
  const manager = new Manager(runtime, targetMatcher(options.targetLabelSelector));
  await manager.start();
  isReady = true;
  log.info(0, `metacontroller stand-in ready (workers=${String(options.workers)}, discovery every ${String(options.discoveryIntervalMs)} ms)`);
  const stop = async (): Promise<void> => {
    isReady = false;
    await manager.stop();
    discovery.stop();
    runtime.informers.stopAll();
    await Promise.all(started.map(closeServer));
    client.close();
  };
  return { runtime, ready: () => isReady, stop };
}
