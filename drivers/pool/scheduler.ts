// Which request runs when (docs/architecture.md, rules 1-5): per host at most one request at a
// time, the one with the highest spec.sequence; a lower running one is cancelled when a higher
// one appears, a deleted one when it disappears; a Succeeded/Failed request never runs again
// (also not while the watch still shows the old phase); notBefore is a timer on the pool's
// clock; gated actions wait for a provisioning slot as Delayed; admitted requests share a global
// worker queue.
import PQueue from 'p-queue';
import { CAPACITY_GATED_ACTIONS, Phase, isFinished } from '../../domain/operations.js';
import type { HostOperation, HostOperationStatus } from '../../domain/operations.js';
import { ProvisioningCapacity } from './capacity.js';
import type { Clock, Timer } from './clock.js';
import { tryParseAddress } from './connect.js';
import { CancelledError } from './errors.js';
import type { KubePort, WatchEvent } from './kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';
import type { PoolMetrics } from './metrics.js';

export interface SchedulerDeps {
  clock: Clock;
  logger: Logger;
  metrics: PoolMetrics;
  kube: KubePort;
  concurrency: number;
  provisioningLimit: number;
  run: (op: HostOperation, signal: AbortSignal) => Promise<HostOperationStatus | undefined>;
  onFinished?: (op: HostOperation) => void;
}

interface Running {
  name: string;
  controller: AbortController;
  done: Promise<void>;
}

interface HostEntry {
  key: string;
  ops: Map<string, HostOperation>;
  running?: Running;
  queued?: string;
  delayed?: string;
  waiting?: { name: string; timer: Timer };
}

function uidOf(op: HostOperation): string {
  return op.metadata.uid ?? `${op.metadata.namespace ?? ''}/${op.metadata.name ?? ''}`;
}

function hostKeyOf(op: HostOperation): string {
  return `${op.metadata.namespace ?? ''}/${op.spec.host.name}`;
}

/** Gated actions on schemes that do not boot ISOs hold a provisioning slot. */
export function isCapacityGated(op: HostOperation): boolean {
  if (!CAPACITY_GATED_ACTIONS.has(op.spec.action)) {
    return false;
  }
  return tryParseAddress(op.spec.bmc.address)?.capabilities.bootsISO !== true;
}

function startRun(name: string): { running: Running; finish: () => void } {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { running: { name, controller: new AbortController(), done }, finish };
}

export class Scheduler {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly finished = new Map<string, HostOperationStatus>();
  private readonly delayedOnce = new Set<string>();
  private readonly queue: PQueue;
  readonly capacity: ProvisioningCapacity;
  private accepting = true;

  constructor(private readonly deps: SchedulerDeps) {
    this.queue = new PQueue({ concurrency: deps.concurrency });
    this.capacity = new ProvisioningCapacity(deps.provisioningLimit);
  }

  onEvent(event: WatchEvent<HostOperation>): void {
    const op = event.object;
    const key = hostKeyOf(op);
    const entry = this.hosts.get(key) ?? { key, ops: new Map<string, HostOperation>() };
    this.hosts.set(key, entry);
    const name = op.metadata.name ?? '';
    if (event.type === 'deleted') {
      entry.ops.delete(name);
      this.finished.delete(uidOf(op));
      this.delayedOnce.delete(uidOf(op));
    } else {
      entry.ops.set(name, op);
    }
    this.reconcile(key);
  }

  /** What the scheduler is doing (tests, debugging). */
  snapshot(): { running: string[]; queued: string[]; delayed: string[]; waiting: string[] } {
    const entries = [...this.hosts.values()];
    const names = (pick: (entry: HostEntry) => string | undefined): string[] => entries.map(pick).filter((name): name is string => name !== undefined).sort();
    return { running: names((entry) => entry.running?.name), queued: names((entry) => entry.queued), delayed: names((entry) => entry.delayed), waiting: names((entry) => entry.waiting?.name) };
  }

  /** Resolves when nothing is queued or running (tests). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.hosts.values()].map((entry) => entry.running?.done).filter((done) => done !== undefined);
      if (running.length === 0 && this.queue.size === 0 && this.queue.pending === 0) {
        return;
      }
      await Promise.all([this.queue.onIdle(), ...running]);
    }
  }

  private isDone(op: HostOperation): boolean {
    return isFinished(op.status?.phase) || this.finished.has(uidOf(op));
  }

  private current(entry: HostEntry): HostOperation | undefined {
    let best: HostOperation | undefined;
    for (const op of entry.ops.values()) {
      if (op.metadata.deletionTimestamp === undefined && (best === undefined || op.spec.sequence > best.spec.sequence)) {
        best = op;
      }
    }
    return best;
  }

  reconcile(key: string): void {
    const entry = this.hosts.get(key);
    if (entry === undefined) {
      return;
    }
    const current = this.current(entry);
    this.dropStale(entry, current);
    if (current === undefined) {
      this.forgetIfEmpty(entry);
      return;
    }
    if (this.accepting && !this.busy(entry, current) && !this.isDone(current)) {
      this.admit(entry, current);
    }
  }

  /** Something runs for the host, or `op` already waits (queue, slot, notBefore). */
  private busy(entry: HostEntry, op: HostOperation): boolean {
    const name = op.metadata.name ?? '';
    return entry.running !== undefined || entry.queued === name || entry.delayed === name || entry.waiting?.name === name;
  }

  private dropStale(entry: HostEntry, current: HostOperation | undefined): void {
    const currentName = current?.metadata.name;
    if (entry.running !== undefined && entry.running.name !== currentName) {
      const why = entry.ops.has(entry.running.name) ? `superseded by ${currentName ?? 'a newer request'}` : 'the request was deleted';
      entry.running.controller.abort(new CancelledError(why));
    }
    if (entry.waiting !== undefined && entry.waiting.name !== currentName) {
      entry.waiting.timer.cancel();
      entry.waiting = undefined;
    }
    if (entry.delayed !== undefined && entry.delayed !== currentName) {
      entry.delayed = undefined;
      this.capacity.unwait(entry.key);
      this.updateDelayedGauge();
    }
  }

  private forgetIfEmpty(entry: HostEntry): void {
    if (entry.ops.size === 0 && entry.running === undefined && entry.queued === undefined) {
      this.hosts.delete(entry.key);
    }
  }

  private admit(entry: HostEntry, op: HostOperation): void {
    const resumed = op.status?.phase === Phase.Running;
    const notBefore = op.spec.notBefore === undefined ? Number.NaN : Date.parse(op.spec.notBefore);
    const wait = notBefore - this.deps.clock.now();
    if (!resumed && wait > 0) {
      this.waitUntil(entry, op, wait);
      return;
    }
    if (isCapacityGated(op) && !this.capacity.tryAcquire(uidOf(op), resumed)) {
      this.delay(entry, op);
      return;
    }
    this.capacity.unwait(entry.key);
    if (entry.delayed !== undefined) {
      entry.delayed = undefined;
      this.updateDelayedGauge();
    }
    this.enqueue(entry, op);
  }

  private waitUntil(entry: HostEntry, op: HostOperation, ms: number): void {
    const name = op.metadata.name ?? '';
    const timer = this.deps.clock.setTimer(ms, () => {
      if (entry.waiting?.name === name) {
        entry.waiting = undefined;
        this.reconcile(entry.key);
      }
    });
    entry.waiting = { name, timer };
    if (op.status?.phase === undefined) {
      this.writeQuietly(op, { phase: Phase.Pending, message: `waiting until ${op.spec.notBefore ?? ''} (notBefore)` });
    }
  }

  private delay(entry: HostEntry, op: HostOperation): void {
    entry.delayed = op.metadata.name ?? '';
    this.capacity.wait(entry.key);
    this.updateDelayedGauge();
    const uid = uidOf(op);
    if (!this.delayedOnce.has(uid)) {
      this.delayedOnce.add(uid);
      const labels = this.deps.metrics.hostLabels(op.metadata.namespace ?? '', op.spec.host.name);
      (op.spec.action === 'Deprovision' ? this.deps.metrics.delayedDeprovisioning : this.deps.metrics.delayedProvisioning).inc(labels);
    }
    if (op.status?.phase !== Phase.Delayed) {
      const delayReason = `the provisioning limit of ${String(this.capacity.limit)} concurrent inspections, provisionings and deprovisionings is reached (PROVISIONING_LIMIT); waiting for a slot`;
      this.writeQuietly(op, { phase: Phase.Delayed, delayReason, message: delayReason });
    }
  }

  private updateDelayedGauge(): void {
    this.deps.metrics.delayed.set([...this.hosts.values()].filter((entry) => entry.delayed !== undefined).length);
  }

  private writeQuietly(op: HostOperation, status: HostOperationStatus): void {
    this.deps.kube.patchStatus('hostoperations', op.metadata.namespace ?? '', op.metadata.name ?? '', { ...status }).catch((error: unknown) => {
      this.deps.logger.warn({ namespace: op.metadata.namespace, operation: op.metadata.name, err: errorFields(error) }, 'could not write the request status');
    });
  }

  private enqueue(entry: HostEntry, op: HostOperation): void {
    const name = op.metadata.name ?? '';
    entry.queued = name;
    this.deps.metrics.queueDepth.set(this.queue.size + 1);
    void this.queue.add(async () => {
      this.deps.metrics.queueDepth.set(this.queue.size);
      await this.execute(entry, name, uidOf(op));
    });
  }

  private async execute(entry: HostEntry, name: string, uid: string): Promise<void> {
    entry.queued = undefined;
    const op = entry.ops.get(name);
    if (op === undefined || this.current(entry)?.metadata.name !== name || this.isDone(op) || !this.accepting) {
      this.wake(this.capacity.release(uid));
      this.reconcile(entry.key);
      return;
    }
    const { running, finish } = startRun(name);
    const controller = running.controller;
    entry.running = running;
    this.deps.metrics.inFlight.inc();
    let status: HostOperationStatus | undefined;
    try {
      status = await this.deps.run(op, controller.signal);
    } catch (error) {
      this.deps.logger.error({ namespace: op.metadata.namespace, operation: name, err: errorFields(error) }, 'request execution crashed');
    } finally {
      if (status === undefined && !controller.signal.aborted) {
        // Crashed, or found deleted while the watch still shows it: never loop on it here.
        this.finished.set(uid, { phase: Phase.Failed });
      }
      this.deps.metrics.inFlight.dec();
      entry.running = undefined;
      finish();
    }
    this.afterRun(entry, op, status);
  }

  private afterRun(entry: HostEntry, op: HostOperation, status: HostOperationStatus | undefined): void {
    const uid = uidOf(op);
    if (status !== undefined && isFinished(status.phase) && entry.ops.has(op.metadata.name ?? '')) {
      this.finished.set(uid, status);
    }
    this.wake(this.capacity.release(uid));
    if (status !== undefined) {
      this.deps.onFinished?.(op);
    }
    this.reconcile(entry.key);
  }

  private wake(keys: string[]): void {
    for (const key of keys) {
      const entry = this.hosts.get(key);
      if (entry !== undefined) {
        entry.delayed = undefined;
        this.reconcile(key);
      }
    }
    this.updateDelayedGauge();
  }

  /** Stop taking work and cancel what runs; statuses are left resumable. */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    this.queue.clear();
    const running: Promise<void>[] = [];
    for (const entry of this.hosts.values()) {
      entry.waiting?.timer.cancel();
      entry.waiting = undefined;
      if (entry.running !== undefined) {
        entry.running.controller.abort(new CancelledError('the driver pool is shutting down'));
        running.push(entry.running.done);
      }
    }
    await Promise.race([Promise.all(running), this.deps.clock.sleep(graceMs)]);
  }
}
