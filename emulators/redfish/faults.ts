// Request-level fault injection: the emulator-wide faults and the addressed system's faults are
// consulted before a request is handled. Counters (dropRequests, serverError.count) are used up.
// RandomFaults adds seeded probabilistic drops, delays, 5xx answers and time-outs (the chaos soak).
import { errorReply } from './replies.js';
import type { Reply } from './replies.js';
import type { FaultConfig } from './types.js';

export type FaultDecision =
  | { readonly kind: 'close'; readonly delayMs?: number }
  | { readonly kind: 'reply'; readonly reply: Reply; readonly delayMs: number }
  | { readonly kind: 'pass'; readonly delayMs: number };

function takeDrop(faults: FaultConfig): boolean {
  const remaining = faults.dropRequests ?? 0;
  if (remaining <= 0) {
    return false;
  }
  faults.dropRequests = remaining - 1;
  return true;
}

function takeServerError(faults: FaultConfig): Reply | undefined {
  const error = faults.serverError;
  if (error === undefined || (error.count !== undefined && error.count <= 0)) {
    return undefined;
  }
  if (error.count !== undefined) {
    error.count -= 1;
  }
  return serverError(error.status ?? 500, error.retryAfterSeconds);
}

function serverError(status: number, retryAfterSeconds?: number): Reply {
  const busy = status === 503 || status === 429;
  const headers = retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) };
  return errorReply(status, { messageId: busy ? 'ServiceTemporarilyUnavailable' : 'InternalError', message: `Injected fault: HTTP ${status}.` }, headers);
}

export function decideFault(all: readonly (FaultConfig | undefined)[]): FaultDecision {
  const faults = all.filter((entry): entry is FaultConfig => entry !== undefined);
  if (faults.some((entry) => entry.unreachable === true) || faults.some(takeDrop)) {
    return { kind: 'close' };
  }
  const delayMs = Math.max(0, ...faults.map((entry) => entry.slowMs ?? 0));
  for (const entry of faults) {
    const reply = takeServerError(entry);
    if (reply !== undefined) {
      return { kind: 'reply', reply, delayMs };
    }
  }
  return { kind: 'pass', delayMs };
}

/** Seeded probabilistic faults for every request (a chaos soak): each rate is a probability per request. */
export interface RandomFaultConfig {
  seed: number;
  /** Close the socket without answering. */
  dropRate: number;
  /** Answer late but correctly (a slow BMC), after `delayMs` ([min, max]). */
  delayRate: number;
  delayMs: readonly [number, number];
  /** Answer 500 or 503 without handling the request. */
  errorRate: number;
  /** Hold the request `timeoutMs` without answering, then close it (longer than the client's timeout). */
  timeoutRate: number;
  timeoutMs: number;
}

/** Faults injected so far by a RandomFaults source, by kind. */
export interface InjectedFaults {
  dropped: number;
  delayed: number;
  serverErrors: number;
  timedOut: number;
}

/** mulberry32: a small seeded generator, so one seed replays one fault sequence (per request order). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class RandomFaults {
  readonly injected: InjectedFaults = { dropped: 0, delayed: 0, serverErrors: 0, timedOut: 0 };
  private readonly random: () => number;

  constructor(private readonly config: RandomFaultConfig) {
    this.random = seededRandom(config.seed);
  }

  /** A fault for the next request, or undefined to handle it normally. */
  decide(): FaultDecision | undefined {
    const { dropRate, delayRate, errorRate, timeoutRate } = this.config;
    const roll = this.random();
    if (roll < dropRate) {
      this.injected.dropped += 1;
      return { kind: 'close' };
    }
    if (roll < dropRate + timeoutRate) {
      this.injected.timedOut += 1;
      return { kind: 'close', delayMs: this.config.timeoutMs };
    }
    if (roll < dropRate + timeoutRate + errorRate) {
      this.injected.serverErrors += 1;
      const status = this.random() < 0.5 ? 500 : 503;
      return { kind: 'reply', reply: serverError(status), delayMs: 0 };
    }
    if (roll < dropRate + timeoutRate + errorRate + delayRate) {
      this.injected.delayed += 1;
      const [min, max] = this.config.delayMs;
      return { kind: 'pass', delayMs: Math.round(min + (max - min) * this.random()) };
    }
    return undefined;
  }
}
