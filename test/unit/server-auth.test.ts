// Webhook authentication as Metacontroller 4.16+ sends it: bearer (`authorization`) or basic
// (`basicAuth`). Probes and /metrics stay open; hook routes demand the credentials.
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createHookServer } from '../../hooks/server/app.js';
import { checkAuthorization, constantTimeEqual, parseBasicAuthFile, parseBearerFile, type HookAuth } from '../../hooks/server/auth.js';
import type { HookRegistry } from '../../hooks/types.js';

const config = { maxProvisioningRetries: 5, monitorIntervalSeconds: 60 };
const registry: HookRegistry = { widget: { sync: () => ({ status: {}, children: [] }) } };
const body = JSON.stringify({ parent: { metadata: { name: 'blue' } }, children: {}, related: {}, finalizing: false });

const bearer: HookAuth = { kind: 'bearer', token: 's3cr3t-token' };
const basic: HookAuth = { kind: 'basic', username: 'metacontroller', password: 'pa:ss word' };
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

interface Row {
  name: string;
  auth: HookAuth;
  header?: string;
  status: number;
  challenge?: RegExp;
}

const rows: Row[] = [
  { name: 'bearer: right token', auth: bearer, header: 'Bearer s3cr3t-token', status: 200 },
  { name: 'bearer: scheme is case-insensitive', auth: bearer, header: 'bearer s3cr3t-token', status: 200 },
  { name: 'bearer: missing header', auth: bearer, status: 401, challenge: /^Bearer realm=/ },
  { name: 'bearer: wrong token', auth: bearer, header: 'Bearer s3cr3t-tokeN', status: 401 },
  { name: 'bearer: token prefix only', auth: bearer, header: 'Bearer s3cr3t', status: 401 },
  { name: 'bearer: basic credentials instead', auth: bearer, header: `Basic ${b64('a:s3cr3t-token')}`, status: 401 },
  { name: 'bearer: no scheme', auth: bearer, header: 's3cr3t-token', status: 401 },
  { name: 'basic: right credentials', auth: basic, header: `Basic ${b64('metacontroller:pa:ss word')}`, status: 200 },
  { name: 'basic: missing header', auth: basic, status: 401, challenge: /^Basic realm=/ },
  { name: 'basic: wrong password', auth: basic, header: `Basic ${b64('metacontroller:pa:ss')}`, status: 401 },
  { name: 'basic: wrong user', auth: basic, header: `Basic ${b64('admin:pa:ss word')}`, status: 401 },
  { name: 'basic: no colon', auth: basic, header: `Basic ${b64('metacontrollerpa:ss word')}`, status: 401 },
  { name: 'basic: garbage base64', auth: basic, header: 'Basic !!!', status: 401 },
  { name: 'basic: bearer with the password', auth: basic, header: 'Bearer pa:ss word', status: 401 },
];

describe('hook authentication', () => {
  it.each(rows)('$name → $status', async (row) => {
    const app = createHookServer({ registry, config, auth: row.auth });
    let req = request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json');
    if (row.header !== undefined) req = req.set('Authorization', row.header);
    const res = await req.send(body);
    expect(res.status).toBe(row.status);
    if (row.status === 401) {
      expect(JSON.parse(res.text)).toHaveProperty('error');
      expect(res.headers['www-authenticate']).toMatch(row.challenge ?? /realm="ironhook-hooks"/);
    }
  });

  it('checks credentials before revealing whether a hook exists', async () => {
    const app = createHookServer({ registry, config, auth: bearer });
    const res = await request(app).post('/hooks/nope/sync').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(401);
  });

  it.each(['/healthz', '/readyz', '/metrics'])('%s needs no credentials', async (path) => {
    const app = createHookServer({ registry, config, auth: bearer });
    expect((await request(app).get(path)).status).toBe(200);
  });

  it('without auth configured, hooks need no header', async () => {
    const app = createHookServer({ registry, config });
    const res = await request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(200);
  });

  it('requireClientCert refuses plain-HTTP callers on hook routes only', async () => {
    const app = createHookServer({ registry, config, requireClientCert: true });
    const res = await request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(401);
    expect((await request(app).get('/healthz')).status).toBe(200);
  });
});

describe('auth helpers', () => {
  it.each([
    ['a', 'a', true],
    ['a', 'b', false],
    ['short', 'a much longer string', false],
    ['', '', true],
    ['ü', 'ü', true],
  ] as const)('constantTimeEqual(%j, %j) = %s', (a, b, expected) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
  });

  it.each([
    ['missing', undefined],
    ['missing', '  '],
    ['invalid', 'Bearer'],
    ['wrong-scheme', 'Token s3cr3t-token'],
    ['ok', '  Bearer   s3cr3t-token  '],
  ] as const)('checkAuthorization → %s for %j', (outcome, header) => {
    expect(checkAuthorization(bearer, header)).toBe(outcome);
  });

  it.each([
    ['token\n', { kind: 'bearer', token: 'token' }],
    ['  token \r\n', { kind: 'bearer', token: 'token' }],
  ] as const)('bearer file %j', (text, expected) => {
    expect(parseBearerFile(text)).toEqual(expected);
  });

  it('an empty bearer file is refused', () => {
    expect(() => parseBearerFile('\n')).toThrow(/empty/);
  });

  it.each([
    ['user:pass', { kind: 'basic', username: 'user', password: 'pass' }],
    ['user:pa:ss\n', { kind: 'basic', username: 'user', password: 'pa:ss' }],
    ['user: spaced pass \n', { kind: 'basic', username: 'user', password: ' spaced pass ' }],
  ] as const)('basic file %j', (text, expected) => {
    expect(parseBasicAuthFile(text)).toEqual(expected);
  });

  it.each(['userpass', ':pass', 'user:', ''])('basic file %j is refused without echoing it', (text) => {
    expect(() => parseBasicAuthFile(text)).toThrow('the basic auth file must contain "username:password"');
  });
});
