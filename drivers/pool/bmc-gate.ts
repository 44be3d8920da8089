// One command at a time per BMC (keyed by host:port, so several systems behind one BMC endpoint
// share the line), optional spacing between commands (IPMI's min_command_interval), a timeout
// around every call, and the per-driver latency histogram.
import type { BMCDriver } from '../bmc/types.js';
import type { Clock } from './clock.js';
import { CancelledError } from '../errors.js';
import { TimeoutFailure } from './errors.js';
import type { PoolMetrics } from './metrics.js';

interface Line {
  tail: Promise<void>;
  lastEnd: number;
  users: number;
}

const MAX_SPACING_MEMORY_MS = 60_000;

export interface BMCCall<T> {
  key: string;
  family: string;
  op: string;
  timeoutMs: number;
  spacingMs: number;
  signal?: AbortSignal;
  fn: () => Promise<T>;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new CancelledError('aborted');
}

/** Races `work` against a timer and an optional signal; the loser is left to settle on its own. */
export function withTimeout<T>(work: Promise<T>, options: { clock: Clock; ms: number; what: string; signal?: AbortSignal }): Promise<T> {
  const { clock, ms, what, signal } = options;
  return new Promise<T>((resolve, reject) => {
    const cleanup = (): void => {
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      cleanup();
      reject(abortError(signal as AbortSignal));
    };
    const timer = clock.setTimer(ms, () => {
      cleanup();
      reject(new TimeoutFailure(what, ms));
    });
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function resultLabel(error: unknown): string {
  if (error === undefined) {
    return 'success';
  }
  if (error instanceof TimeoutFailure) {
    return 'timeout';
  }
  return error instanceof CancelledError ? 'cancelled' : 'error';
}

export class BMCGate {
  private readonly lines = new Map<string, Line>();
  private readonly lastEnds = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly metrics?: PoolMetrics,
  ) {}

  /** When spacing applies, the end of the last call outlives the line (pruned once it no longer matters). */
  private remember(key: string, lastEnd: number, spacingMs: number): void {
    for (const [other, end] of this.lastEnds) {
      if (lastEnd - end > MAX_SPACING_MEMORY_MS) {
        this.lastEnds.delete(other);
      }
    }
    if (spacingMs > 0) {
      this.lastEnds.set(key, lastEnd);
    }
  }

  /** Calls waiting for or holding a BMC's line (tests, debugging). */
  busy(key: string): number {
    return this.lines.get(key)?.users ?? 0;
  }

  async run<T>(call: BMCCall<T>): Promise<T> {
    const line = this.lines.get(call.key) ?? { tail: Promise.resolve(), lastEnd: this.lastEnds.get(call.key) ?? 0, users: 0 };
    this.lines.set(call.key, line);
    line.users += 1;
    const previous = line.tail;
    let release: () => void = () => undefined;
    line.tail = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      call.signal?.throwIfAborted();
      const wait = line.lastEnd + call.spacingMs - this.clock.now();
      if (wait > 0) {
        await this.clock.sleep(wait, call.signal);
      }
      return await this.timed(call);
    } finally {
      line.lastEnd = this.clock.now();
      line.users -= 1;
      if (line.users === 0) {
        this.lines.delete(call.key);
        this.remember(call.key, line.lastEnd, call.spacingMs);
      }
      release();
    }
  }

  private async timed<T>(call: BMCCall<T>): Promise<T> {
    const started = this.clock.now();
    let failure: unknown;
    try {
      return await withTimeout(call.fn(), { clock: this.clock, ms: call.timeoutMs, what: `BMC call ${call.op}`, signal: call.signal });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const seconds = (this.clock.now() - started) / 1000;
      this.metrics?.bmcRequestDuration.observe({ driver: call.family, op: call.op, result: resultLabel(failure) }, seconds);
    }
  }
}

export interface GatedDriverOptions {
  gate: BMCGate;
  key: string;
  family: string;
  timeoutMs: number;
  spacingMs: number;
  signal?: AbortSignal;
}

type DriverMethod = Exclude<keyof BMCDriver, 'family' | 'close'>;

/** The same driver, every call serialised per BMC, timed out and measured. close() is not gated. */
export function gatedDriver(driver: BMCDriver, options: GatedDriverOptions): BMCDriver {
  const call = <K extends DriverMethod>(op: K, ...args: Parameters<BMCDriver[K]>): Promise<Awaited<ReturnType<BMCDriver[K]>>> =>
    options.gate.run({
      key: options.key,
      family: options.family,
      op,
      timeoutMs: options.timeoutMs,
      spacingMs: options.spacingMs,
      signal: options.signal,
      fn: () => (driver[op] as (...inner: unknown[]) => Promise<Awaited<ReturnType<BMCDriver[K]>>>).apply(driver, args),
    });
  return {
    family: driver.family,
    check: (needs) => call('check', needs),
    getPower: () => call('getPower'),
    setPower: (action) => call('setPower', action),
    setBootDevice: (boot) => call('setBootDevice', boot),
    insertVirtualMedia: (url) => call('insertVirtualMedia', url),
    ejectVirtualMedia: () => call('ejectVirtualMedia'),
    getVirtualMedia: () => call('getVirtualMedia'),
    getSecureBoot: () => call('getSecureBoot'),
    setSecureBoot: (enabled) => call('setSecureBoot', enabled),
    inventory: () => call('inventory'),
    close: () => driver.close(),
  };
}
