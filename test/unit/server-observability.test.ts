// Metrics exposition and log lines: fixed names and fields, one line per hook call, and no
// secret ever reaches the log (request bodies are never logged; known secret paths are redacted).
import { createServer, request as httpRequest } from 'node:http';
import { Registry } from 'prom-client';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createHookServer } from '../../hooks/server/app.js';
import { createLogger, REDACT_PATHS } from '../../hooks/server/logging.js';
import { MetricName } from '../../hooks/server/metrics.js';
import { HookInputError, type HookRegistry } from '../../hooks/types.js';

const config = { maxProvisioningRetries: 5, monitorIntervalSeconds: 60 };
const CANARY = 'canary-Pa55w0rd-7f3a';

const registry: HookRegistry = {
  baremetalhost: {
    sync: () => ({ status: { ok: true }, children: [] }),
    finalize: () => {
      throw new HookInputError('spec.bmc.credentialsName is empty', ['/parent/spec/bmc']);
    },
  },
  crashing: {
    sync: () => {
      throw new TypeError('cannot read properties of undefined');
    },
  },
};

function capture(level = 'trace'): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const logger = createLogger({ level, destination: { write: (s: string) => lines.push(s) } });
  return { lines, logger };
}

function hostRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    controller: {},
    parent: {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name: 'server-01', namespace: 'metal3', resourceVersion: '4711' },
      spec: { bmc: { address: 'ipmi://192.0.2.1', password: CANARY }, userData: { name: CANARY } },
    },
    children: {},
    related: {
      'Secret.v1': {
        'metal3/bmc': {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'bmc', namespace: 'metal3' },
          data: { password: Buffer.from(CANARY).toString('base64') },
          stringData: { password: CANARY },
        },
      },
    },
    finalizing: false,
    ...extra,
  };
}

describe('metrics', () => {
  it('exposes the hook metrics and prefixed Node metrics', async () => {
    const app = createHookServer({ registry, config });
    const post = (path: string, body: unknown) => request(app).post(path).set('Content-Type', 'application/json').send(JSON.stringify(body));
    await post('/hooks/baremetalhost/sync', hostRequest());
    await post('/hooks/baremetalhost/finalize', hostRequest({ finalizing: true }));
    await post('/hooks/crashing/sync', hostRequest());
    await post('/hooks/unknown-controller/sync', hostRequest());
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    for (const name of Object.values(MetricName)) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toMatch(/^ironhook_hook_duration_seconds_count\{controller="baremetalhost",hook="sync",result="success"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_duration_seconds_count\{controller="baremetalhost",hook="finalize",result="input_error"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_duration_seconds_count\{controller="crashing",hook="sync",result="error"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_requests_total\{controller="baremetalhost",hook="sync",code="200"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_requests_total\{controller="crashing",hook="sync",code="500"\} 1$/m);
    // Unknown routes never become label values (bounded cardinality).
    expect(text).toMatch(/^ironhook_hook_requests_total\{controller="_unknown",hook="_unknown",code="404"\} 1$/m);
    expect(text).not.toContain('unknown-controller');
    expect(text).toMatch(/^ironhook_hook_request_bytes_count\{controller="baremetalhost",hook="sync"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_requests_in_flight 0$/m);
    expect(text).toContain('ironhook_process_cpu_user_seconds_total');
    expect(text).toContain('ironhook_nodejs_heap_size_used_bytes');
  });

  it('a caller that goes away mid-body is counted as aborted and leaves nothing in flight', async () => {
    const { lines, logger } = capture('debug');
    const app = createHookServer({ registry, config, logger });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const closed = new Promise<void>((resolve) => {
      server.once('request', (_req, res) => {
        res.once('close', () => {
          resolve();
        });
        client.destroy();
      });
    });
    const client = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/hooks/baremetalhost/sync',
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '1000' },
    });
    client.on('error', () => undefined);
    client.write('{"parent":');
    await closed;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    const text = await app.hookMetrics.registry.metrics();
    expect(text).toMatch(/^ironhook_hook_requests_total\{controller="baremetalhost",hook="sync",code="aborted"\} 1$/m);
    expect(text).toMatch(/^ironhook_hook_requests_in_flight 0$/m);
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ level: 'warn', msg: 'hook call aborted by the caller', result: 'aborted' });
  });

  it('registers on a supplied registry, and two servers do not collide', async () => {
    const metricsRegistry = new Registry();
    createHookServer({ registry, config, metricsRegistry });
    createHookServer({ registry, config });
    const text = await metricsRegistry.metrics();
    expect(text).toContain(MetricName.hookRequests);
  });
});

describe('log lines', () => {
  it('one line per hook call with fixed fields; debug for 200, warn for 4xx, error for 5xx', async () => {
    const { lines, logger } = capture('debug');
    const app = createHookServer({ registry, config, logger });
    const post = (path: string, body: unknown) => request(app).post(path).set('Content-Type', 'application/json').send(JSON.stringify(body));
    await post('/hooks/baremetalhost/sync', hostRequest());
    await post('/hooks/baremetalhost/finalize', hostRequest({ finalizing: true }));
    await post('/hooks/crashing/sync', hostRequest());
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toMatchObject({
      level: 'debug',
      msg: 'hook call',
      controller: 'baremetalhost',
      hook: 'sync',
      namespace: 'metal3',
      name: 'server-01',
      resourceVersion: '4711',
      status: 200,
      result: 'success',
    });
    expect(typeof parsed[0]?.durationMs).toBe('number');
    expect(parsed[1]).toMatchObject({ level: 'warn', status: 400, error: 'spec.bmc.credentialsName is empty', details: ['/parent/spec/bmc'] });
    expect(parsed[2]).toMatchObject({ level: 'error', status: 500, error: 'hook threw', controller: 'crashing' });
    // The stack goes to the log (and only there).
    expect((parsed[2]?.err as { stack: string }).stack).toContain('TypeError: cannot read properties of undefined');
  });

  it('at info level a successful call writes nothing', async () => {
    const { lines, logger } = capture('info');
    const app = createHookServer({ registry, config, logger });
    await request(app).post('/hooks/baremetalhost/sync').set('Content-Type', 'application/json').send(JSON.stringify(hostRequest()));
    expect(lines).toEqual([]);
  });
});

describe('redaction', () => {
  it('a canary password in bodies and headers never reaches the log', async () => {
    const { lines, logger } = capture('trace');
    const app = createHookServer({ registry, config, logger, auth: { kind: 'bearer', token: 'the-real-token' } });
    const send = (path: string, body: string, auth = `Bearer ${CANARY}`) =>
      request(app).post(path).set('Content-Type', 'application/json').set('Authorization', auth).send(body);
    await send('/hooks/baremetalhost/sync', JSON.stringify(hostRequest())); // 401 with the canary as token
    await send('/hooks/baremetalhost/sync', JSON.stringify(hostRequest()), 'Bearer the-real-token');
    await send('/hooks/baremetalhost/finalize', JSON.stringify(hostRequest({ finalizing: true })), 'Bearer the-real-token');
    await send('/hooks/crashing/sync', JSON.stringify(hostRequest()), 'Bearer the-real-token');
    // Invalid JSON: V8's parse error message quotes the input, so it must not be logged.
    await send('/hooks/baremetalhost/sync', `{"password": "${CANARY}", oops}`, 'Bearer the-real-token');
    await send('/hooks/baremetalhost/sync', JSON.stringify({ password: CANARY }), 'Bearer the-real-token'); // 400 shape
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const all = lines.join('');
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain('the-real-token');
  });

  it.each([
    ['request header', { req: { headers: { authorization: `Bearer ${CANARY}` } } }],
    ['top-level password', { password: CANARY }],
    ['nested password', { host: { bmc: { password: CANARY } } }],
    ['deep token', { a: { b: { c: { token: CANARY } } } }],
    ['user data', { spec: { userData: CANARY } }],
    ['secret data', { secret: { kind: 'Secret', data: { password: CANARY } } }],
    ['secret stringData', { secret: { stringData: { anything: CANARY } } }],
  ])('the logger censors %s', (_name, fields) => {
    const { lines, logger } = capture('info');
    logger.info(fields, 'probe');
    expect(lines.join('')).not.toContain(CANARY);
    expect(lines.join('')).toContain('[REDACTED]');
  });

  it('usernames are not secrets', () => {
    const { lines, logger } = capture('info');
    logger.info({ credentials: { username: 'admin' } }, 'probe');
    expect(lines.join('')).toContain('admin');
    expect(REDACT_PATHS).not.toContain('*.username');
  });
});
