// Retry arithmetic and the work queue of the stand-in (reference §6.7, §6.10), with an injected
// clock and timers: no sleeping.
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS, RateLimiter, TokenBucket, itemBackoffMs, retryAfterMs } from '../support/metacontroller/core/backoff.js';
import { WorkQueue } from '../support/metacontroller/core/queue.js';
import type { Timers } from '../support/metacontroller/core/queue.js';

describe('itemBackoffMs', () => {
  it.each([
    [0, 5],
    [1, 10],
    [2, 20],
    [10, 5120],
    [17, 655_360],
    [18, MAX_DELAY_MS],
    [1000, MAX_DELAY_MS],
  ])('failure %i waits %i ms', (failures, ms) => {
    expect(itemBackoffMs(failures)).toBe(ms);
  });
});

describe('TokenBucket', () => {
  it('allows the burst, then one token per interval', () => {
    let now = 0;
    const bucket = new TokenBucket(1 / 300, 3, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    now = 299_000;
    expect(bucket.take()).toBe(false);
    now = 300_000;
    expect(bucket.take()).toBe(true);
  });

  it('reserve goes into debt and reports the wait', () => {
    const bucket = new TokenBucket(10, 1, () => 0);
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBeCloseTo(100);
    expect(bucket.reserve()).toBeCloseTo(200);
  });
});

describe('RateLimiter', () => {
  it('doubles per item, resets on forget, keeps items apart', () => {
    const limiter = new RateLimiter(() => 0);
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 10, 20]);
    expect(limiter.when('b')).toBe(5);
    expect(limiter.requeues('a')).toBe(3);
    limiter.forget('a');
    expect(limiter.requeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('is held back by the overall 10 qps / burst 100 bucket', () => {
    const limiter = new RateLimiter(() => 0);
    const delays = Array.from({ length: 102 }, (_unused, index) => limiter.when(`k${String(index)}`));
    expect(delays.slice(0, 100).every((delay) => delay === 5)).toBe(true);
    expect(delays[100]).toBeCloseTo(100);
    expect(delays[101]).toBeCloseTo(200);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it.each<[string | undefined, number]>([
    [undefined, 0],
    ['', 0],
    ['3', 3000],
    [' 0 ', 0],
    ['Sun, 29 Nov 2026 12:00:10 GMT', 10_000],
    ['Sun, 29 Nov 2026 11:00:00 GMT', 0],
    ['soon', 0],
  ])('%j -> %i ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });
});

/** Timers driven by the test. */
function fakeTimers(): Timers & { advance(ms: number): void } {
  let now = 0;
  let pending: { at: number; callback: () => void; id: number }[] = [];
  let next = 0;
  return {
    now: () => now,
    setTimeout: (callback, ms) => {
      next += 1;
      pending.push({ at: now + ms, callback, id: next });
      return next;
    },
    clearTimeout: (handle) => {
      pending = pending.filter((timer) => timer.id !== handle);
    },
    advance(ms) {
      now += ms;
      const due = pending.filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at);
      pending = pending.filter((timer) => timer.at > now);
      for (const timer of due) timer.callback();
    },
  };
}

describe('WorkQueue', () => {
  it('queues a key once', async () => {
    const queue = new WorkQueue(fakeTimers());
    queue.add('a');
    queue.add('a');
    queue.add('b');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never hands out a key being processed; an add during processing is replayed after done', async () => {
    const queue = new WorkQueue(fakeTimers());
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    expect(queue.length).toBe(0);
    queue.done(first ?? '');
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
  });

  it('hands a key to a waiting worker', async () => {
    const queue = new WorkQueue(fakeTimers());
    const waiting = queue.get();
    queue.add('a');
    expect(await waiting).toBe('a');
  });

  it('addAfter keeps the earliest deadline (smallest resyncAfterSeconds wins)', () => {
    const timers = fakeTimers();
    const queue = new WorkQueue(timers);
    queue.addAfter('a', 5000);
    queue.addAfter('a', 1000);
    queue.addAfter('a', 3000);
    timers.advance(999);
    expect(queue.length).toBe(0);
    timers.advance(1);
    expect(queue.length).toBe(1);
    timers.advance(10_000);
    expect(queue.length).toBe(1);
  });

  it('addRateLimited waits the growing back-off, forget resets it', () => {
    const timers = fakeTimers();
    const queue = new WorkQueue(timers);
    expect(queue.addRateLimited('a')).toBe(5);
    timers.advance(5);
    expect(queue.length).toBe(1);
    expect(queue.addRateLimited('b')).toBe(5);
    expect(queue.addRateLimited('b')).toBe(10);
    timers.advance(10);
    expect(queue.addRateLimited('b')).toBe(20);
    queue.forget('b');
    expect(queue.addRateLimited('b')).toBe(5);
  });

  it('shutDown releases waiting workers and drops timers', async () => {
    const timers = fakeTimers();
    const queue = new WorkQueue(timers);
    const waiting = queue.get();
    queue.addAfter('a', 10);
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    timers.advance(100);
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });
});
