// Webhook TLS and authentication through the real Metacontroller v4.17.2: the hook server serves
// HTTPS with a private CA, demands Metacontroller's client certificate (mTLS) and a bearer token,
// as the chart runs it with ci/tls-auth-values.yaml. The controller objects are the chart's own,
// rendered by helm with those values (caBundle, clientTLS and authorization secretRefs into the
// release namespace), only pointed at the local hook server; the Secrets they name hold the CA,
// the client certificate and the token. Direct calls without the token, with a wrong one or
// without the client certificate get 401; Metacontroller with them syncs a BareMetalHost; the hook
// server's log and /metrics count exactly the refused calls, and never show a token.
//
// Metacontroller runs here with the control plane's admin kubeconfig (system:masters), so this
// file does not exercise its RBAC on those Secrets: test/integration/chart-rbac.test.ts checks the
// chart's roles in a kube-apiserver that authorizes with RBAC.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metacontrollerMetric } from '../../devenv/metacontroller.js';
import { makeCa, makeLeaf, makeLoopbackServingCert, requireOpenssl } from '../../devenv/tls.js';
import { controllersOf } from '../support/controller-objects.js';
import { NAMESPACE, prepareChart, render, type RenderedObject } from '../support/helm.js';
import type { Cluster } from './support.js';
import { apply, createNamespace, openCluster, waitForHost, waitForRequest } from './support.js';

interface Reply {
  status: number;
  body: string;
  challenge: string | undefined;
}

interface CallOptions {
  /** The Authorization header, sent as is. */
  authorization?: string;
  clientCert?: boolean;
  trustCA?: boolean;
  method?: 'GET' | 'POST';
}

let cluster: Cluster;
let certs = '';
/** The bearer token Metacontroller sends (from the Secret) and the hook server expects (from its file). */
const TOKEN = randomBytes(32).toString('hex');
const WRONG_TOKEN = randomBytes(32).toString('hex');
const SYNC = '/hooks/baremetalhost/sync';

const file = (name: string): string => join(certs, name);

/** The CA, the hook server's loopback certificate, Metacontroller's client certificate, and the token (files, 0600). */
function makeCredentials(dir: string): void {
  makeCa(dir, 'hooks-ca');
  makeLoopbackServingCert(dir, 'hooks', 'hooks-ca');
  makeCa(dir, 'client-ca');
  makeLeaf(dir, 'metacontroller-client', { ca: 'client-ca', ext: 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n' });
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
}

/** The hook server as the chart's Deployment configures it with ci/tls-auth-values.yaml (files from the same Secrets). */
function hookEnv(): NodeJS.ProcessEnv {
  return {
    TLS_CERT_FILE: file('hooks.crt'),
    TLS_KEY_FILE: file('hooks.key'),
    TLS_CLIENT_CA_FILE: file('client-ca.crt'),
    HOOK_BEARER_TOKEN_FILE: file('token'),
    // Answered calls are logged at debug, refused ones at warn.
    LOG_LEVEL: 'debug',
  };
}

/** The Secrets ci/tls-auth-values.yaml names, from files (never on argv). */
async function createSecrets(): Promise<void> {
  const env = cluster.env;
  await env.kubectl('create', 'namespace', NAMESPACE);
  const secret = (name: string, ...files: string[]): Promise<string> =>
    env.kubectl('-n', NAMESPACE, 'create', 'secret', 'generic', name, ...files.map((f) => `--from-file=${f}`));
  await secret('ironhook-hooks-tls', `tls.crt=${file('hooks.crt')}`, `tls.key=${file('hooks.key')}`, `ca.crt=${file('hooks-ca.crt')}`);
  await secret(
    'ironhook-metacontroller-client',
    `tls.crt=${file('metacontroller-client.crt')}`,
    `tls.key=${file('metacontroller-client.key')}`,
    `ca.crt=${file('client-ca.crt')}`,
  );
  await secret('ironhook-hooks-auth', `token=${file('token')}`);
}

/** The chart's controller objects with ci/tls-auth-values.yaml, pointed at the local hook server. */
async function chartControllers(hookPort: number): Promise<RenderedObject[]> {
  const chart = prepareChart();
  const objects = await render(chart.dir, {
    values: ['charts/ironhook/ci/tls-auth-values.yaml'],
    set: [`controllers.hookBaseURL=https://127.0.0.1:${String(hookPort)}`],
  });
  return controllersOf(objects);
}

/** One HTTPS call to the hook server, as a client of our choosing (trusting the hook CA and presenting the client certificate unless told not to). */
function call(path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const tls = {
    ...(options.trustCA === false ? {} : { ca: readFileSync(file('hooks-ca.crt')) }),
    ...(options.clientCert === false ? {} : { cert: readFileSync(file('metacontroller-client.crt')), key: readFileSync(file('metacontroller-client.key')) }),
  };
  const method = options.method ?? 'POST';
  return new Promise((resolve, reject) => {
    const req = request(`https://127.0.0.1:${String(cluster.env.hookPort)}${path}`, { method, headers, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, challenge: res.headers['www-authenticate'] });
      });
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

/** The hook server's log lines of hook calls it answered with `status`. */
function hookCallLines(status: number): string[] {
  const hooks = cluster.env.processes.find((p) => p.name === 'hooks');
  if (hooks === undefined) throw new Error('no hook server process');
  return readFileSync(hooks.log, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"hook call"') && line.includes(`"status":${String(status)}`));
}

/** Sum of the hook server's ironhook_hook_requests_total series with code="<code>" (its /metrics, over HTTPS). */
async function hookRequests(code: number): Promise<number> {
  const metrics = await call('/metrics', { method: 'GET', clientCert: false });
  expect(metrics.status).toBe(200);
  return metrics.body
    .split('\n')
    .filter((line) => line.startsWith('ironhook_hook_requests_total{') && line.includes(`code="${String(code)}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** The calls the hook server must refuse, with the error it answers. */
const REFUSED: { name: string; options: CallOptions; error: string; challenge: string | undefined }[] = [
  { name: 'no Authorization header', options: {}, error: 'authorization required', challenge: 'Bearer realm="ironhook-hooks"' },
  {
    name: 'a wrong bearer token',
    options: { authorization: `Bearer ${WRONG_TOKEN}` },
    error: 'invalid credentials',
    challenge: 'Bearer realm="ironhook-hooks"',
  },
  {
    name: 'the token as Basic credentials',
    options: { authorization: `Basic ${Buffer.from(`metacontroller:${TOKEN}`).toString('base64')}` },
    error: 'invalid credentials',
    challenge: 'Bearer realm="ironhook-hooks"',
  },
  {
    name: 'the right token but no client certificate',
    options: { authorization: `Bearer ${TOKEN}`, clientCert: false },
    error: 'a verified client certificate is required',
    challenge: undefined,
  },
];

beforeAll(async () => {
  requireOpenssl();
  certs = mkdtempSync(join(tmpdir(), 'ironhook-hook-auth-'));
  makeCredentials(certs);
  cluster = await openCluster({ hookEnv: hookEnv(), hookCAFile: file('hooks-ca.crt'), applyControllers: false });
  await createSecrets();
}, 300_000);

afterAll(async () => {
  await cluster.close();
  rmSync(certs, { recursive: true, force: true });
});

describe('hook authentication and TLS through the real Metacontroller', () => {
  it.each(REFUSED)('refuses a direct hook call with $name: 401', async ({ options, error, challenge }) => {
    const reply = await call(SYNC, options);
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toEqual({ error });
    expect(reply.challenge).toBe(challenge);
  });

  it('serves only TLS a client can verify with the hook CA', async () => {
    await expect(call('/readyz', { method: 'GET', trustCA: false })).rejects.toThrow(/unable to verify|self.signed/i);
    const plain = await fetch(`http://127.0.0.1:${String(cluster.env.hookPort)}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    expect(plain).not.toBe(200);
    expect((await call('/readyz', { method: 'GET', clientCert: false })).status).toBe(200);
  });

  it("lets Metacontroller, with the chart's caBundle, clientTLS and authorization secretRefs, sync a BareMetalHost", async () => {
    const env = cluster.env;
    const controllers = await chartControllers(env.hookPort);
    const bmh = controllers.find((o) => o.metadata.name === 'ironhook-baremetalhost');
    const webhook = (bmh?.spec as { hooks: { sync: { webhook: Record<string, unknown> } } } | undefined)?.hooks.sync.webhook;
    expect(webhook).toEqual({
      url: `https://127.0.0.1:${String(env.hookPort)}${SYNC}`,
      timeout: '10s',
      caBundle: { secretRef: { name: 'ironhook-hooks-tls', namespace: NAMESPACE, key: 'ca.crt' } },
      clientTLS: { secretRef: { name: 'ironhook-metacontroller-client', namespace: NAMESPACE }, certKey: 'tls.crt', privateKeyKey: 'tls.key' },
      authorization: { type: 'Bearer', secretRef: { name: 'ironhook-hooks-auth', namespace: NAMESPACE, key: 'token' } },
    });
    await apply(env, controllers.map((o) => JSON.stringify(o)).join('\n---\n'));
    const namespace = await createNamespace(env, 'hook-auth');
    await apply(env, HOST, namespace);
    await waitForRequest(env, namespace, 'Register');
    const host = await waitForHost(env, namespace, 'auth-01', { what: 'a provisioning state', check: (v) => (v.status?.provisioning?.state ?? '') !== '' });
    expect(host.status?.provisioning?.state).toBe('registering');
    const synced = await metacontrollerMetric(env.metacontroller.metricsPort, 'metacontroller_sync_requests_total', {
      controller_name: 'ironhook-baremetalhost',
      code: '200',
    });
    expect(synced).toBeGreaterThan(0);
  });

  // After the tests above: every 401 the hook server gave is one of the direct calls, none went to Metacontroller.
  it('logs and counts exactly the refused calls, and never a token', async () => {
    const refused = hookCallLines(401);
    expect(refused).toHaveLength(REFUSED.length);
    for (const line of refused) expect(JSON.parse(line)).toMatchObject({ status: 401, controller: '_unknown', hook: '_unknown', path: SYNC });
    expect(hookCallLines(200).some((line) => line.includes('"controller":"baremetalhost"'))).toBe(true);
    expect(await hookRequests(401)).toBe(REFUSED.length);
    expect(await metacontrollerMetric(cluster.env.metacontroller.metricsPort, 'metacontroller_sync_requests_total', { code: '401' })).toBe(0);
    const logs = cluster.env.processes.map((p) => readFileSync(p.log, 'utf8')).join('\n');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(WRONG_TOKEN);
  });
});

/** A host whose BMC address is loopback: nothing is contacted (no driver pool runs here). */
const HOST = `apiVersion: v1
kind: Secret
metadata: {name: auth-01-bmc-secret}
type: Opaque
stringData: {username: admin, password: e2e-not-a-real-password}
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata: {name: auth-01}
spec:
  online: false
  bootMACAddress: "00:5c:52:31:3a:9c"
  bmc: {address: "ipmi://127.0.0.1:6230", credentialsName: auth-01-bmc-secret}
`;
