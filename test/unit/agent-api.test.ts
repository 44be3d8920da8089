// The agent API as IPA sees it: version documents, lookup by MACs with the token once then
// masked, heartbeats with token and callback URL rules, the inspection callback, and a canary
// token that must never reach a log line or an error body.
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { API_VERSION, createAgentAPI, versionSupported } from '../../drivers/agent/api.js';
import { AgentState } from '../../drivers/agent/state.js';
import { MASKED_TOKEN, MIN_TOKEN_LENGTH, tokenMatches } from '../../drivers/agent/tokens.js';
import { capturedLogger } from '../support/captured-logger.js';

const HOST = { namespace: 'metal3', name: 'server-01', uid: '6f3c8a1e-0000-4000-8000-000000000001' };
const OTHER = { namespace: 'metal3', name: 'server-02', uid: '6f3c8a1e-0000-4000-8000-000000000002' };
const MACS = ['00:11:22:33:44:55', '00:11:22:33:44:66', '52:54:00:ab:cd:ef'];
const CALLBACK = 'http://127.0.0.1:9999';

interface Answers {
  default_version: { version: string };
  version: { version: string };
  id: string;
  node: { uuid: string };
  config: { agent_token: string; agent_token_required: boolean; heartbeat_timeout: number };
  error_message: unknown;
}
const body = (res: { body: unknown }): Answers => res.body as Answers;

function setup() {
  const { logger, lines } = capturedLogger('trace');
  const state = new AgentState(() => 1_000);
  const app = createAgentAPI({ state, logger, heartbeatTimeoutSeconds: 30 });
  return { state, app, lines };
}

describe('version documents', () => {
  it('GET / reports default_version ≥ 1.68 and the version headers', async () => {
    const { app } = setup();
    const res = await request(app).get('/');
    expect(res.status).toBe(200);
    expect(body(res).default_version.version).toBe(API_VERSION);
    expect(res.headers['x-openstack-ironic-api-maximum-version']).toBe(API_VERSION);
    expect(res.headers['x-openstack-ironic-api-minimum-version']).toBe('1.1');
    expect(res.headers['x-openstack-ironic-api-version']).toBe(API_VERSION);
  });

  it.each(['/v1', '/v1/'])('GET %s reports the v1 version', async (path) => {
    const { app } = setup();
    const res = await request(app).get(path);
    expect(res.status).toBe(200);
    expect(body(res).version.version).toBe(API_VERSION);
    expect(body(res).id).toBe('v1');
  });

  it.each([
    { name: 'the version IPA pins', header: '1.68', status: 200, echoed: '1.68' },
    { name: 'an older minor', header: '1.31', status: 200, echoed: '1.31' },
    { name: 'latest', header: 'latest', status: 200, echoed: API_VERSION },
    { name: 'a newer minor', header: '1.99', status: 406, echoed: undefined },
    { name: 'another major', header: '2.0', status: 406, echoed: undefined },
    { name: 'garbage', header: 'one', status: 406, echoed: undefined },
  ])('X-OpenStack-Ironic-API-Version: $name → $status', async (row) => {
    const { app } = setup();
    const res = await request(app).get('/v1').set('X-OpenStack-Ironic-API-Version', row.header);
    expect(res.status).toBe(row.status);
    expect(res.headers['x-openstack-ironic-api-version']).toBe(row.echoed);
  });

  it('versionSupported accepts 1.1 to 1.68 only', () => {
    expect(['1.1', '1.62', '1.68'].map(versionSupported)).toEqual([true, true, true]);
    expect(['1.0', '1.69', '0.9', '1', ''].map(versionSupported)).toEqual([false, false, false, false, false]);
  });
});

describe('lookup', () => {
  interface Row {
    name: string;
    arm: boolean;
    query: string;
    status: number;
  }
  const rows: Row[] = [
    { name: 'one matching MAC', arm: true, query: 'addresses=00:11:22:33:44:66', status: 200 },
    { name: 'MACs in another spelling', arm: true, query: 'addresses=00-11-22-33-44-55,aa:bb:cc:dd:ee:ff', status: 200 },
    { name: 'upper case MAC', arm: true, query: 'addresses=52:54:00:AB:CD:EF', status: 200 },
    { name: 'node_uuid and MAC', arm: true, query: `addresses=00:11:22:33:44:55&node_uuid=${HOST.uid}`, status: 200 },
    { name: 'node_uuid alone', arm: true, query: `node_uuid=${HOST.uid}`, status: 200 },
    { name: 'node_uuid of another node', arm: true, query: `addresses=00:11:22:33:44:55&node_uuid=${OTHER.uid}`, status: 404 },
    { name: 'unknown MAC', arm: true, query: 'addresses=aa:bb:cc:dd:ee:ff', status: 404 },
    { name: 'host not armed', arm: false, query: 'addresses=00:11:22:33:44:55', status: 404 },
    { name: 'no addresses', arm: true, query: '', status: 400 },
    { name: 'only invalid addresses', arm: true, query: 'addresses=not-a-mac', status: 400 },
  ];

  it.each(rows)('$name → $status', async (row) => {
    const { state, app } = setup();
    if (row.arm) state.arm(HOST, MACS);
    const res = await request(app).get(`/v1/lookup?${row.query}`);
    expect(res.status).toBe(row.status);
    if (row.status === 200) {
      expect(body(res).node.uuid).toBe(HOST.uid);
      expect(body(res).config).toMatchObject({ agent_token_required: true, heartbeat_timeout: 30 });
      expect(res.headers['cache-control']).toBe('no-store');
    } else {
      expect(typeof body(res).error_message).toBe('string');
    }
  });

  it('hands the token out once, then masks it', async () => {
    const { state, app } = setup();
    const armed = state.arm(HOST, MACS);
    const first = await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    const second = await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    expect(body(first).config.agent_token).toBe(armed.token);
    expect(armed.token.length).toBeGreaterThanOrEqual(MIN_TOKEN_LENGTH);
    expect(body(second).config.agent_token).toBe(MASKED_TOKEN);
  });

  it('a re-armed host gets a new token, handed out once again', async () => {
    const { state, app } = setup();
    const old = state.arm(HOST, MACS).token;
    await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    const fresh = state.arm(HOST, MACS).token;
    const res = await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    expect(fresh).not.toBe(old);
    expect(body(res).config.agent_token).toBe(fresh);
  });

  it('two armed hosts sharing a MAC → 409', async () => {
    const { state, app } = setup();
    state.arm(HOST, MACS);
    state.arm(OTHER, ['00:11:22:33:44:55']);
    const res = await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    expect(res.status).toBe(409);
  });

  it('tokens are random and long enough', () => {
    const { state } = setup();
    const tokens = new Set(Array.from({ length: 50 }, () => state.arm(HOST, MACS).token));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('heartbeat', () => {
  let ctx: ReturnType<typeof setup>;
  let token: string;
  beforeEach(() => {
    ctx = setup();
    token = ctx.state.arm(HOST, MACS).token;
  });

  interface Row {
    name: string;
    uuid?: string;
    body: (token: string) => Record<string, unknown>;
    header?: boolean;
    status: number;
  }
  const rows: Row[] = [
    { name: 'right token and callback URL', body: (t) => ({ callback_url: CALLBACK, agent_token: t, agent_version: '9.9.0' }), status: 202 },
    { name: 'token in the agent-token header', body: () => ({ callback_url: CALLBACK }), header: true, status: 202 },
    { name: 'no token', body: () => ({ callback_url: CALLBACK }), status: 401 },
    { name: 'empty token', body: () => ({ callback_url: CALLBACK, agent_token: '' }), status: 401 },
    { name: 'wrong token', body: (t) => ({ callback_url: CALLBACK, agent_token: `${t.slice(0, -1)}x` }), status: 401 },
    { name: 'token prefix', body: (t) => ({ callback_url: CALLBACK, agent_token: t.slice(0, 32) }), status: 401 },
    { name: 'the mask as token', body: () => ({ callback_url: CALLBACK, agent_token: MASKED_TOKEN }), status: 401 },
    { name: 'non-string token', body: () => ({ callback_url: CALLBACK, agent_token: 42 }), status: 401 },
    { name: 'unknown node', uuid: OTHER.uid, body: (t) => ({ callback_url: CALLBACK, agent_token: t }), status: 404 },
    { name: 'no callback URL', body: (t) => ({ agent_token: t }), status: 400 },
    { name: 'callback URL not http(s)', body: (t) => ({ callback_url: 'ftp://127.0.0.1:9999', agent_token: t }), status: 400 },
    { name: 'callback URL garbage', body: (t) => ({ callback_url: 'not a url', agent_token: t }), status: 400 },
  ];

  it.each(rows)('$name → $status', async (row) => {
    let req = request(ctx.app).post(`/v1/heartbeat/${row.uuid ?? HOST.uid}`);
    if (row.header === true) req = req.set('X-OpenStack-Ironic-Agent-Token', token);
    const res = await req.send(row.body(token));
    expect(res.status).toBe(row.status);
    expect(JSON.stringify(res.body)).not.toContain(token);
  });

  it('records the callback URL and agent version; rejects a changed URL until re-armed', async () => {
    const ok = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: CALLBACK, agent_token: token, agent_version: '9.9.0' });
    expect(ok.status).toBe(202);
    expect(ctx.state.get(HOST)).toMatchObject({ callbackURL: CALLBACK, agentVersion: '9.9.0', heartbeatAt: 1_000 });
    const again = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: CALLBACK, agent_token: token });
    expect(again.status).toBe(202);
    const moved = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: 'http://127.0.0.1:10000', agent_token: token });
    expect(moved.status).toBe(409);
    expect(ctx.state.get(HOST)?.callbackURL).toBe(CALLBACK);
    const rearmed = ctx.state.arm(HOST, MACS).token;
    const stale = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: 'http://127.0.0.1:10000', agent_token: token });
    expect(stale.status).toBe(401);
    const fresh = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: 'http://127.0.0.1:10000', agent_token: rearmed });
    expect(fresh.status).toBe(202);
  });

  it('a forgotten host is unknown', async () => {
    ctx.state.forget(HOST);
    const res = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: CALLBACK, agent_token: token });
    expect(res.status).toBe(404);
  });

  it('malformed JSON → 400 without echoing the body', async () => {
    const res = await request(ctx.app).post(`/v1/heartbeat/${HOST.uid}`).set('Content-Type', 'application/json').send(`{"agent_token":"${token}"`);
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(token);
  });

  it('tokenMatches compares whole tokens only', () => {
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(`${token} `, token)).toBe(false);
    expect(tokenMatches(undefined, token)).toBe(false);
  });
});

const inventory = {
  interfaces: [{ name: 'eth0', mac_address: '00:11:22:33:44:55', ipv4_address: '192.0.2.10' }],
  cpu: { count: 4, architecture: 'x86_64' },
  disks: [{ name: '/dev/sda', size: 1e11, rotational: false }],
  memory: { physical_mb: 8192 },
};

describe('inspection callback', () => {
  it.each([
    { name: 'matching interfaces', arm: true, body: { inventory }, status: 202 },
    { name: 'no armed host', arm: false, body: { inventory }, status: 404 },
    { name: 'no inventory', arm: true, body: { root_disk: {} }, status: 400 },
    { name: 'inventory without interfaces', arm: true, body: { inventory: { ...inventory, interfaces: [] } }, status: 404 },
  ])('$name → $status', async (row) => {
    const { state, app } = setup();
    if (row.arm) state.arm(HOST, MACS);
    const res = await request(app).post('/v1/continue_inspection').send(row.body);
    expect(res.status).toBe(row.status);
    if (row.status === 202) {
      expect(res.body).toEqual({ uuid: HOST.uid });
      expect(state.get(HOST)?.inventory).toMatchObject({ ramMebibytes: 8192, cpu: { count: 4, arch: 'x86_64' } });
    }
  });

  it('after the first post, only a post with the token replaces the data', async () => {
    const { state, app } = setup();
    const { token } = state.arm(HOST, MACS);
    expect((await request(app).post('/v1/continue_inspection').send({ inventory })).status).toBe(202);
    expect((await request(app).post('/v1/continue_inspection').send({ inventory })).status).toBe(401);
    const wrong = await request(app).post('/v1/continue_inspection').set('X-OpenStack-Ironic-Agent-Token', 'x'.repeat(43)).send({ inventory });
    expect(wrong.status).toBe(401);
    const right = await request(app).post('/v1/continue_inspection').set('X-OpenStack-Ironic-Agent-Token', token).send({ inventory });
    expect(right.status).toBe(202);
  });
});

describe('the inspection callback is answered once the data is stored', () => {
  it.each([
    { name: 'stored: 202', failure: undefined, status: 202 },
    { name: 'not stored: 503, so the agent posts again', failure: new Error('apiserver down'), status: 503 },
  ])('$name', async ({ failure, status }) => {
    const state = new AgentState(() => 1_000);
    const asked: string[] = [];
    const saved = (host: { namespace: string; name: string }): Promise<unknown> => {
      asked.push(`${host.namespace}/${host.name}`);
      return Promise.resolve(failure);
    };
    const app = createAgentAPI({ state, saved });
    state.arm(HOST, MACS);
    const res = await request(app).post('/v1/continue_inspection').send({ inventory });
    expect(res.status).toBe(status);
    expect(asked).toEqual([`${HOST.namespace}/${HOST.name}`]);
  });
});

describe('canary: the token never reaches a log line or an error', () => {
  it('after lookups, heartbeats (good and bad) and inspection posts', async () => {
    const { state, app, lines } = setup();
    const { token } = state.arm(HOST, MACS);
    await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    await request(app).get('/v1/lookup?addresses=00:11:22:33:44:55');
    await request(app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: CALLBACK, agent_token: token });
    await request(app).post(`/v1/heartbeat/${HOST.uid}`).send({ callback_url: 'http://127.0.0.1:1', agent_token: token });
    await request(app)
      .post(`/v1/heartbeat/${HOST.uid}`)
      .send({ callback_url: CALLBACK, agent_token: `${token}x` });
    await request(app)
      .post('/v1/continue_inspection')
      .set('X-OpenStack-Ironic-Agent-Token', token)
      .send({ inventory: { interfaces: [{ mac_address: MACS[0] }] } });
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain(token.slice(0, 16));
  });
});

describe('iPXE boot configuration', () => {
  const pxe = {
    kernelURL: 'http://127.0.0.1:8080/ipa.kernel',
    ramdiskURL: 'http://127.0.0.1:8080/ipa.initramfs',
    extraKernelParams: 'console=ttyS0',
    apiURL: 'http://127.0.0.1:6385/',
  };

  function pxeSetup() {
    const state = new AgentState();
    return { state, app: createAgentAPI({ state, pxe }) };
  }

  it('/boot.ipxe chains to the per-MAC script', async () => {
    const res = await request(pxeSetup().app).get('/boot.ipxe');
    expect(res.status).toBe(200);
    expect(res.text).toBe('#!ipxe\nchain --autofree ipxe/${mac:hexhyp} || exit\n');
  });

  it.each([
    { name: 'armed, iPXE hexhyp spelling', arm: true, mac: '52-54-00-ab-cd-ef', agent: true },
    { name: 'armed, colon spelling', arm: true, mac: '52:54:00:AB:CD:EF', agent: true },
    { name: 'not armed', arm: false, mac: '52-54-00-ab-cd-ef', agent: false },
    { name: 'unknown MAC', arm: true, mac: '52-54-00-00-00-00', agent: false },
    { name: 'not a MAC', arm: true, mac: 'garbage', agent: false },
  ])('/ipxe/<mac>: $name', async (row) => {
    const { state, app } = pxeSetup();
    const token = row.arm ? state.arm(HOST, MACS).token : 'no-token';
    const res = await request(app).get(`/ipxe/${row.mac}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    if (row.agent) {
      expect(res.text).toBe(
        '#!ipxe\n' +
          'kernel --name kernel http://127.0.0.1:8080/ipa.kernel ipa-api-url=http://127.0.0.1:6385 ipa-inspection-callback-url=http://127.0.0.1:6385/v1/continue_inspection BOOTIF=52:54:00:ab:cd:ef ipa-ironic-api-version=1.68 initrd=ramdisk console=ttyS0\n' +
          'initrd --name ramdisk http://127.0.0.1:8080/ipa.initramfs\nboot\n',
      );
    } else {
      expect(res.text).toMatch(/^#!ipxe\n[\s\S]*\nexit\n$/);
    }
    expect(res.text).not.toContain(token);
  });

  it('without a PXE configuration there are no iPXE routes', async () => {
    const { app } = setup();
    expect((await request(app).get('/boot.ipxe')).status).toBe(404);
  });
});
