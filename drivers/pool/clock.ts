// Time as a port: the pool never calls Date.now() or setTimeout directly, so
// notBefore, settle polling, lease renewal and monitor intervals run on virtual time in tests.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds of this clock's time. */
  setTimer(ms: number, callback: () => void): Timer;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
}

/** Shared by both clocks: a sleep built from setTimer that honours an AbortSignal. */
function sleepOn(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal as AbortSignal));
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, callback) => {
    const handle = setTimeout(callback, Math.max(0, ms));
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
  sleep: (ms, signal) => sleepOn(systemClock, ms, signal),
};

interface Pending {
  due: number;
  order: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to (tests and simulations). With `autoAdvance`, a sleep
 * moves time forward to its own deadline at once (firing every timer due by then), so code that
 * polls with back-off runs instantly and deterministically.
 */
export class ManualClock implements Clock {
  private time: number;
  private order = 0;
  private pending: Pending[] = [];
  autoAdvance: boolean;

  constructor(start = Date.parse('2026-11-29T15:00:00Z'), options: { autoAdvance?: boolean } = {}) {
    this.time = start;
    this.autoAdvance = options.autoAdvance === true;
  }

  now(): number {
    return this.time;
  }

  setTimer(ms: number, callback: () => void): Timer {
    const entry: Pending = { due: this.time + Math.max(0, ms), order: this.order++, callback, cancelled: false };
    this.pending.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const promise = sleepOn(this, ms, signal);
    if (this.autoAdvance) {
      const target = this.time + Math.max(0, ms);
      queueMicrotask(() => {
        this.advanceTo(Math.max(target, this.time));
      });
    }
    return promise;
  }

  /** Moves time forward by `ms`, firing due timers in order (also ones scheduled meanwhile). */
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  advanceTo(target: number): void {
    for (;;) {
      const next = this.nextDue(target);
      if (next === undefined) {
        break;
      }
      this.time = Math.max(this.time, next.due);
      next.cancelled = true;
      next.callback();
    }
    this.time = Math.max(this.time, target);
    this.pending = this.pending.filter((entry) => !entry.cancelled);
  }

  /** Timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.pending.filter((entry) => !entry.cancelled).length;
  }

  private nextDue(target: number): Pending | undefined {
    let best: Pending | undefined;
    for (const entry of this.pending) {
      if (entry.cancelled || entry.due > target) {
        continue;
      }
      if (best === undefined || entry.due < best.due || (entry.due === best.due && entry.order < best.order)) {
        best = entry;
      }
    }
    return best;
  }
}
