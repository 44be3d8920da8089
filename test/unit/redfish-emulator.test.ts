// The emulator on its own: the config file format, the state-change listener API and the HTTP
// notifier, and the HTTP surface a Redfish client sees (public root, 401/404/405, ETags per
// mode, Boot and Reset validation, sessions, per-system credentials, virtual-media placement,
// malformed bodies). Raw requests go through undici to 127.0.0.1.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, parseEmulatorConfig, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator, StateChangeEvent, SystemConfig } from '../../emulators/redfish/index.js';

const SECRET = 'emulator-canary-Secret';
const clock = new ManualClock();
let emulator: RedfishEmulator;

const host = (id: string, extra: Partial<SystemConfig> = {}): SystemConfig => ({ id, username: 'admin', password: SECRET, ...extra });

beforeAll(async () => {
  emulator = await startRedfishEmulator({
    http: true,
    scheduler: clock,
    maxSessions: 2,
    systems: [
      host('strong'),
      host('weak', { etag: 'weak' }),
      host('none', { etag: 'none' }),
      host('other', { password: 'other-password' }),
      host('dell', { personality: 'dell' }),
      host('events', { powerDelayMs: 1_000, macs: ['52:54:00:aa:bb:cc'] }),
      host('sb'),
      host('sb-legacy'),
      host('sb-staged', { secureBootAppliesAtBoot: true, powerDelayMs: 0 }),
      host('no-sb', { secureBoot: false }),
    ],
  });
});

afterAll(async () => {
  await emulator.stop();
});

interface Call {
  auth?: 'none' | { username: string; password: string } | { token: string };
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: Call = {}) {
  const auth = options.auth ?? { username: 'admin', password: SECRET };
  const headers: Record<string, string> = { ...options.headers };
  if (auth !== 'none' && 'token' in auth) {
    headers['x-auth-token'] = auth.token;
  } else if (auth !== 'none') {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  const response = await request(`${emulator.url}${path}`, { method, headers, body });
  const text = await response.body.text();
  const json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  return { status: response.statusCode, headers: response.headers, json };
}

const messageId = (json: Record<string, unknown> | undefined): string => {
  const error = json?.error as { '@Message.ExtendedInfo'?: { MessageId: string }[] } | undefined;
  return error?.['@Message.ExtendedInfo']?.[0]?.MessageId ?? '';
};

describe('HTTP surface', () => {
  const rows = [
    { name: 'the service root is public', method: 'GET', path: '/redfish/v1/', auth: 'none', status: 200, id: '' },
    { name: '/redfish is public', method: 'GET', path: '/redfish', auth: 'none', status: 200, id: '' },
    { name: 'collections need credentials', method: 'GET', path: '/redfish/v1/Systems', auth: 'none', status: 401, id: 'Base.1.8.NoValidSession' },
    { name: 'unknown paths are 404', method: 'GET', path: '/redfish/v1/Nope', auth: undefined, status: 404, id: 'Base.1.8.ResourceMissingAtURI' },
    { name: 'unknown systems are 404', method: 'GET', path: '/redfish/v1/Systems/nope', auth: undefined, status: 404, id: 'Base.1.8.ResourceMissingAtURI' },
    {
      name: 'DELETE on a system is 405',
      method: 'DELETE',
      path: '/redfish/v1/Systems/strong',
      auth: undefined,
      status: 405,
      id: 'Base.1.8.OperationNotAllowed',
    },
    {
      name: 'a system needs its own credentials',
      method: 'GET',
      path: '/redfish/v1/Systems/other',
      auth: undefined,
      status: 401,
      id: 'Base.1.8.NoValidSession',
    },
    {
      name: 'Dell virtual media is not under the System',
      method: 'GET',
      path: '/redfish/v1/Systems/dell/VirtualMedia',
      auth: undefined,
      status: 404,
      id: 'Base.1.8.ResourceMissingAtURI',
    },
    { name: 'Dell virtual media is under the Manager', method: 'GET', path: '/redfish/v1/Managers/dell/VirtualMedia', auth: undefined, status: 200, id: '' },
  ] as const;

  it.each(rows)('$name', async (row) => {
    const response = await call(row.method, row.path, row.auth === undefined ? {} : { auth: row.auth });
    expect(response.status).toBe(row.status);
    expect(messageId(response.json)).toBe(row.id);
  });

  it.each([
    { name: 'strong', id: 'strong', pattern: /^"[0-9a-f]{20}"$/ },
    { name: 'weak', id: 'weak', pattern: /^W\/"[0-9a-f]{20}"$/ },
    { name: 'none', id: 'none', pattern: undefined },
  ])('ETag mode $name', async ({ id, pattern }) => {
    const response = await call('GET', `/redfish/v1/Systems/${id}`);
    if (pattern === undefined) {
      expect(response.headers.etag).toBeUndefined();
    } else {
      expect(response.headers.etag).toMatch(pattern);
      expect(response.json?.['@odata.etag']).toBe(response.headers.etag);
    }
  });

  it('a change to the resource changes its ETag, and a stale If-Match gets 412', async () => {
    const before = (await call('GET', '/redfish/v1/Systems/strong')).headers.etag as string;
    expect(
      (
        await call('PATCH', '/redfish/v1/Systems/strong', {
          body: { Boot: { BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once' } },
          headers: { 'if-match': before },
        })
      ).status,
    ).toBe(204);
    const after = (await call('GET', '/redfish/v1/Systems/strong')).headers.etag as string;
    expect(after).not.toBe(before);
    const stale = await call('PATCH', '/redfish/v1/Systems/strong', { body: { Boot: { BootSourceOverrideTarget: 'Hdd' } }, headers: { 'if-match': before } });
    expect([stale.status, messageId(stale.json)]).toEqual([412, 'Base.1.8.PreconditionFailed']);
  });

  it.each([
    { name: 'a read-only property', body: { PowerState: 'On' }, status: 400, id: 'Base.1.8.PropertyNotWritable' },
    { name: 'an unknown Boot property', body: { Boot: { Foo: 'x' } }, status: 400, id: 'Base.1.8.PropertyUnknown' },
    { name: 'a target not in AllowableValues', body: { Boot: { BootSourceOverrideTarget: 'Floppy' } }, status: 400, id: 'Base.1.8.PropertyValueNotInList' },
    { name: 'a mode not in AllowableValues', body: { Boot: { BootSourceOverrideMode: 'Bios' } }, status: 400, id: 'Base.1.8.PropertyValueNotInList' },
    { name: 'a valid change', body: { Boot: { BootSourceOverrideMode: 'Legacy' } }, status: 204, id: '' },
  ])('PATCH System with $name', async ({ body, status, id }) => {
    const response = await call('PATCH', '/redfish/v1/Systems/none', { body });
    expect([response.status, messageId(response.json)]).toEqual([status, id]);
  });

  it.each([
    { name: 'no ResetType', body: {}, status: 400, id: 'Base.1.8.ActionParameterMissing' },
    { name: 'PowerCycle (not allowed on the generic BMC)', body: { ResetType: 'PowerCycle' }, status: 400, id: 'Base.1.8.ActionParameterValueNotInList' },
    { name: 'Nmi (allowed, no power change)', body: { ResetType: 'Nmi' }, status: 204, id: '' },
  ])('Reset with $name', async ({ body, status, id }) => {
    const response = await call('POST', '/redfish/v1/Systems/none/Actions/ComputerSystem.Reset', { body });
    expect([response.status, messageId(response.json)]).toEqual([status, id]);
  });

  it('malformed JSON is a 400', async () => {
    const response = await call('PATCH', '/redfish/v1/Systems/none', { raw: '{"Boot": ' });
    expect([response.status, messageId(response.json)]).toEqual([400, 'Base.1.8.MalformedJSON']);
  });
});

describe('SecureBoot', () => {
  const path = (id: string): string => `/redfish/v1/Systems/${id}/SecureBoot`;
  const secureBootActions = (id: string): string[] =>
    emulator
      .system(id)
      .actions.filter((entry) => entry.action === 'SetSecureBoot')
      .map((entry) => entry.detail ?? '');

  it('the System links it; it reads disabled, with an ETag, until a PATCH enables it', async () => {
    expect((await call('GET', '/redfish/v1/Systems/sb')).json?.SecureBoot).toEqual({ '@odata.id': path('sb') });
    const before = await call('GET', path('sb'));
    expect(before.json).toMatchObject({ Id: 'SecureBoot', SecureBootEnable: false, SecureBootCurrentBoot: 'Disabled', SecureBootMode: 'DeployedMode' });
    const etag = before.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{20}"$/);
    expect((await call('PATCH', path('sb'), { body: { SecureBootEnable: true }, headers: { 'if-match': etag } })).status).toBe(204);
    expect((await call('GET', path('sb'))).json).toMatchObject({ SecureBootEnable: true, SecureBootCurrentBoot: 'Disabled' });
    const stale = await call('PATCH', path('sb'), { body: { SecureBootEnable: false }, headers: { 'if-match': etag } });
    expect([stale.status, messageId(stale.json)]).toEqual([412, 'Base.1.8.PreconditionFailed']);
    expect(secureBootActions('sb')).toEqual(['Enabled']);
  });

  it('SecureBootCurrentBoot follows the setting at the next power-on', async () => {
    expect((await call('POST', '/redfish/v1/Systems/sb/Actions/ComputerSystem.Reset', { body: { ResetType: 'On' } })).status).toBe(204);
    clock.advance(10_000);
    expect((await call('GET', path('sb'))).json).toMatchObject({ SecureBootEnable: true, SecureBootCurrentBoot: 'Enabled' });
  });

  it.each([
    { name: 'a read-only property', body: { SecureBootMode: 'SetupMode' }, status: 400, id: 'Base.1.8.PropertyNotWritable' },
    { name: 'a non-boolean SecureBootEnable', body: { SecureBootEnable: 'yes' }, status: 400, id: 'Base.1.8.MalformedJSON' },
  ])('PATCH SecureBoot with $name', async ({ body, status, id }) => {
    const response = await call('PATCH', path('sb'), { body });
    expect([response.status, messageId(response.json)]).toEqual([status, id]);
  });

  it('enabling is refused in Legacy boot mode (PropertyValueConflict); disabling is not', async () => {
    expect((await call('PATCH', '/redfish/v1/Systems/sb-legacy', { body: { Boot: { BootSourceOverrideMode: 'Legacy' } } })).status).toBe(204);
    const refused = await call('PATCH', path('sb-legacy'), { body: { SecureBootEnable: true } });
    expect([refused.status, messageId(refused.json)]).toEqual([400, 'Base.1.8.PropertyValueConflict']);
    expect(JSON.stringify(refused.json)).toContain('Legacy');
    expect((await call('GET', path('sb-legacy'))).json?.SecureBootEnable).toBe(false);
    expect((await call('PATCH', path('sb-legacy'), { body: { SecureBootEnable: false } })).status).toBe(204);
    expect(secureBootActions('sb-legacy')).toEqual(['Disabled']);
  });

  it('a BMC that applies the change at boot reads the old value until the next power-on', async () => {
    expect((await call('PATCH', path('sb-staged'), { body: { SecureBootEnable: true } })).status).toBe(204);
    expect((await call('GET', path('sb-staged'))).json?.SecureBootEnable).toBe(false);
    expect((await call('POST', '/redfish/v1/Systems/sb-staged/Actions/ComputerSystem.Reset', { body: { ResetType: 'On' } })).status).toBe(204);
    expect((await call('GET', path('sb-staged'))).json).toMatchObject({ SecureBootEnable: true, SecureBootCurrentBoot: 'Enabled' });
    expect(secureBootActions('sb-staged')).toEqual(['Enabled at next boot']);
  });

  it('a BMC without secure boot has no link and no resource', async () => {
    expect((await call('GET', '/redfish/v1/Systems/no-sb')).json?.SecureBoot).toBeUndefined();
    expect((await call('GET', path('no-sb'))).status).toBe(404);
    expect((await call('PATCH', path('no-sb'), { body: { SecureBootEnable: true } })).status).toBe(404);
  });
});

describe('sessions', () => {
  it('login, use, list, logout, and the token stops working', async () => {
    emulator.expireSessions();
    const login = await call('POST', '/redfish/v1/SessionService/Sessions', { auth: 'none', body: { UserName: 'admin', Password: SECRET } });
    expect(login.status).toBe(201);
    const token = login.headers['x-auth-token'] as string;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(login.headers.location).toMatch(/^\/redfish\/v1\/SessionService\/Sessions\/\d+$/);
    expect(JSON.stringify(login.json)).not.toContain(SECRET);
    expect((await call('GET', '/redfish/v1/Systems/strong', { auth: { token } })).status).toBe(200);
    expect((await call('GET', '/redfish/v1/Systems/other', { auth: { token } })).status).toBe(401);
    expect((await call('GET', '/redfish/v1/SessionService/Sessions', { auth: { token } })).json?.['Members@odata.count']).toBe(1);
    expect((await call('DELETE', login.headers.location as string, { auth: { token } })).status).toBe(204);
    expect((await call('GET', '/redfish/v1/Systems/strong', { auth: { token } })).status).toBe(401);
  });

  it('a wrong password is 401, and the session limit is a 503', async () => {
    emulator.expireSessions();
    expect((await call('POST', '/redfish/v1/SessionService/Sessions', { auth: 'none', body: { UserName: 'admin', Password: 'x' } })).status).toBe(401);
    for (const expected of [201, 201, 503]) {
      const response = await call('POST', '/redfish/v1/SessionService/Sessions', { auth: 'none', body: { UserName: 'admin', Password: SECRET } });
      expect(response.status).toBe(expected);
    }
    emulator.expireSessions();
  });
});

describe('state-change listeners', () => {
  it('in process: power-on carries the boot source, Once is consumed, unsubscribe stops delivery', async () => {
    const seen: StateChangeEvent[] = [];
    const stop = emulator.onStateChange((system, event) => {
      expect(system.id).toBe(event.system);
      seen.push(event);
    });
    emulator.onStateChange(() => {
      throw new Error('a broken listener must not break the BMC');
    });
    await call('PATCH', '/redfish/v1/Systems/events', { body: { Boot: { BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once' } } });
    await call('POST', '/redfish/v1/Systems/events/Actions/ComputerSystem.Reset', { body: { ResetType: 'On' } });
    expect(seen.map((event) => event.type)).toEqual(['boot-override']);
    clock.advance(1_000);
    expect(seen.at(-1)).toMatchObject({
      type: 'power-on',
      system: 'events',
      powerState: 'On',
      bootSourceTarget: 'Pxe',
      bootSourceEnabled: 'Once',
      macs: ['52:54:00:aa:bb:cc'],
    });
    expect(emulator.system('events').boot).toMatchObject({ enabled: 'Disabled', target: 'None' });
    stop();
    await call('POST', '/redfish/v1/Systems/events/Actions/ComputerSystem.Reset', { body: { ResetType: 'ForceOff' } });
    clock.advance(1_000);
    expect(seen.at(-1)?.type).toBe('power-on');
    expect(emulator.system('events').powerState).toBe('Off');
  });

  it('over HTTP: each power-on and power-off is POSTed as JSON to the notifier URL', async () => {
    const received: Record<string, unknown>[] = [];
    const server: Server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push(JSON.parse(text) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const notifying = await startRedfishEmulator({ http: true, notifyURL: `http://127.0.0.1:${port}/notify`, systems: [host('n1')] });
    const image = 'http://127.0.0.1:9/agent.iso';
    const auth = `Basic ${Buffer.from(`admin:${SECRET}`).toString('base64')}`;
    const post = async (path: string, body: unknown) =>
      (
        await request(`${notifying.url}${path}`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).body.dump();
    await post('/redfish/v1/Systems/n1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia', { Image: image });
    await post('/redfish/v1/Systems/n1/Actions/ComputerSystem.Reset', { ResetType: 'On' });
    await post('/redfish/v1/Systems/n1/Actions/ComputerSystem.Reset', { ResetType: 'ForceOff' });
    await notifying.flushNotifications();
    expect(notifying.notifications).toEqual({ delivered: 2, failed: 0 });
    expect(received).toEqual([
      expect.objectContaining({
        event: 'power-on',
        system: 'n1',
        powerState: 'On',
        bootSourceTarget: 'Hdd',
        bootSourceEnabled: 'Disabled',
        virtualMedia: { inserted: true, image },
      }),
      expect.objectContaining({ event: 'power-off', system: 'n1', powerState: 'Off' }),
    ]);
    expect(JSON.stringify(received)).not.toContain(SECRET);
    await notifying.stop();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });
});

describe('config file', () => {
  const minimal = `systems:\n  - id: host-0\n    username: admin\n    password: ${SECRET}\n`;

  it('reads a full config', () => {
    const options = parseEmulatorConfig(`
port: 8000
http: true
notifyURL: http://127.0.0.1:9999/notify
powerDelayMs: [1000, 3000]
sessionService: true
portPerSystem: true
systems:
  - id: host-0
    username: admin
    password: ${SECRET}
    personality: dell
    macs: ["00:5C:52:31:3A:9C"]
    memoryGiB: 128
    faults: {slowMs: 10, serverError: {status: 503, count: 1}}
`);
    expect(options).toMatchObject({ port: 8000, http: true, notifyURL: 'http://127.0.0.1:9999/notify', powerDelayMs: [1000, 3000], portPerSystem: true });
    expect(options.systems[0]).toMatchObject({ id: 'host-0', personality: 'dell', macs: ['00:5c:52:31:3a:9c'], memoryGiB: 128, faults: { slowMs: 10 } });
  });

  const invalid = [
    { name: 'no systems', text: 'port: 1\n', error: 'config.systems: must list at least one system' },
    { name: 'unknown top-level key', text: `${minimal}colour: red\n`, error: 'config: unknown key(s) colour' },
    { name: 'missing password', text: 'systems:\n  - {id: a, username: admin}\n', error: 'systems[0].password: is required' },
    { name: 'bad personality', text: `${minimal}    personality: acme\n`, error: 'systems[0].personality: must be one of' },
    { name: 'bad MAC', text: `${minimal}    macs: [nope]\n`, error: 'systems[0].macs[0]: is not a MAC address' },
    { name: 'bad ETag mode', text: `${minimal}    etag: sometimes\n`, error: 'systems[0].etag: must be strong, weak, mismatch or none' },
    { name: 'portPerSystem not a boolean', text: `portPerSystem: yes please\n${minimal}`, error: 'config.portPerSystem: must be true or false' },
    { name: 'bad delay', text: `${minimal}    powerDelayMs: [1]\n`, error: 'systems[0].powerDelayMs: must be milliseconds or [min, max]' },
    { name: 'unknown fault', text: `${minimal}    faults: {explode: true}\n`, error: 'systems[0].faults: unknown key(s) explode' },
    { name: 'bad id', text: 'systems:\n  - {id: "a/b", username: u, password: p}\n', error: 'systems[0].id: may contain only' },
    { name: 'duplicate id', text: `${minimal}  - {id: host-0, username: u, password: p}\n`, error: "config.systems: duplicate id 'host-0'" },
  ];

  it.each(invalid)('rejects $name', ({ text, error }) => {
    let message = '';
    try {
      parseEmulatorConfig(text);
    } catch (caught) {
      message = caught instanceof Error ? caught.message : String(caught);
    }
    expect(message).toContain(error);
    expect(message).not.toContain(SECRET);
  });
});

describe('ManualClock', () => {
  it('runs scheduled tasks in time order as time advances, and sleep moves time', async () => {
    const manual = new ManualClock(0);
    const order: string[] = [];
    manual.schedule(300, () => order.push('b'));
    manual.schedule(100, () => order.push('a'));
    const cancel = manual.schedule(200, () => order.push('cancelled'));
    cancel();
    manual.advance(150);
    expect([order, manual.now(), manual.pending()]).toEqual([['a'], 150, 1]);
    await manual.sleep(1_000);
    expect([order, manual.now(), manual.pending()]).toEqual([['a', 'b'], 1_150, 0]);
  });
});
