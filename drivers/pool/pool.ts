// The driver pool: watches HostOperations, BMCMonitors and the claimed BMC Secrets, executes
// HostOperations through the request runner (host-operations.ts, runner.ts), refreshes monitors,
// records events and metrics.
// Started when this replica becomes the leader, stopped on shutdown or lost leadership.
import type { BMCMonitor, Action } from '../../domain/operations.js';
import type { AgentService } from '../agent/port.js';
import type { BMCDriverFactory } from '../bmc/types.js';
import { BMCGate } from './bmc-gate.js';
import type { Clock } from './clock.js';
import type { PoolConfig } from './config.js';
import type { ConnectDeps } from './connect.js';
import { SECRET_LABEL, SECRET_LABEL_VALUE } from './credentials.js';
import { EventRecorder } from './events.js';
import { HostFleet, fleetView } from './fleet.js';
import type { Executor, HostServices } from './executors/index.js';
import { ADOPTED_RESOURCES } from '../kube/port.js';
import type { KubePort, KubeWatch, WatchEvent, WatchOptions, WatchedResource } from '../kube/port.js';
import { CONTROLLER_UID_LABEL, identityOf } from '../../domain/k8s.js';
import { MovedChildAdopter } from './moved-children.js';
import type { Logger } from './logging.js';
import type { PoolMetrics } from './metrics.js';
import { MonitorRefresher } from './monitor.js';
import { createNetworkGuard } from './network-guard.js';
import type { NetworkGuard } from './network-guard.js';
import { runOperation } from './runner.js';
import { HostOperationRunner } from './host-operations.js';
import { PowerTransitions } from './executors/power-transitions.js';

export type PoolSettings = Pick<
  PoolConfig,
  | 'namespaces'
  | 'allowedNetworks'
  | 'deniedNetworks'
  | 'concurrency'
  | 'provisioningLimit'
  | 'monitorConcurrency'
  | 'bmcTimeoutMs'
  | 'ipmiCommandIntervalMs'
  | 'powerSettleTimeoutMs'
  | 'softPowerOffTimeoutMs'
  | 'agentBootTimeoutMs'
  | 'agentCommandTimeoutMs'
  | 'deployISOURL'
  | 'deployKernelURL'
  | 'deployRamdiskURL'
  | 'eventDedupWindowMs'
  | 'shutdownTimeoutMs'
>;

export interface PoolDeps {
  kube: KubePort;
  clock: Clock;
  logger: Logger;
  metrics: PoolMetrics;
  agent: AgentService;
  factory: BMCDriverFactory;
  settings: PoolSettings;
  /** Reported in Events (reportingInstance): the pod name. */
  instance: string;
  guard?: NetworkGuard;
  random?: () => number;
  executors?: Record<Action, Executor>;
}

export class DriverPool {
  readonly operations: HostOperationRunner;
  readonly monitor: MonitorRefresher;
  readonly events: EventRecorder;
  readonly gate: BMCGate;
  readonly guard: NetworkGuard;
  readonly fleet: HostFleet;
  private readonly adopter: MovedChildAdopter;
  private watches: KubeWatch[] = [];
  private synced = false;
  private stopping = false;

  constructor(private readonly deps: PoolDeps) {
    const { settings, clock, logger, metrics, kube } = deps;
    this.guard = deps.guard ?? createNetworkGuard({ allowed: settings.allowedNetworks, denied: settings.deniedNetworks });
    this.gate = new BMCGate(clock, metrics);
    this.fleet = new HostFleet(() => clock.now());
    this.adopter = new MovedChildAdopter({ kube, logger });
    this.events = new EventRecorder({ kube, clock, windowMs: settings.eventDedupWindowMs, instance: deps.instance, logger });
    const connectDeps: ConnectDeps = {
      guard: this.guard,
      gate: this.gate,
      factory: deps.factory,
      timeoutMs: settings.bmcTimeoutMs,
      ipmiCommandIntervalMs: settings.ipmiCommandIntervalMs,
    };
    this.monitor = new MonitorRefresher({
      ...connectDeps,
      kube,
      clock,
      logger,
      metrics,
      bmcTimeoutMs: settings.bmcTimeoutMs,
      concurrency: settings.monitorConcurrency,
      random: deps.random,
    });
    const services: HostServices = {
      kube,
      agent: deps.agent,
      guard: this.guard,
      clock,
      settings,
      powerTransitions: new PowerTransitions(clock),
      suspendMonitoring: (namespace, host) => {
        this.monitor.suspend(namespace, host);
      },
    };
    const runnerDeps = { kube, clock, logger, metrics, events: this.events, services, connectDeps, executors: deps.executors };
    this.operations = new HostOperationRunner({
      clock,
      logger,
      metrics,
      kube,
      namespaces: settings.namespaces,
      concurrency: settings.concurrency,
      provisioningLimit: settings.provisioningLimit,
      run: (op, signal) => runOperation(runnerDeps, op, signal),
      onFinished: (op) => {
        this.monitor.refreshHost(op.metadata.namespace ?? '', op.spec.host.name);
      },
    });
  }

  get ready(): boolean {
    return this.synced && !this.stopping;
  }

  private watchAll(resource: WatchedResource, onEvent: (event: WatchEvent) => void, options: Omit<WatchOptions, 'namespace'> = {}): KubeWatch[] {
    const scopes = this.deps.settings.namespaces.length === 0 ? [undefined] : this.deps.settings.namespaces;
    return scopes.map((namespace) => this.deps.kube.watch(resource, { namespace, ...options }, onEvent));
  }

  /** Metacontroller's data children, for moved-children.ts (only those with the controller-uid label). */
  private watchMovedChildren(): KubeWatch[] {
    return (['secrets', ...ADOPTED_RESOURCES] as const).flatMap((resource) =>
      this.watchAll(
        resource,
        (event) => {
          this.adopter.onEvent(resource, event);
        },
        // The adopter reads labels and owner references only: a Secret's data or a HardwareData's
        // inventory is not kept.
        { labelSelector: CONTROLLER_UID_LABEL, project: identityOf },
      ),
    );
  }

  /** Starts the watches; resolves once every initial list has been delivered. */
  async start(): Promise<void> {
    const secrets = this.watchAll(
      'secrets',
      (event) => {
        this.monitor.onSecretEvent(event);
      },
      { labelSelector: `${SECRET_LABEL}=${SECRET_LABEL_VALUE}` },
    );
    const monitors = this.watchAll('bmcmonitors', (event) => {
      this.monitor.onMonitorEvent(event as WatchEvent<BMCMonitor>);
    });
    const hosts = this.watchAll(
      'baremetalhosts',
      (event) => {
        this.fleet.onEvent(event);
      },
      { project: fleetView },
    );
    const moved = this.watchMovedChildren();
    this.watches = [...secrets, ...monitors, ...hosts, ...moved];
    for (const group of [secrets, monitors]) {
      await Promise.all(group.map((watch) => watch.start()));
    }
    // Only the gauges and the adoption of moved children depend on these: readiness does not wait for them.
    for (const watch of [...hosts, ...moved]) {
      void watch.start().catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'a watch of hosts (ironhook_hosts gauges) or of moved children failed to start');
      });
    }
    this.deps.metrics.fleet.source = () => this.fleet.snapshot();
    await this.operations.start();
    this.synced = true;
    this.deps.logger.info({ namespaces: this.deps.settings.namespaces.length === 0 ? 'all' : this.deps.settings.namespaces }, 'driver pool started');
  }

  /** Graceful stop: no new work, in-flight requests cancelled with resumable statuses. */
  async stop(): Promise<void> {
    if (this.stopping) {
      return;
    }
    this.stopping = true;
    for (const watch of this.watches) {
      watch.stop();
    }
    this.deps.metrics.fleet.source = undefined;
    this.fleet.clear();
    this.monitor.stop();
    await this.operations.stop(this.deps.settings.shutdownTimeoutMs);
    this.deps.logger.info({}, 'driver pool stopped');
  }
}
