// Agent TLS (agent_verify_ca), as IPA's enable_auto_tls and Ironic: what a heartbeat may send
// (PEM certificates, ≤ 16384 characters, API ≥ 1.68), that it is fixed with the callback URL
// until a re-arm, that it survives a restart in both stores, and that the client trusts only it
// for an https agent: real HTTPS servers on 127.0.0.1 with certificates made by openssl.
import { once } from 'node:events';
import { createServer as createHTTPServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHTTPSServer } from 'node:https';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOpenssl } from '../../devenv/tls.js';
import { createAgentAPI } from '../../drivers/agent/api.js';
import { AgentClient, type AgentEndpoint } from '../../drivers/agent/client.js';
import type { JSONRequest } from '../../drivers/agent/http.js';
import { SecretAgentStateStore } from '../../drivers/agent/secret-store.js';
import { IronhookAgentService } from '../../drivers/agent/service.js';
import { AgentState } from '../../drivers/agent/state.js';
import { MemoryAgentStateStore, type AgentStateStore } from '../../drivers/agent/store.js';
import { certificateErrorCode, checkAgentVerifyCA, MAX_VERIFY_CA_LENGTH, PinnedDispatchers } from '../../drivers/agent/tls.js';
import { agentCertificate, type AgentCertificate } from '../../emulators/agent/tls.js';
import { fakeSecretsAPI } from '../support/fake-secrets.js';

const HOST = { namespace: 'metal3', name: 'server-01', uid: '6f3c8a1e-0000-4000-8000-000000000001' };
const MACS = ['00:11:22:33:44:55'];
const CALLBACK = 'https://127.0.0.1:9999';
const TOKEN = 'canary-token-0123456789-abcdefghijklmnop';

const faultstring = (res: { body: unknown }): string =>
  (JSON.parse((res.body as { error_message: string }).error_message) as { faultstring: string }).faultstring;

/** The agent's own certificate (a), another agent's (b), and one for an address the agent does not serve on. */
let a: AgentCertificate;
let b: AgentCertificate;
let elsewhere: AgentCertificate;

describe('agent TLS', () => {
  beforeAll(requireOpenssl);
  beforeAll(async () => {
    [a, b, elsewhere] = await Promise.all([agentCertificate('127.0.0.1'), agentCertificate('127.0.0.1'), agentCertificate('10.9.9.9')]);
  });

  describe('heartbeat: agent_verify_ca validation', () => {
    function api() {
      const state = new AgentState(() => 1_000);
      const token = state.arm(HOST, MACS).token;
      return { state, token, app: createAgentAPI({ state }) };
    }

    interface Row {
      name: string;
      ca: () => unknown;
      version?: string;
      token?: string;
      status: number;
      error?: string;
      recorded: () => string | undefined;
    }
    const rows: Row[] = [
      { name: 'valid PEM', ca: () => a.cert, status: 202, recorded: () => a.cert },
      {
        name: 'CRLF line ends and whitespace around: recorded normalised',
        ca: () => `\n  ${a.cert.replace(/\n/g, '\r\n')}  \n`,
        status: 202,
        recorded: () => a.cert,
      },
      { name: 'a bundle of two certificates', ca: () => `${a.cert}${b.cert}`, status: 202, recorded: () => `${a.cert}${b.cert}` },
      { name: 'exactly 16384 characters', ca: () => a.cert.padEnd(MAX_VERIFY_CA_LENGTH, ' '), status: 202, recorded: () => a.cert },
      { name: 'null: not sent', ca: () => null, status: 202, recorded: () => undefined },
      { name: 'garbage', ca: () => 'not a certificate', status: 400, error: 'PEM-encoded X.509', recorded: () => undefined },
      {
        name: 'PEM armour around garbage',
        ca: () => '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
        status: 400,
        error: 'PEM-encoded X.509',
        recorded: () => undefined,
      },
      { name: 'a certificate followed by garbage', ca: () => `${a.cert}trailing`, status: 400, error: 'PEM-encoded X.509', recorded: () => undefined },
      { name: 'a private key', ca: () => a.key, status: 400, error: 'PEM-encoded X.509', recorded: () => undefined },
      { name: 'empty string', ca: () => '', status: 400, error: 'PEM-encoded X.509', recorded: () => undefined },
      {
        name: 'too long (16385 characters)',
        ca: () => a.cert.padEnd(MAX_VERIFY_CA_LENGTH + 1, ' '),
        status: 400,
        error: 'at most 16384',
        recorded: () => undefined,
      },
      { name: 'non-string: a number', ca: () => 42, status: 400, error: 'must be a string', recorded: () => undefined },
      { name: 'non-string: a list', ca: () => [a.cert], status: 400, error: 'must be a string', recorded: () => undefined },
      {
        name: 'API 1.67 with a certificate',
        ca: () => a.cert,
        version: '1.67',
        status: 400,
        error: 'not recognised in this version',
        recorded: () => undefined,
      },
      { name: 'API 1.67 without one', ca: () => undefined, version: '1.67', status: 202, recorded: () => undefined },
      { name: 'API latest', ca: () => a.cert, version: 'latest', status: 202, recorded: () => a.cert },
      { name: 'wrong token: 401 before the certificate is looked at', ca: () => 'garbage', token: TOKEN, status: 401, recorded: () => undefined },
    ];

    it.each(rows)('$name → $status', async (row) => {
      const { state, token, app } = api();
      let req = request(app).post(`/v1/heartbeat/${HOST.uid}`);
      if (row.version !== undefined) req = req.set('X-OpenStack-Ironic-API-Version', row.version);
      const ca = row.ca();
      const res = await req.send({ callback_url: CALLBACK, agent_token: row.token ?? token, ...(ca === undefined ? {} : { agent_verify_ca: ca }) });
      expect(res.status).toBe(row.status);
      if (row.error !== undefined) expect(faultstring(res)).toContain(row.error);
      expect(res.text).not.toContain('PRIVATE KEY');
      expect(state.get(HOST)?.agentVerifyCA).toBe(row.recorded());
      expect(state.get(HOST)?.callbackURL).toBe(row.status === 202 ? CALLBACK : undefined);
    });

    interface Step {
      ca?: () => string;
      rearm?: true;
      status?: number;
    }
    const sequences: { name: string; steps: Step[]; recorded: () => string | undefined }[] = [
      {
        name: 'the same certificate again (other whitespace) → 202',
        steps: [
          { ca: () => a.cert, status: 202 },
          { ca: () => `\n${a.cert}\n\n`, status: 202 },
        ],
        recorded: () => a.cert,
      },
      {
        name: 'a different certificate → 409, the first stays',
        steps: [
          { ca: () => a.cert, status: 202 },
          { ca: () => b.cert, status: 409 },
        ],
        recorded: () => a.cert,
      },
      {
        name: 'a certificate after a first heartbeat without one → 409',
        steps: [{ status: 202 }, { ca: () => a.cert, status: 409 }],
        recorded: () => undefined,
      },
      {
        name: 'a later heartbeat without one keeps the recorded one → 202',
        steps: [{ ca: () => a.cert, status: 202 }, { status: 202 }],
        recorded: () => a.cert,
      },
      { name: 're-arming forgets it', steps: [{ ca: () => a.cert, status: 202 }, { rearm: true }], recorded: () => undefined },
      {
        name: 're-armed, the new agent brings another certificate → 202',
        steps: [{ ca: () => a.cert, status: 202 }, { rearm: true }, { ca: () => b.cert, status: 202 }],
        recorded: () => b.cert,
      },
    ];

    it.each(sequences)('$name', async ({ steps, recorded }) => {
      const setup = api();
      let token = setup.token;
      for (const step of steps) {
        if (step.rearm === true) {
          token = setup.state.arm(HOST, MACS).token;
          continue;
        }
        const res = await request(setup.app)
          .post(`/v1/heartbeat/${HOST.uid}`)
          .send({ callback_url: CALLBACK, agent_token: token, ...(step.ca === undefined ? {} : { agent_verify_ca: step.ca() }) });
        expect(res.status).toBe(step.status);
        if (res.status === 409) expect(faultstring(res)).toContain('agent_verify_ca');
      }
      expect(setup.state.get(HOST)?.agentVerifyCA).toBe(recorded());
    });

    it('checkAgentVerifyCA and certificateErrorCode', () => {
      expect(checkAgentVerifyCA(a.cert)).toEqual({ ok: true, pem: a.cert });
      expect(checkAgentVerifyCA(undefined)).toMatchObject({ ok: false });
      const nested = new Error('fetch failed', { cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }) });
      expect(certificateErrorCode(nested)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(certificateErrorCode(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    });
  });

  describe('persistence: the certificate survives a pool restart', () => {
    const stores: { name: string; make: () => { store: AgentStateStore; tamper?: () => void } }[] = [
      { name: 'MemoryAgentStateStore', make: () => ({ store: new MemoryAgentStateStore() }) },
      {
        name: 'SecretAgentStateStore',
        make: () => {
          const fake = fakeSecretsAPI();
          const tamper = (): void => {
            const secret = [...fake.secrets.values()][0]!;
            const record = JSON.parse(Buffer.from(secret.data.record!, 'base64').toString()) as Record<string, unknown>;
            secret.data.record = Buffer.from(JSON.stringify({ ...record, agentVerifyCA: 'not a certificate' })).toString('base64');
          };
          return { store: new SecretAgentStateStore(fake.api), tamper };
        },
      },
    ];

    async function armedWithCertificate(store: AgentStateStore) {
      const state = new AgentState();
      const service = new IronhookAgentService({ state, apiURL: 'http://127.0.0.1:6385', store });
      const { token } = await service.expect(HOST, MACS);
      expect(state.heartbeat(HOST.uid, { callbackURL: CALLBACK, token, agentVerifyCA: a.cert }).kind).toBe('accepted');
      await service.flush();
      return { state, service };
    }

    it.each(stores)('$name: saved with the callback URL, restored, dropped by a re-arm', async ({ make }) => {
      const { store } = make();
      await armedWithCertificate(store);
      expect(await store.list()).toEqual([expect.objectContaining({ callbackURL: CALLBACK, agentVerifyCA: a.cert })]);

      const requests: JSONRequest[] = [];
      const client = new AgentClient({
        transport: (req) => {
          requests.push(req);
          const done = { id: 'c1', command_name: 'execute_clean_step', command_status: 'SUCCEEDED', command_error: null, command_result: null };
          return Promise.resolve({ status: 200, body: req.method === 'GET' ? { commands: [] } : done });
        },
      });
      const state = new AgentState();
      const restarted = new IronhookAgentService({ state, apiURL: 'http://127.0.0.1:6385', store, client });
      expect(await restarted.restore()).toBe(1);
      expect(state.get(HOST)?.agentVerifyCA).toBe(a.cert);
      await restarted.eraseDevicesMetadata({ ...HOST, callbackURL: CALLBACK });
      expect(requests.map((req) => `${req.method} ${req.ca === a.cert ? 'pinned' : 'unpinned'}`)).toEqual(['GET pinned', 'POST pinned']);

      await restarted.expect(HOST, MACS);
      await restarted.flush();
      expect((await store.list())[0]?.agentVerifyCA).toBeUndefined();
    });

    it('SecretAgentStateStore: a stored certificate that does not parse is dropped on restore', async () => {
      const { store, tamper } = stores[1]!.make();
      await armedWithCertificate(store);
      tamper?.();
      const [record] = await store.list();
      expect(record).toMatchObject({ callbackURL: CALLBACK });
      expect(record?.agentVerifyCA).toBeUndefined();
    });
  });

  describe('client: the recorded certificate is the only one trusted', () => {
    const servers: Server[] = [];
    const hits = new Map<string, number>();
    const urls: Record<'agent' | 'elsewhere' | 'plain', string> = { agent: '', elsewhere: '', plain: '' };
    const dispatchers = new PinnedDispatchers();

    const commands: RequestListener = (req, res) => {
      const origin = `${req.socket.localPort ?? 0}`;
      hits.set(origin, (hits.get(origin) ?? 0) + 1);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') res.end(JSON.stringify({ commands: [] }));
      else res.end(JSON.stringify({ id: 'c1', command_name: 'execute_clean_step', command_status: 'SUCCEEDED', command_error: null, command_result: null }));
    };

    async function listen(server: Server, scheme: string): Promise<string> {
      servers.push(server);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const address = server.address();
      return `${scheme}://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    }

    beforeAll(async () => {
      urls.agent = await listen(createHTTPSServer({ key: a.key, cert: a.cert }, commands), 'https');
      urls.elsewhere = await listen(createHTTPSServer({ key: elsewhere.key, cert: elsewhere.cert }, commands), 'https');
      urls.plain = await listen(createHTTPServer(commands), 'http');
    });

    afterAll(async () => {
      await dispatchers.close();
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    });

    const client = (): AgentClient => new AgentClient({ dispatchers, commandTimeoutMs: 5_000, pollIntervalMs: 1, sleep: () => Promise.resolve() });
    const endpoint = (server: keyof typeof urls, verifyCA: (() => string) | undefined): AgentEndpoint => ({
      callbackURL: urls[server],
      token: TOKEN,
      ...(verifyCA === undefined ? {} : { verifyCA: verifyCA() }),
    });

    const rows: { name: string; server: keyof typeof urls; ca: (() => string) | undefined; fails?: string }[] = [
      { name: "pinned to the agent's certificate → lists its commands", server: 'agent', ca: () => a.cert },
      { name: "a bundle holding the agent's certificate → lists its commands", server: 'agent', ca: () => `${elsewhere.cert}${a.cert}` },
      { name: 'pinned to another certificate → AgentTLSFailed', server: 'agent', ca: () => b.cert, fails: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
      {
        name: 'no recorded certificate, self-signed → AgentTLSFailed (system CAs, verification on)',
        server: 'agent',
        ca: undefined,
        fails: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      },
      {
        name: 'pinned, but the certificate names another address → AgentTLSFailed (hostname check on)',
        server: 'elsewhere',
        ca: () => elsewhere.cert,
        fails: 'ERR_TLS_CERT_ALTNAME_INVALID',
      },
      { name: 'plain http: the recorded certificate does not matter', server: 'plain', ca: () => b.cert },
    ];

    it.each(rows)('$name', async ({ server, ca, fails }) => {
      const listing = client().list(endpoint(server, ca));
      if (fails === undefined) {
        await expect(listing).resolves.toEqual([]);
        return;
      }
      const err = await listing.catch((caught: unknown) => caught);
      expect(err).toMatchObject({ name: 'AgentError', reason: 'AgentTLSFailed', kind: 'Transient' });
      const message = (err as Error).message;
      expect(message).toContain(new URL(urls[server]).host);
      expect(message).toContain('certificate');
      expect(message).toContain(fails);
      expect(message).not.toContain(TOKEN);
    });

    it('a certificate failure sends nothing and is not retried', async () => {
      const port = new URL(urls.agent).port;
      const before = hits.get(port) ?? 0;
      const sleeps: number[] = [];
      const sleep = (ms: number): Promise<void> => {
        sleeps.push(ms);
        return Promise.resolve();
      };
      const strict = new AgentClient({ dispatchers, pollIntervalMs: 1, sleep });
      await expect(
        strict.send(
          endpoint('agent', () => b.cert),
          'clean.execute_clean_step',
          {},
        ),
      ).rejects.toMatchObject({ reason: 'AgentTLSFailed' });
      expect(hits.get(port) ?? 0).toBe(before);
      expect(sleeps).toEqual([]);
    });

    it('one dispatcher per certificate, closed once no host records it', async () => {
      const pool = new PinnedDispatchers();
      const first = pool.for(a.cert);
      expect(pool.for(a.cert)).toBe(first);
      const other = pool.for(b.cert);
      expect(pool.size()).toBe(2);
      await pool.retain(new Set([a.cert]));
      expect([pool.size(), other.closed, first.closed]).toEqual([1, true, false]);
      await pool.close();
      expect([pool.size(), first.closed]).toEqual([0, true]);
    });

    it('AgentService: commands go to the agent over its pinned certificate; re-arm and forget close the dispatcher', async () => {
      const pinned = new PinnedDispatchers();
      const state = new AgentState();
      const agentClient = new AgentClient({ dispatchers: pinned, pollIntervalMs: 1, sleep: () => Promise.resolve() });
      const service = new IronhookAgentService({ state, apiURL: 'http://127.0.0.1:6385', client: agentClient });
      const heartbeat = async (ca: string): Promise<void> => {
        const { token } = await service.expect(HOST, MACS);
        expect(state.heartbeat(HOST.uid, { callbackURL: urls.agent, token, agentVerifyCA: ca }).kind).toBe('accepted');
      };

      await heartbeat(a.cert);
      const handle = await service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1_000 });
      await service.eraseDevicesMetadata(handle);
      expect(pinned.size()).toBe(1);

      await heartbeat(b.cert);
      expect(pinned.size()).toBe(0);
      await expect(service.eraseDevicesMetadata(handle)).rejects.toMatchObject({ reason: 'AgentTLSFailed' });
      expect(pinned.size()).toBe(1);

      service.forget(HOST);
      expect(pinned.size()).toBe(0);
      await agentClient.close();
    });
  });
});
