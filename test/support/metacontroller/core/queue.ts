// A work queue with client-go's guarantees: a key is queued at most once, never handed to two
// workers at the same time (an add during processing is replayed after done), delayed adds keep
// the earliest deadline, and rate-limited adds wait the RateLimiter's delay.
import { RateLimiter } from './backoff.js';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
  now: () => Date.now(),
};

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; handle: unknown }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  readonly limiter: RateLimiter;

  constructor(private readonly timers: Timers = realTimers) {
    this.limiter = new RateLimiter(() => timers.now());
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter === undefined) this.queue.push(key);
    else {
      this.processing.add(key);
      this.dirty.delete(key);
      getter(key);
    }
  }

  /** Add after `ms`; if the key is already waiting, the earlier deadline wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.timers.now() + ms;
    const existing = this.waiting.get(key);
    if (existing !== undefined && existing.at <= at) return;
    if (existing !== undefined) this.timers.clearTimeout(existing.handle);
    const handle = this.timers.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, handle });
  }

  addRateLimited(key: string): number {
    const delay = this.limiter.when(key);
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** The next key to process, or undefined once the queue is shut down. */
  async get(): Promise<string | undefined> {
    if (this.shuttingDown) return undefined;
    const key = this.queue.shift();
    if (key !== undefined) {
      this.processing.add(key);
      this.dirty.delete(key);
      return key;
    }
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (!this.dirty.has(key)) return;
    this.dirty.delete(key);
    this.add(key);
  }

  get length(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { handle } of this.waiting.values()) this.timers.clearTimeout(handle);
    this.waiting.clear();
    for (const getter of this.getters.splice(0)) getter(undefined);
  }
}

/** Run `workers` loops that take keys and call `process`, until the queue shuts down. */
export async function runWorkers(queue: WorkQueue, workers: number, process: (key: string) => Promise<void>): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      // Let pending I/O (watch events already received) reach the caches first: in Go the
      // informers run in parallel with the workers; here they share one event loop.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await process(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}
