// Readiness and graceful shutdown. Timers are vitest's fake ones or the shutdown finishes on
// events; no test sleeps.
import { EventEmitter } from 'node:events';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHookServer } from '../../hooks/server/app.js';
import { silentLogger } from '../../hooks/server/logging.js';
import { createReadiness } from '../../hooks/server/readiness.js';
import { runHookServer } from '../../hooks/server/run.js';
import { createShutdown, installShutdown, type ClosableServer } from '../../hooks/server/shutdown.js';
import type { HookRegistry } from '../../hooks/types.js';
import { collectAnswer } from '../support/http-answer.js';

const config = { maxProvisioningRetries: 5, monitorIntervalSeconds: 60 };
const registry: HookRegistry = { widget: { sync: () => ({ status: {}, children: [] }) } };
const hookBody = JSON.stringify({ parent: { metadata: { name: 'blue' } }, children: {}, related: {}, finalizing: false });

function fakeServer(): ClosableServer & { closed?: (err?: Error) => void; idleSweeps: number; forced: number } {
  const server = {
    closed: undefined as ((err?: Error) => void) | undefined,
    idleSweeps: 0,
    forced: 0,
    close(callback?: (err?: Error) => void) {
      server.closed = callback;
      return server;
    },
    closeIdleConnections() {
      server.idleSweeps += 1;
    },
    closeAllConnections() {
      server.forced += 1;
    },
  };
  return server;
}

describe('readiness', () => {
  it.each([
    ['starting', false],
    ['ready', true],
    ['shutting-down', false],
  ] as const)('state %s → ready %s', (state, ready) => {
    expect(createReadiness(state).isReady()).toBe(ready);
  });

  it('listening makes a starting server ready, but never revives a stopping one', () => {
    const r = createReadiness();
    r.markListening();
    expect(r.state()).toBe('ready');
    r.markShuttingDown();
    r.markListening();
    expect(r.state()).toBe('shutting-down');
  });

  it('GET /readyz is 503 while starting and shutting down; hooks are still answered, with Connection: close', async () => {
    const readiness = createReadiness('starting');
    const app = createHookServer({ registry, config, readiness });
    expect((await request(app).get('/readyz')).status).toBe(503);
    readiness.markListening();
    expect((await request(app).get('/readyz')).status).toBe(200);
    readiness.markShuttingDown();
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'shutting-down' });
    expect((await request(app).get('/healthz')).status).toBe(200);
    const hook = await request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(hookBody);
    expect(hook.status).toBe(200);
    expect(hook.headers.connection).toBe('close');
  });
});

describe('graceful shutdown (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup(delayMs = 2000, timeoutMs = 25000) {
    const server = fakeServer();
    const readiness = createReadiness('ready');
    const exit = vi.fn<(code: number) => void>();
    const signals = new EventEmitter();
    const deps = { server, readiness, logger: silentLogger(), signals, exit, delayMs, timeoutMs };
    return { server, readiness, exit, signals, deps };
  }

  it('drops readiness at once, keeps serving for the delay, then closes and exits 0 when in-flight work ends', async () => {
    const { server, readiness, exit, deps } = setup();
    const done = createShutdown(deps).begin('SIGTERM');
    expect(readiness.state()).toBe('shutting-down');
    expect(server.closed).toBeUndefined();
    vi.advanceTimersByTime(1999);
    expect(server.closed).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(server.closed).toBeTypeOf('function');
    vi.advanceTimersByTime(1000); // idle keep-alive connections are swept while draining
    expect(server.idleSweeps).toBeGreaterThanOrEqual(4);
    expect(exit).not.toHaveBeenCalled();
    server.closed?.();
    await expect(done).resolves.toBe(0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(server.forced).toBe(0);
  });

  it('forces connections closed and exits 1 when in-flight work outlives the timeout', async () => {
    const { server, exit, deps } = setup(0, 25000);
    const done = createShutdown(deps).begin('SIGTERM');
    vi.advanceTimersByTime(24999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    await expect(done).resolves.toBe(1);
    expect(server.forced).toBe(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    server.closed?.(); // a late close callback does not exit twice
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('begin is idempotent', async () => {
    const { server, exit, deps } = setup(0);
    const shutdown = createShutdown(deps);
    const first = shutdown.begin('SIGTERM');
    expect(shutdown.begin('SIGINT')).toBe(first);
    vi.advanceTimersByTime(0);
    server.closed?.();
    await first;
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s starts the shutdown; a second signal exits 1 at once', (signal) => {
    const { server, readiness, exit, signals, deps } = setup();
    installShutdown(deps);
    signals.emit(signal);
    expect(readiness.state()).toBe('shutting-down');
    expect(exit).not.toHaveBeenCalled();
    signals.emit('SIGINT');
    expect(server.forced).toBe(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });
});

describe('runHookServer on loopback', () => {
  function start(env: Record<string, string>) {
    const lines: string[] = [];
    const signals = new EventEmitter();
    let resolveExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => {
      resolveExit = resolve;
    });
    const exit = vi.fn((code: number) => {
      resolveExit(code);
    });
    const running = runHookServer({
      env: { HOST: '127.0.0.1', PORT: '0', SHUTDOWN_DELAY_SECONDS: '0', ...env },
      readFile: () => {
        throw Object.assign(new Error('no files here'), { code: 'ENOENT' });
      },
      registry,
      signals,
      exit,
      destination: { write: (s: string) => lines.push(s) },
    });
    return { running, signals, exit, exited, lines };
  }

  it('listens, becomes ready, finishes an in-flight hook call after SIGTERM, then exits 0', async () => {
    const { running, signals, exited, lines } = start({});
    const server = await running;
    if (server === undefined) throw new Error('server did not start');
    const base = `http://127.0.0.1:${server.address.port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // An in-flight call: headers sent, body still arriving when the signal comes.
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/hooks/widget/sync`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, collectAnswer(resolve));
      req.on('error', reject);
      req.write(hookBody.slice(0, 10));
      server.server.once('request', () => {
        signals.emit('SIGTERM');
        expect(server.readiness.state()).toBe('shutting-down');
        req.end(hookBody.slice(10));
      });
    });
    await expect(response).resolves.toEqual({ status: 200, text: '{"children":[],"status":{}}' });
    await expect(exited).resolves.toBe(0);
    expect(server.server.listening).toBe(false);
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual(['hook server listening', 'shutting down', 'shut down']);
  });

  it('bad settings log one fatal line and exit 1', async () => {
    const { running, exit, lines } = start({ PORT: 'eighty' });
    await expect(running).resolves.toBeUndefined();
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    const line = JSON.parse(lines[0] ?? '{}') as { level: string; msg: string; error: string };
    expect(line).toMatchObject({ level: 'fatal', msg: 'invalid settings' });
    expect(line.error).toMatch(/^PORT must be an integer/);
  });

  it('a port already in use exits 1', async () => {
    const first = start({});
    const server = await first.running;
    if (server === undefined) throw new Error('server did not start');
    const second = start({ PORT: String(server.address.port) });
    await expect(second.running).resolves.toBeUndefined();
    expect(second.exit).toHaveBeenCalledExactlyOnceWith(1);
    first.signals.emit('SIGTERM');
    await expect(first.exited).resolves.toBe(0);
  });
});
