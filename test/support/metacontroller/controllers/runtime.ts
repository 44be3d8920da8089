// What every controller loop shares: the API client, discovery, informers, events, logging,
// the worker count, and the one-line-per-sync report.
import type { Discovery } from '../kube/discovery.js';
import type { EventRecorder } from '../kube/events.js';
import type { InformerFactory } from '../kube/informer.js';
import type { ObjectOps } from '../kube/ops.js';
import type { RestClient } from '../kube/rest.js';
import type { Logger } from '../log.js';
import type { HookMetrics } from '../hooks/webhook.js';

export interface Runtime {
  client: RestClient;
  ops: ObjectOps;
  discovery: Discovery;
  informers: InformerFactory;
  events: EventRecorder;
  log: Logger;
  workers: number;
  cacheFlushIntervalMs: number;
  metrics?: HookMetrics;
}

/** Filled in by a sync as it goes; logged once when it ends. */
export interface SyncReport {
  hook: 'sync' | 'finalize' | 'none';
  detail: string[];
}

/** Related objects are not cached yet: re-queue quietly, no event, no back-off. */
export class NotSynced extends Error {
  constructor(what: string) {
    super(`informer for ${what} has not synced yet`);
    this.name = 'NotSynced';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Several errors as one (like utilerrors.NewAggregate), or undefined for none. */
export function aggregate(errors: Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new Error(`[${errors.map((error) => error.message).join(', ')}]`);
}
