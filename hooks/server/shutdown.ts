// Graceful shutdown on SIGTERM/SIGINT: /readyz turns 503 at
// once, the listener keeps serving for a short delay while Kubernetes removes the endpoint,
// then stops accepting, lets in-flight hook calls finish (bounded), and exits. Signals, timers
// and exit are injected so tests drive it with fake timers and never sleep.
import type { Logger } from './logging.js';
import type { Readiness } from './readiness.js';

type ShutdownSignal = 'SIGTERM' | 'SIGINT';

export interface SignalSource {
  on(signal: ShutdownSignal, listener: () => void): unknown;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface ClosableServer {
  close(callback?: (err?: Error) => void): unknown;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

export interface ShutdownDeps {
  server: ClosableServer;
  readiness: Readiness;
  logger: Logger;
  signals: SignalSource;
  exit: (code: number) => void;
  timers?: Timers;
  /** How long to keep serving after readiness drops, so endpoints stop routing here. */
  delayMs: number;
  /** How long in-flight requests may take once the listener is closed. */
  timeoutMs: number;
  /** How often idle keep-alive connections are closed while draining. */
  idleSweepMs?: number;
}

export interface Shutdown {
  /** Starts shutting down (idempotent); resolves with the exit code once done. */
  begin(reason: string): Promise<number>;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => {
    clearInterval(handle as NodeJS.Timeout);
  },
};

function drain(deps: ShutdownDeps, timers: Timers, finish: (code: number) => void): void {
  const sweep = timers.setInterval(() => {
    deps.server.closeIdleConnections();
  }, deps.idleSweepMs ?? 250);
  const deadline = timers.setTimeout(() => {
    deps.logger.warn({ timeoutMs: deps.timeoutMs }, 'in-flight requests did not finish in time; closing connections');
    deps.server.closeAllConnections();
    done(1);
  }, deps.timeoutMs);
  const done = (code: number): void => {
    timers.clearInterval(sweep);
    timers.clearTimeout(deadline);
    finish(code);
  };
  deps.server.close((err) => {
    if (err !== undefined) deps.logger.warn({ err: { message: err.message } }, 'server close reported an error');
    done(0);
  });
  deps.server.closeIdleConnections();
}

/** A shutdown controller without signal wiring (used by installShutdown and by tests). */
export function createShutdown(deps: ShutdownDeps): Shutdown {
  const timers = deps.timers ?? realTimers;
  let started: Promise<number> | undefined;
  return {
    begin(reason) {
      if (started !== undefined) return started;
      deps.readiness.markShuttingDown();
      deps.logger.info({ reason, delayMs: deps.delayMs, timeoutMs: deps.timeoutMs }, 'shutting down');
      started = new Promise<number>((resolve) => {
        let finished = false;
        const finish = (code: number): void => {
          if (finished) return;
          finished = true;
          deps.logger.info({ exitCode: code }, 'shut down');
          resolve(code);
          deps.exit(code);
        };
        timers.setTimeout(() => {
          drain(deps, timers, finish);
        }, deps.delayMs);
      });
      return started;
    },
  };
}

/** Wires SIGTERM and SIGINT to a graceful shutdown; a second signal forces the exit. */
export function installShutdown(deps: ShutdownDeps): Shutdown {
  const shutdown = createShutdown(deps);
  let signalled = false;
  const onSignal = (signal: ShutdownSignal): void => {
    if (signalled) {
      deps.logger.warn({ signal }, 'second signal; exiting now');
      deps.server.closeAllConnections();
      deps.exit(1);
      return;
    }
    signalled = true;
    void shutdown.begin(signal);
  };
  deps.signals.on('SIGTERM', () => {
    onSignal('SIGTERM');
  });
  deps.signals.on('SIGINT', () => {
    onSignal('SIGINT');
  });
  return shutdown;
}

/**
 * Several listeners (hooks, conversion) drained as one: close() stops them all and calls back once
 * every one has closed, with the first error; `onClose` runs when closing starts.
 */
export function serverGroup(servers: readonly ClosableServer[], onClose?: () => void): ClosableServer {
  return {
    close(callback) {
      onClose?.();
      let pending = servers.length;
      let firstError: Error | undefined;
      for (const server of servers) {
        server.close((err) => {
          firstError ??= err;
          pending--;
          if (pending === 0) callback?.(firstError);
        });
      }
      if (servers.length === 0) callback?.();
    },
    closeIdleConnections() {
      for (const server of servers) server.closeIdleConnections();
    },
    closeAllConnections() {
      for (const server of servers) server.closeAllConnections();
    },
  };
}
