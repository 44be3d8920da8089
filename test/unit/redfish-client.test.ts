// The Redfish client against the in-process emulator (127.0.0.1, ephemeral port) and, for the
// shapes no emulator produces, a scripted transport: auth modes, session re-login and replay,
// the ETag downgrade, task monitors, GET retries, error classification, and a canary password
// that must never show up in an error or a log line. Time is a ManualClock: nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import { ManualClock, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { RedfishClient, Reason, httpError, ifMatchSequence, networkError } from '../../drivers/redfish/index.js';
import type { AuthMode, HttpResponse, HttpTransport, RedfishLogger } from '../../drivers/redfish/index.js';
import { retryAfterMs } from '../../drivers/redfish/tasks.js';
import { rejectionOf } from '../support/rejection.js';

const CANARY = 'canary-Pa55w0rd-7f3e91';
const USER = 'admin';
const BASIC_CANARY = Buffer.from(`${USER}:${CANARY}`).toString('base64');

const seen = { errors: [] as string[], logs: [] as string[] };

function capture(): RedfishLogger {
  const push = (fields: Record<string, unknown>, message: string): void => {
    seen.logs.push(`${message} ${JSON.stringify(fields)}`);
  };
  return { debug: push, warn: push };
}

async function failure(promise: Promise<unknown>): Promise<BMCError> {
  const error = await rejectionOf(promise, BMCError);
  seen.errors.push(`${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`);
  return error;
}

const host = (id: string, extra: Partial<SystemConfig> = {}): SystemConfig => ({ id, username: USER, password: CANARY, ...extra });

let withSessions: RedfishEmulator;
let basicOnly: RedfishEmulator;

beforeAll(async () => {
  withSessions = await startRedfishEmulator({
    http: true,
    systems: [
      host('auth'),
      host('relogin'),
      host('lock'),
      host('etag-strong', { etag: 'strong', requireIfMatch: true }),
      host('etag-weak', { etag: 'weak', requireIfMatch: true }),
      host('etag-mismatch', { etag: 'mismatch' }),
      host('etag-mismatch-required', { etag: 'mismatch', requireIfMatch: true }),
      host('etag-none', { etag: 'none' }),
      host('etag-none-required', { etag: 'none', requireIfMatch: true }),
      host('tasks', { asyncTasks: { polls: 2 } }),
      host('tasks-fail', { asyncTasks: { polls: 1, fail: true } }),
      host('flaky'),
    ],
  });
  basicOnly = await startRedfishEmulator({ http: true, sessionService: false, systems: [host('auth')] });
});

afterAll(async () => {
  await withSessions.stop();
  await basicOnly.stop();
});

interface ClientSetup {
  emulator: RedfishEmulator;
  mode?: AuthMode;
  password?: string;
  clock?: ManualClock;
}

function client(setup: ClientSetup): RedfishClient {
  return new RedfishClient({
    origin: setup.emulator.url,
    credentials: { username: USER, password: setup.password ?? CANARY },
    timeoutMs: 2_000,
    insecure: false,
    authMode: setup.mode ?? 'auto',
    clock: setup.clock ?? new ManualClock(),
    logger: capture(),
  });
}

const sessionPosts = (emulator: RedfishEmulator): number =>
  emulator.requests().filter((request) => request.method === 'POST' && request.path === '/redfish/v1/SessionService/Sessions').length;

describe('authentication modes', () => {
  const rows = [
    { name: 'basic on a BMC with sessions', emulator: () => withSessions, mode: 'basic', kind: 'basic', posts: 0 },
    { name: 'session', emulator: () => withSessions, mode: 'session', kind: 'session', posts: 1 },
    { name: 'auto prefers a session', emulator: () => withSessions, mode: 'auto', kind: 'session', posts: 1 },
    { name: 'auto falls back to basic without SessionService', emulator: () => basicOnly, mode: 'auto', kind: 'basic', posts: 0 },
  ] as const;

  it.each(rows)('$name', async (row) => {
    const emulator = row.emulator();
    emulator.clearRequests();
    const redfish = client({ emulator, mode: row.mode });
    const system = await redfish.load('/redfish/v1/Systems/auth');
    expect(system.resource.Id).toBe('auth');
    expect(redfish.authKind).toBe(row.kind);
    expect(sessionPosts(emulator)).toBe(row.posts);
    expect(
      emulator
        .requests()
        .filter((request) => request.path === '/redfish/v1/Systems/auth')
        .map((request) => request.auth),
    ).toEqual([row.kind]);
    await redfish.close();
  });

  const wrong = [
    { name: 'basic: no session attempt', mode: 'basic', posts: 0 },
    { name: 'session: one POST to Sessions, never retried', mode: 'session', posts: 1 },
    { name: 'auto: a 401 from Sessions is not retried as basic', mode: 'auto', posts: 1 },
  ] as const;

  it.each(wrong)('wrong password, $name', async (row) => {
    withSessions.clearRequests();
    const redfish = client({ emulator: withSessions, mode: row.mode, password: `wrong-${CANARY}` });
    const error = await failure(redfish.load('/redfish/v1/Systems/auth'));
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.CredentialsInvalid]);
    expect(sessionPosts(withSessions)).toBe(row.posts);
    await redfish.close();
  });

  it('session mode on a BMC without a session service is a permanent error', async () => {
    const redfish = client({ emulator: basicOnly, mode: 'session' });
    const error = await failure(redfish.get('/redfish/v1/Systems'));
    expect(error.kind).toBe('Permanent');
    await redfish.close();
  });
});

describe('sessions', () => {
  it('logs in again once and replays the request after the BMC forgot the session', async () => {
    const redfish = client({ emulator: withSessions, mode: 'session' });
    await redfish.load('/redfish/v1/Systems/relogin');
    withSessions.clearRequests();
    withSessions.expireSessions();
    const again = await redfish.load('/redfish/v1/Systems/relogin');
    expect(again.resource.Id).toBe('relogin');
    expect(withSessions.requests().map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual([
      'GET /redfish/v1/Systems/relogin 401',
      'POST /redfish/v1/SessionService/Sessions 201',
      'GET /redfish/v1/Systems/relogin 200',
    ]);
    await redfish.close();
  });

  it('a failed re-login is not retried and reads as CredentialsInvalid', async () => {
    const redfish = client({ emulator: withSessions, mode: 'session' });
    await redfish.load('/redfish/v1/Systems/lock');
    withSessions.system('lock').setFaults({ lockoutAfter: 1 });
    await failure(client({ emulator: withSessions, mode: 'basic', password: 'nope' }).load('/redfish/v1/Systems/lock'));
    expect(withSessions.system('lock').locked).toBe(true);
    withSessions.expireSessions();
    withSessions.clearRequests();
    const error = await failure(redfish.load('/redfish/v1/Systems/lock'));
    expect(error.reason).toBe(Reason.CredentialsInvalid);
    expect(sessionPosts(withSessions)).toBe(1);
    withSessions.system('lock').unlock();
    await redfish.close();
  });

  it('close() deletes the session', async () => {
    withSessions.expireSessions();
    const redfish = client({ emulator: withSessions, mode: 'session' });
    await redfish.get('/redfish/v1/Systems');
    expect(withSessions.sessionCount()).toBe(1);
    await redfish.close();
    expect(withSessions.sessionCount()).toBe(0);
    expect(withSessions.requests().at(-1)).toMatchObject({ method: 'DELETE', status: 204, auth: 'session' });
  });
});

describe('PATCH with If-Match: weak → strong → none (as sushy does)', () => {
  const rows = [
    { name: 'strong ETag, If-Match required', id: 'etag-strong', sent: ['strong'], status: 'ok' },
    { name: 'weak ETag that only matches in strong form', id: 'etag-weak', sent: ['weak', 'strong'], status: 'ok' },
    { name: 'ETag that never matches: drop If-Match', id: 'etag-mismatch', sent: ['strong', 'none'], status: 'ok' },
    { name: 'never matches and If-Match required: fails', id: 'etag-mismatch-required', sent: ['strong', 'none'], status: Reason.PreconditionFailed },
    { name: 'no ETag: no If-Match', id: 'etag-none', sent: ['none'], status: 'ok' },
    { name: 'no ETag but If-Match required: fails at once', id: 'etag-none-required', sent: ['none'], status: Reason.PreconditionFailed },
  ] as const;

  const form = (ifMatch: string | undefined): string => (ifMatch === undefined ? 'none' : ifMatch.startsWith('W/') ? 'weak' : 'strong');

  it.each(rows)('$name', async (row) => {
    const redfish = client({ emulator: withSessions, mode: 'basic' });
    const path = `/redfish/v1/Systems/${row.id}`;
    const system = await redfish.load(path);
    withSessions.clearRequests();
    const patch = redfish.patch(path, { Boot: { BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once' } }, system.etag);
    if (row.status === 'ok') {
      await patch;
      expect(withSessions.system(row.id).boot.target).toBe('Pxe');
    } else {
      expect((await failure(patch)).reason).toBe(row.status);
    }
    const patches = withSessions.requests().filter((request) => request.method === 'PATCH');
    expect(patches.map((request) => form(request.ifMatch))).toEqual(row.sent);
    await redfish.close();
  });

  it.each([
    { name: 'none', etag: undefined, expected: [undefined] },
    { name: 'strong', etag: '"a"', expected: ['"a"', undefined] },
    { name: 'weak', etag: 'W/"a"', expected: ['W/"a"', '"a"', undefined] },
  ])('If-Match sequence for $name ETag', ({ etag, expected }) => {
    expect(ifMatchSequence(etag)).toEqual(expected);
  });
});

describe('task monitors (202)', () => {
  it('follows the monitor until the task completes, sleeping Retry-After on the clock', async () => {
    const clock = new ManualClock();
    const redfish = client({ emulator: withSessions, mode: 'basic', clock });
    const start = clock.now();
    withSessions.clearRequests();
    const response = await redfish.post('/redfish/v1/Systems/tasks/Actions/ComputerSystem.Reset', { ResetType: 'On' });
    expect(response.status).toBe(200);
    expect(response.body?.TaskState).toBe('Completed');
    const monitor = withSessions.requests().filter((request) => request.path.includes('TaskMonitors'));
    expect(monitor.map((request) => request.status)).toEqual([202, 202, 200]);
    expect(clock.now() - start).toBe(3_000);
    expect(withSessions.system('tasks').powerState).toBe('On');
    await redfish.close();
  });

  it('a task that ends in Exception is a permanent TaskFailed', async () => {
    const redfish = client({ emulator: withSessions, mode: 'basic' });
    const error = await failure(redfish.post('/redfish/v1/Systems/tasks-fail/Actions/ComputerSystem.Reset', { ResetType: 'On' }));
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.TaskFailed]);
    expect(withSessions.system('tasks-fail').powerState).toBe('Off');
    await redfish.close();
  });

  it.each([
    { name: 'absent', header: undefined, ms: 1_000 },
    { name: 'seconds', header: '7', ms: 7_000 },
    { name: 'HTTP date', header: new Date(Date.parse('2026-01-01T00:00:05Z')).toUTCString(), ms: 5_000 },
    { name: 'capped at 60 s', header: '3600', ms: 60_000 },
    { name: 'garbage', header: 'soon', ms: 1_000 },
  ])('Retry-After $name', ({ header, ms }) => {
    expect(retryAfterMs(header, Date.parse('2026-01-01T00:00:00Z'))).toBe(ms);
  });
});

/** A transport that answers from a script (for shapes the emulator never produces). */
function scripted(answers: HttpResponse[]): HttpTransport & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    send: async (request) => {
      sent.push(`${request.method} ${request.path}`);
      const next = answers.shift();
      if (next === undefined) {
        throw new Error('script exhausted');
      }
      return Promise.resolve(next);
    },
    close: async () => Promise.resolve(),
  };
}

const root: HttpResponse = { status: 200, headers: {}, body: { Systems: { '@odata.id': '/redfish/v1/Systems' } } };

describe('scripted answers', () => {
  function scriptedClient(transport: HttpTransport, clock = new ManualClock()): RedfishClient {
    return new RedfishClient({
      origin: 'http://127.0.0.1:1',
      credentials: { username: USER, password: CANARY },
      timeoutMs: 1_000,
      insecure: false,
      clock,
      logger: capture(),
      transport,
    });
  }

  it('202 without a Location is a protocol error', async () => {
    const transport = scripted([root, { status: 202, headers: {}, body: undefined }]);
    const error = await failure(scriptedClient(transport).post('/redfish/v1/Systems/1/Actions/ComputerSystem.Reset', { ResetType: 'On' }));
    expect(error.reason).toBe(Reason.Protocol);
  });

  it('a BMC that echoes the password in its error text is scrubbed', async () => {
    const echo = {
      error: {
        code: 'Base.1.8.GeneralError',
        message: `bad password ${CANARY}`,
        '@Message.ExtendedInfo': [{ MessageId: 'Base.1.8.PropertyValueNotInList', Message: `value ${CANARY}` }],
      },
    };
    const transport = scripted([root, { status: 400, headers: {}, body: echo }]);
    const error = await failure(scriptedClient(transport).patch('/redfish/v1/Systems/1', { Boot: {} }, undefined));
    expect(error.reason).toBe(Reason.Unsupported);
    expect(error.message).toContain('***');
  });

  it('GETs are retried on 5xx with Retry-After, then give up as BMCServerError', async () => {
    const clock = new ManualClock();
    const busy: HttpResponse = { status: 503, headers: { 'retry-after': '4' }, body: undefined };
    const broken: HttpResponse = { status: 500, headers: {}, body: undefined };
    const transport = scripted([root, busy, broken, broken]);
    const start = clock.now();
    const error = await failure(scriptedClient(transport, clock).get('/redfish/v1/Systems'));
    expect([error.kind, error.reason]).toEqual(['Transient', Reason.ServerError]);
    expect(transport.sent.filter((line) => line === 'GET /redfish/v1/Systems')).toHaveLength(3);
    expect(clock.now() - start).toBe(4_000 + 1_000);
  });

  it('POSTs are never retried', async () => {
    const transport = scripted([root, { status: 500, headers: {}, body: undefined }]);
    const error = await failure(scriptedClient(transport).post('/redfish/v1/Systems/1/Actions/ComputerSystem.Reset', { ResetType: 'On' }));
    expect(error.reason).toBe(Reason.ServerError);
    expect(transport.sent.filter((line) => line.startsWith('POST'))).toHaveLength(1);
  });

  it('the flaky emulator system recovers through GET retries', async () => {
    withSessions.system('flaky').setFaults({ serverError: { status: 502, count: 2 } });
    const redfish = client({ emulator: withSessions, mode: 'basic' });
    expect((await redfish.load('/redfish/v1/Systems/flaky')).resource.Id).toBe('flaky');
    await redfish.close();
  });
});

describe('error classification', () => {
  const unsupported = (id: string): unknown => ({ error: { '@Message.ExtendedInfo': [{ MessageId: `Base.1.8.${id}` }] } });
  const rows = [
    { name: '401', status: 401, body: undefined, kind: 'Permanent', reason: Reason.CredentialsInvalid },
    { name: '403', status: 403, body: undefined, kind: 'Permanent', reason: Reason.CredentialsInvalid },
    { name: '404', status: 404, body: undefined, kind: 'Permanent', reason: Reason.NotFound },
    { name: '405', status: 405, body: undefined, kind: 'Permanent', reason: Reason.Unsupported },
    { name: '400 value not in list', status: 400, body: unsupported('PropertyValueNotInList'), kind: 'Permanent', reason: Reason.Unsupported },
    { name: '400 action not supported', status: 400, body: unsupported('ActionNotSupported'), kind: 'Permanent', reason: Reason.Unsupported },
    { name: '400 other', status: 400, body: unsupported('MalformedJSON'), kind: 'Permanent', reason: Reason.Rejected },
    { name: '409', status: 409, body: undefined, kind: 'Transient', reason: Reason.Conflict },
    { name: '412', status: 412, body: undefined, kind: 'Transient', reason: Reason.PreconditionFailed },
    { name: '429', status: 429, body: undefined, kind: 'Transient', reason: Reason.Busy },
    { name: '500', status: 500, body: undefined, kind: 'Transient', reason: Reason.ServerError },
    { name: '501', status: 501, body: undefined, kind: 'Permanent', reason: Reason.Unsupported },
    { name: '502', status: 502, body: undefined, kind: 'Transient', reason: Reason.ServerError },
    { name: '503', status: 503, body: undefined, kind: 'Transient', reason: Reason.Busy },
  ] as const;

  it.each(rows)('HTTP $name', ({ status, body, kind, reason }) => {
    const error = httpError(status, body, 'GET /x');
    expect([error.kind, error.reason]).toEqual([kind, reason]);
  });

  const network = [
    { name: 'connection refused', error: { code: 'ECONNREFUSED' }, kind: 'Transient', reason: Reason.Unreachable },
    { name: 'connection reset', error: { code: 'ECONNRESET' }, kind: 'Transient', reason: Reason.Unreachable },
    { name: 'socket closed', error: { code: 'UND_ERR_SOCKET' }, kind: 'Transient', reason: Reason.Unreachable },
    { name: 'connect timeout', error: { code: 'UND_ERR_CONNECT_TIMEOUT' }, kind: 'Transient', reason: Reason.Timeout },
    { name: 'headers timeout', error: { code: 'UND_ERR_HEADERS_TIMEOUT' }, kind: 'Transient', reason: Reason.Timeout },
    { name: 'body timeout', error: { code: 'UND_ERR_BODY_TIMEOUT' }, kind: 'Transient', reason: Reason.Timeout },
    { name: 'overall deadline', error: { name: 'TimeoutError' }, kind: 'Transient', reason: Reason.Timeout },
    { name: 'self-signed certificate', error: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, kind: 'Permanent', reason: Reason.TLSVerificationFailed },
    { name: 'wrong host name', error: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, kind: 'Permanent', reason: Reason.TLSVerificationFailed },
    { name: 'wrapped cause', error: { message: 'fetch failed', cause: { code: 'ECONNREFUSED' } }, kind: 'Transient', reason: Reason.Unreachable },
  ] as const;

  it.each(network)('network: $name', ({ error, kind, reason }) => {
    const classified = networkError(error, 'GET /x');
    expect([classified.kind, classified.reason]).toEqual([kind, reason]);
  });
});

describe('canary password', () => {
  it('never appears in any error or log line produced above', () => {
    expect(seen.errors.length).toBeGreaterThan(5);
    expect(seen.logs.length).toBeGreaterThan(5);
    for (const line of [...seen.errors, ...seen.logs]) {
      expect(line).not.toContain(CANARY);
      expect(line).not.toContain(BASIC_CANARY);
    }
  });
});
