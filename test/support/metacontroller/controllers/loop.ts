// The per-controller work loop: a queue of object keys, --workers parallel syncs (never two
// for the same key), outcome handling (§6.7) and periodic resync (§6.8).
//   success           -> forget the key's back-off
//   hook 429          -> re-queue after Retry-After, no event, no back-off
//   related not synced -> quiet re-queue
//   any other error   -> "failed to sync" log, Warning event SyncError, rate-limited re-queue
import { WorkQueue, runWorkers } from '../core/queue.js';
import type { KObject } from '../kube/objects.js';
import { RetryLater } from '../hooks/webhook.js';
import type { Runtime, SyncReport } from './runtime.js';
import { NotSynced, errorMessage } from './runtime.js';

const NOT_SYNCED_RETRY_MS = 250;

export interface LoopOptions {
  runtime: Runtime;
  /** `CompositeController foo` / `DecoratorController bar`, for logs. */
  name: string;
  sync: (key: string, report: SyncReport) => Promise<void>;
  /** The cached object behind a key, to put events on. */
  objectFor: (key: string) => KObject | undefined;
  /** Every cached key, for resyncs. */
  keys: () => string[];
  resyncPeriodSeconds?: number;
}

export class Loop {
  readonly queue = new WorkQueue();
  private readonly timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly options: LoopOptions) {}

  start(): void {
    this.running = runWorkers(this.queue, this.options.runtime.workers, async (key) => this.process(key));
    const period = this.options.resyncPeriodSeconds;
    if (period !== undefined && period > 0) this.every(Math.max(1, period) * 1000);
    this.every(this.options.runtime.cacheFlushIntervalMs);
    this.resyncAll();
  }

  private every(ms: number): void {
    const timer = setInterval(() => {
      this.resyncAll();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  resyncAll(): void {
    for (const key of this.options.keys()) this.queue.add(key);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.queue.shutDown();
    await this.running;
  }

  private async process(key: string): Promise<void> {
    const started = performance.now();
    const report: SyncReport = { hook: 'none', detail: [] };
    let outcome = 'ok';
    try {
      await this.options.sync(key, report);
      this.queue.forget(key);
    } catch (error) {
      outcome = this.failed(key, error);
    }
    const duration = (performance.now() - started).toFixed(1);
    const detail = report.detail.length === 0 ? '' : ` (${report.detail.join('; ')})`;
    this.options.runtime.log.info(0, `sync ${this.options.name} object=${key} hook=${report.hook} duration=${duration}ms outcome=${outcome}${detail}`);
  }

  /** Handle a failed sync; returns the outcome text for the log line. */
  private failed(key: string, error: unknown): string {
    if (error instanceof RetryLater) {
      this.queue.addAfter(key, error.delayMs);
      return `retry-after ${String(error.delayMs)}ms (HTTP 429)`;
    }
    if (error instanceof NotSynced) {
      this.queue.addAfter(key, NOT_SYNCED_RETRY_MS);
      return `requeued: ${error.message}`;
    }
    const message = errorMessage(error);
    const { runtime, name } = this.options;
    runtime.log.error(`failed to sync ${name} ${key}: ${message}`);
    const obj = this.options.objectFor(key);
    if (obj !== undefined) runtime.events.record(obj, 'Warning', 'SyncError', message);
    const delay = this.queue.addRateLimited(key);
    return `error (retry in ${delay.toFixed(0)}ms): ${message}`;
  }
}
