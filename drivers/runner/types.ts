// The request runner's contract (runner.ts): what a request kind tells the runner, and what the
// runner tells it back.
import type PQueue from 'p-queue';
import type { KObject } from '../../domain/k8s.js';
import type { Phase } from '../../domain/operations.js';
import type { KubePort, RequestResource } from '../kube/port.js';
import type { Clock } from '../pool/clock.js';
import type { StaleRequestKind } from './stale.js';

export type Request = KObject & { status?: { phase?: Phase } };

/** Where a request is in this runner: `waiting` is on a timer, `held` until its key is woken. */
export type RequestState = 'idle' | 'waiting' | 'held' | 'queued' | 'running';

export interface Candidate<R extends Request> {
  request: R;
  state: RequestState;
  /** Succeeded or Failed (in the watch, or by a run of this runner). */
  finished: boolean;
}

/** Before a selected request is queued: run it, wait `ms` first, or hold it until woken. */
export type Admission = { kind: 'run' } | { kind: 'wait'; ms: number } | { kind: 'hold' };

/** How a run ended: `failed` retries count towards the back-off, others reset it. */
export type RunOutcome = { kind: 'finished' } | { kind: 'cancelled' } | { kind: 'retry'; afterMs: number; failed: boolean };

export interface RunContext {
  signal: AbortSignal;
  /** The back-off before the next attempt if this one fails transiently. */
  backoffMs: number;
}

/** `discarded`: a request its controller no longer owns was deleted unrun (stale.ts). */
export interface RequestKind<R extends Request> extends StaleRequestKind<R> {
  resource: RequestResource;
  /** False for an object the kind cannot run (it logs why). */
  wellFormed(object: KObject): object is R;
  key(request: R): string;
  /** The request of one key (candidates in the order seen) that runs, or keeps running, now. */
  select(candidates: readonly Candidate<R>[]): R | undefined;
  execute(request: R, context: RunContext): Promise<RunOutcome>;
  /** A run threw (a bug): the request is treated as finished, so it never loops. */
  crashed(request: R, error: unknown): void;
  admission?: AdmissionPolicy<R>;
  /** The request was deleted: drop what the kind keeps about it. */
  forget?(request: R): void;
  /** Running requests are cancelled on stop (else they finish within the grace). */
  cancelOnStop: boolean;
}

/** Gates between selection and the queue (notBefore, the provisioning limit). */
export interface AdmissionPolicy<R extends Request> {
  admit(request: R, key: string): Admission;
  /** The held request of `key` was admitted or dropped. */
  unhold(key: string): void;
  /** After a run of `request` ended (or its queued run was skipped): keys to look at again. */
  release(request: R): string[];
  heldChanged(count: number): void;
}

export interface RunnerDeps {
  kube: KubePort;
  clock: Clock;
  queue: PQueue;
  /** Namespaces to watch; empty means all. */
  namespaces: readonly string[];
  /** Upper bound of the back-off; unbounded when absent. */
  maxBackoffMs?: number;
  metrics?: { inFlight: { inc(): void; dec(): void }; queueDepth?: { set(value: number): void } };
}
