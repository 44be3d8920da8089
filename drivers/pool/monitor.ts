// BMCMonitor refresh (docs/architecture.md, "BMCMonitor"): every spec.intervalSeconds (jittered
// by ±10 %), right after a request for the host completes, and when the credentials Secret's
// resourceVersion changes, read power through the driver. The status (observedTime: when the read
// was taken; changedTime; poweredOn, reachable, credentials, error) is written when a value
// changed, when the read followed a request, a new spec or new credentials, and otherwise at
// least every HEARTBEAT_INTERVALS intervals: an idle host costs a BMC read per interval, not an
// apiserver write, a Metacontroller sync and a hook call. Bounded concurrency; the per-BMC gate
// keeps monitor reads from overlapping a running request's calls.
import PQueue from 'p-queue';
import { formatTime } from '../../domain/backoff.js';
import { isStaleChild } from '../../domain/k8s.js';
import type { BMCMonitor, BMCMonitorStatus, CredentialsReport, OperationError } from '../../domain/operations.js';
import type { BMCDriverFactory } from '../bmc/types.js';
import { withTimeout } from './bmc-gate.js';
import type { BMCGate } from './bmc-gate.js';
import type { Clock, Timer } from './clock.js';
import { connect } from './connect.js';
import { credentialsFrom, missingSecret, refuseNamespacedName } from './credentials.js';
import type { ReadCredentials } from './credentials.js';
import { classify } from './errors.js';
import { objectKey } from '../kube/port.js';
import { discardStale, logDiscarded } from '../runner/stale.js';
import type { KubePort, Secret, WatchEvent } from '../kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';
import type { PoolMetrics } from './metrics.js';
import type { NetworkGuard } from './network-guard.js';

const MIN_INTERVAL_SECONDS = 5;
/** An unchanged reading is still written when the last written one is this many intervals old. */
const HEARTBEAT_INTERVALS = 10;
const UNREACHABLE = new Set(['BMCUnreachable', 'Timeout']);

export interface MonitorDeps {
  kube: KubePort;
  clock: Clock;
  logger: Logger;
  metrics: PoolMetrics;
  guard: NetworkGuard;
  gate: BMCGate;
  factory: BMCDriverFactory;
  bmcTimeoutMs: number;
  ipmiCommandIntervalMs: number;
  concurrency: number;
  random?: () => number;
}

interface Entry {
  object: BMCMonitor;
  spec: string;
  timer?: Timer;
  queued: boolean;
  again: boolean;
  /** The next reading is written even when nothing changed (after a request, a new spec or new credentials). */
  write: boolean;
}

export interface Observation {
  poweredOn?: boolean;
  reachable?: boolean;
  credentials?: CredentialsReport;
  error?: OperationError;
}

function sameError(a: OperationError | undefined, b: OperationError | undefined): boolean {
  return a?.kind === b?.kind && a?.reason === b?.reason && a?.message === b?.message;
}

/** Did any observed value change? (observedTime alone is not a change.) */
export function observationChanged(previous: BMCMonitorStatus, next: Observation): boolean {
  return (
    previous.poweredOn !== next.poweredOn ||
    previous.reachable !== next.reachable ||
    previous.credentials?.credentialsVersion !== next.credentials?.credentialsVersion ||
    previous.credentials?.name !== next.credentials?.name ||
    !sameError(previous.error, next.error)
  );
}

function credentialsRotated(previous: CredentialsReport | undefined, next: CredentialsReport | undefined): boolean {
  return previous !== undefined && next !== undefined && previous.credentialsVersion !== next.credentialsVersion;
}

/**
 * Whether a reading is written: a first one, a changed value, a reading that must be (after a
 * request, so the host's hook sees a power reading newer than the request's result), or a
 * heartbeat once the last written reading is HEARTBEAT_INTERVALS intervals old.
 */
export function shouldWrite(
  previous: BMCMonitorStatus,
  observation: Observation,
  readAt: number,
  options: { forced: boolean; intervalSeconds: number },
): boolean {
  if (options.forced || previous.observedTime === undefined || previous.changedTime === undefined || observationChanged(previous, observation)) return true;
  const heartbeatMs = HEARTBEAT_INTERVALS * Math.max(MIN_INTERVAL_SECONDS, options.intervalSeconds) * 1000;
  return readAt - Date.parse(previous.observedTime) >= heartbeatMs;
}

/** The status after an observation: changedTime moves only when a value changed. */
export function nextStatus(previous: BMCMonitorStatus, observation: Observation, now: string): BMCMonitorStatus {
  const changed = observationChanged(previous, observation) || previous.changedTime === undefined;
  const defined = Object.entries(observation).filter(([, value]) => value !== undefined);
  return { observedTime: now, changedTime: changed ? now : previous.changedTime, ...Object.fromEntries(defined) };
}

export class MonitorRefresher {
  private readonly entries = new Map<string, Entry>();
  private readonly secrets = new Map<string, Secret>();
  private readonly suspended = new Set<string>();
  private readonly queue: PQueue;
  private active = true;

  constructor(private readonly deps: MonitorDeps) {
    this.queue = new PQueue({ concurrency: deps.concurrency });
  }

  onMonitorEvent(event: WatchEvent<BMCMonitor>): void {
    const key = objectKey(event.object);
    const existing = this.entries.get(key);
    const stale = event.type !== 'deleted' && isStaleChild(event.object);
    if (event.type === 'deleted' || stale) {
      existing?.timer?.cancel();
      this.entries.delete(key);
      if (stale) this.discard(event.object);
      return;
    }
    const spec = JSON.stringify(event.object.spec);
    if (existing === undefined) {
      this.suspended.delete(this.hostKey(event.object));
      // A monitor with a status (a pool that restarted) is written only when something changed.
      this.entries.set(key, { object: event.object, spec, queued: false, again: false, write: false });
      this.refreshSoon(key);
      return;
    }
    existing.object = event.object;
    if (existing.spec !== spec) {
      existing.spec = spec;
      this.suspended.delete(this.hostKey(event.object));
      this.refreshSoon(key, true);
    }
  }

  onSecretEvent(event: WatchEvent<Secret>): void {
    const key = objectKey(event.object);
    if (event.type === 'deleted') {
      this.secrets.delete(key);
    } else {
      this.secrets.set(key, event.object);
    }
    for (const [monitorKey, entry] of this.entries) {
      const credentials = entry.object.status?.credentials;
      const references =
        entry.object.metadata.namespace === event.object.metadata.namespace && entry.object.spec.bmc.credentialsName === event.object.metadata.name;
      if (references && (event.type === 'deleted' || credentials?.credentialsVersion !== event.object.metadata.resourceVersion)) {
        this.refreshSoon(monitorKey, true);
      }
    }
  }

  /** Refresh the monitors of one host now (after a request for it completed). */
  refreshHost(namespace: string, host: string): void {
    for (const [key, entry] of this.entries) {
      if (entry.object.metadata.namespace === namespace && entry.object.spec.host.name === host) {
        this.refreshSoon(key, true);
      }
    }
  }

  suspend(namespace: string, host: string): void {
    this.suspended.add(`${namespace}/${host}`);
    for (const entry of this.entries.values()) {
      if (this.hostKey(entry.object) === `${namespace}/${host}`) {
        entry.timer?.cancel();
      }
    }
  }

  stop(): void {
    this.active = false;
    this.queue.clear();
    for (const entry of this.entries.values()) {
      entry.timer?.cancel();
    }
  }

  async settled(): Promise<void> {
    await this.queue.onIdle();
  }

  /** A moved host's monitor (runner/stale.ts): its host's hook makes a new one once this name is free. */
  private discard(monitor: BMCMonitor): void {
    discardStale(this.deps.kube, { resource: 'bmcmonitors', discarded: this.discarded.bind(this) }, monitor);
  }

  private discarded(monitor: BMCMonitor, error?: unknown): void {
    logDiscarded(this.deps.logger, { namespace: monitor.metadata.namespace, monitor: monitor.metadata.name }, error, 'a BMCMonitor');
  }

  private hostKey(monitor: BMCMonitor): string {
    return `${monitor.metadata.namespace ?? ''}/${monitor.spec.host.name}`;
  }

  /** Queues a reading; `write` writes it even when nothing changed. */
  private refreshSoon(key: string, write = false): void {
    const entry = this.entries.get(key);
    if (entry === undefined || !this.active || this.suspended.has(this.hostKey(entry.object))) {
      return;
    }
    entry.write ||= write;
    entry.timer?.cancel();
    entry.timer = undefined;
    if (entry.queued) {
      entry.again = true;
      return;
    }
    entry.queued = true;
    void this.queue.add(() => this.refresh(key));
  }

  private schedule(key: string, entry: Entry): void {
    if (!this.active || this.suspended.has(this.hostKey(entry.object))) {
      return;
    }
    const interval = Math.max(MIN_INTERVAL_SECONDS, entry.object.spec.intervalSeconds) * 1000;
    const jitter = 0.9 + 0.2 * (this.deps.random ?? Math.random)();
    entry.timer?.cancel();
    entry.timer = this.deps.clock.setTimer(interval * jitter, () => {
      this.refreshSoon(key);
    });
  }

  private async refresh(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      return;
    }
    entry.again = false;
    const forced = entry.write;
    entry.write = false;
    try {
      const { observation, readAt } = await this.observe(entry.object);
      const previous = entry.object.status ?? {};
      if (shouldWrite(previous, observation, readAt, { forced, intervalSeconds: entry.object.spec.intervalSeconds })) {
        const status = await this.write(entry.object, observation, readAt);
        entry.object = { ...entry.object, status };
      } else {
        this.deps.metrics.monitorRefreshes.inc({ result: 'unchanged' });
      }
    } catch (error) {
      entry.write ||= forced;
      this.deps.logger.warn({ monitor: key, err: errorFields(error) }, 'could not refresh a BMC monitor');
    } finally {
      entry.queued = false;
      this.next(key, entry);
    }
  }

  /** After a refresh: again at once when asked meanwhile, else after the interval (unless deleted). */
  private next(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) {
      return;
    }
    if (entry.again) {
      this.refreshSoon(key);
    } else {
      this.schedule(key, entry);
    }
  }

  private async secretFor(namespace: string, name: string): Promise<Secret | undefined> {
    return this.secrets.get(`${namespace}/${name}`) ?? (name === '' ? undefined : await this.deps.kube.getSecret(namespace, name));
  }

  private async readCredentials(monitor: BMCMonitor): Promise<ReadCredentials> {
    const namespace = monitor.metadata.namespace ?? '';
    const name = monitor.spec.bmc.credentialsName;
    refuseNamespacedName(name);
    const secret = await this.secretFor(namespace, name);
    if (secret === undefined) {
      throw missingSecret(namespace, name);
    }
    return credentialsFrom(secret);
  }

  /**
   * One reading, with the time it was taken: just before the power read, not when the status is
   * written. A read that waited behind a request's calls on the BMC gate, or whose write was
   * queued, must not outdate the result of a request that finished after the read began.
   */
  private async observe(monitor: BMCMonitor): Promise<{ observation: Observation; readAt: number }> {
    const seen: { credentials?: ReadCredentials; contacted: boolean; readAt: number } = { contacted: false, readAt: this.deps.clock.now() };
    try {
      const read = await this.readCredentials(monitor);
      seen.credentials = read;
      const connection = await connect({ ...this.deps, timeoutMs: this.deps.bmcTimeoutMs }, monitor.spec.bmc, read);
      seen.contacted = true;
      try {
        seen.readAt = this.deps.clock.now();
        const poweredOn = (await connection.driver.getPower()) === 'on';
        return { observation: { poweredOn, reachable: true, credentials: read.report }, readAt: seen.readAt };
      } finally {
        await withTimeout(connection.driver.close(), { clock: this.deps.clock, ms: this.deps.bmcTimeoutMs, what: 'closing the BMC session' }).catch(
          () => undefined,
        );
      }
    } catch (failure) {
      const error = classify(failure, seen.credentials === undefined ? [] : [seen.credentials.credentials.password]);
      const reachable = seen.contacted ? !UNREACHABLE.has(error.reason) : monitor.status?.reachable;
      return { observation: { poweredOn: monitor.status?.poweredOn, reachable, credentials: seen.credentials?.report, error }, readAt: seen.readAt };
    }
  }

  private async write(monitor: BMCMonitor, observation: Observation, readAt: number): Promise<BMCMonitorStatus> {
    const previous = monitor.status ?? {};
    const now = formatTime(readAt);
    if (credentialsRotated(previous.credentials, observation.credentials)) {
      this.deps.metrics.credentialsUpdated.inc();
    }
    const next = nextStatus(previous, observation, now);
    const patch: Record<string, unknown> = { poweredOn: null, reachable: null, credentials: null, error: null, ...next };
    await this.deps.kube.patchStatus('bmcmonitors', monitor.metadata.namespace ?? '', monitor.metadata.name ?? '', patch);
    this.deps.metrics.monitorRefreshes.inc({ result: observation.error === undefined ? 'ok' : 'error' });
    return next;
  }
}
