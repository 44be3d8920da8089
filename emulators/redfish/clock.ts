// Time for the emulator: power transitions and lockouts run on a Scheduler, so tests can use a
// ManualClock and never sleep. ManualClock also implements the driver's Clock: a driver that
// sleeps on it moves time forward, firing whatever the emulator scheduled until then (the
// "loop time" idea: time jumps while everyone waits).
import type { Clock } from '../../drivers/redfish/clock.js';

export interface Scheduler {
  now(): number;
  /** Runs `task` after `ms`; the returned function cancels it. */
  schedule(ms: number, task: () => void): () => void;
}

export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  schedule: (ms, task) => {
    const timer = setTimeout(task, ms);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly task: () => void;
}

export class ManualClock implements Clock, Scheduler {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(ms: number, task: () => void): () => void {
    const timer: Timer = { at: this.current + Math.max(ms, 0), seq: (this.seq += 1), task };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((entry) => entry !== timer);
    };
  }

  /** Moves time forward by `ms`, running every task that falls due, in order. */
  advance(ms: number): void {
    const target = this.current + Math.max(ms, 0);
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) {
        break;
      }
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.task();
    }
    this.current = target;
  }

  /** The driver's sleep: time jumps by `ms` at once. */
  async sleep(ms: number): Promise<void> {
    this.advance(ms);
    return Promise.resolve();
  }

  /** Tasks still waiting. */
  pending(): number {
    return this.timers.length;
  }
}
