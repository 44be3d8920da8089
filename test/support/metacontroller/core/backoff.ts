// Retry arithmetic, as client-go's DefaultControllerRateLimiter that Metacontroller uses:
// per-item exponential back-off from 5 ms doubling to 1000 s, combined (max) with an overall
// token bucket of 10 qps / burst 100. Plus Retry-After parsing for hook answers with HTTP 429.

export const BASE_DELAY_MS = 5;
export const MAX_DELAY_MS = 1000 * 1000;

/** Delay before retry number `failures` (0-based): base * 2^failures, capped at max. */
export function itemBackoffMs(failures: number, baseMs = BASE_DELAY_MS, maxMs = MAX_DELAY_MS): number {
  const delay = baseMs * 2 ** failures;
  return Number.isFinite(delay) && delay < maxMs ? delay : maxMs;
}

/** A token bucket (golang.org/x/time/rate semantics for take and reserve). */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }

  /** Take a token if one is available now. */
  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Take a token, possibly going into debt; returns how long to wait for it (ms). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.perSecond) * 1000;
  }
}

/** Per-item failures plus the overall bucket; `when` is what AddRateLimited waits. */
export class RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly bucket: TokenBucket;

  constructor(now: () => number = Date.now) {
    this.bucket = new TokenBucket(10, 100, now);
  }

  when(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    return Math.max(itemBackoffMs(failures), this.bucket.reserve());
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  requeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys that failed and have not succeeded since. */
  waitingKeys(): string[] {
    return [...this.failures.keys()];
  }
}

/** Retry-After: integer seconds or an HTTP date; missing or unparseable means 0. */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number {
  if (header === undefined) return 0;
  const value = header.trim();
  if (/^\d+$/u.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, date - now);
}
