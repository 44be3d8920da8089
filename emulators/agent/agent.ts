// One boot of the fake agent on one emulated host: it serves /v1/commands on its own loopback
// port (HTTPS with a fresh self-signed certificate by default, as IPA's enable_auto_tls), posts
// the inspection data, looks itself up with the host's MACs against ipa-api-url and heartbeats
// (with agent_verify_ca) until the host powers off. Like IPA, except that a heartbeat rejected
// with 401/404 (the host was re-armed or forgotten) sends it back to lookup instead of retrying.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createTLSServer } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { request } from 'undici';
import { MASKED_TOKEN, tokenMatches } from '../../drivers/agent/tokens.js';
import { CommandBook } from './commands.js';
import { ipaInventoryOf } from './inventory.js';
import { agentCertificate } from './tls.js';
import type { FakeAgentRecord, FakeHostSpec } from './types.js';

const FAKE_AGENT_VERSION = '10.0.0-ironhook-fake';

export interface FakeAgentSettings {
  /** ipa-api-url. */
  apiURL: string;
  listenHost: string;
  /** Fixed heartbeat interval; absent: 0.3–0.6 × the lookup's heartbeat_timeout, as IPA. */
  heartbeatIntervalMs?: number;
  lookupIntervalMs: number;
  /** ipa-lookup-timeout. */
  lookupTimeoutMs: number;
  commandDelayMs: number;
  /** Post the inventory to <api>/v1/continue_inspection before looking up. */
  inspect: boolean;
  allowHosts: readonly string[];
  downloadTimeoutMs: number;
  /** Serve /v1/commands over HTTPS with a self-signed certificate sent as agent_verify_ca. */
  autoTLS: boolean;
  logger: Logger;
}

export interface FakeAgentHooks {
  changed(): void;
  /** The agent stopped itself (power_off): the fleet forgets it. */
  stopped(): void;
}

const API_HEADERS = { 'content-type': 'application/json', 'x-openstack-ironic-api-version': '1.68' };

/** {name, params} of a POST /v1/commands body (params defaults to {}); undefined when malformed. */
function commandBody(raw: unknown): { name: string; params: Record<string, unknown> } | undefined {
  const body = (typeof raw === 'object' && raw !== null ? raw : {}) as { name?: unknown; params?: unknown };
  const params: unknown = body.params ?? {};
  const valid = typeof body.name === 'string' && typeof params === 'object' && params !== null && !Array.isArray(params);
  return valid ? { name: body.name as string, params: params as Record<string, unknown> } : undefined;
}

interface Answer {
  status: number;
  body: unknown;
}

export class FakeAgent {
  private server: Server | undefined;
  private readonly abort = new AbortController();
  private token: string | undefined;
  private heartbeatTimeoutS = 300;
  private inspected = false;
  private running: Promise<void> = Promise.resolve();
  private readonly book: CommandBook;
  private readonly startedAt = new Date().toISOString();
  /** The certificate PEM sent as agent_verify_ca (auto TLS). */
  private verifyCA: string | undefined;
  callbackURL = '';

  constructor(
    private readonly spec: FakeHostSpec,
    private readonly record: FakeAgentRecord,
    private readonly settings: FakeAgentSettings,
    private readonly hooks: FakeAgentHooks,
  ) {
    this.book = new CommandBook({
      spec,
      record,
      delayMs: settings.commandDelayMs,
      allowHosts: settings.allowHosts,
      downloadTimeoutMs: settings.downloadTimeoutMs,
      signal: this.abort.signal,
      changed: () => {
        hooks.changed();
      },
      shutdown: () => {
        void this.powerOffHost();
      },
    });
  }

  /** Plain HTTP, or HTTPS with a certificate for the listen address made for this boot. */
  private async createServer(): Promise<Server> {
    if (!this.settings.autoTLS) return createServer(this.app());
    const { key, cert } = await agentCertificate(this.settings.listenHost);
    this.verifyCA = cert;
    return createTLSServer({ key, cert }, this.app());
  }

  /** Listens, then runs lookup and heartbeats in the background. */
  async start(): Promise<void> {
    const server = await this.createServer();
    this.server = server;
    server.listen(0, this.settings.listenHost);
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    this.callbackURL = `${this.settings.autoTLS ? 'https' : 'http'}://${this.settings.listenHost}:${String(port)}`;
    this.running = this.run().catch((err: unknown) => {
      if (!this.abort.signal.aborted) this.settings.logger.warn({ host: this.spec.id, err: String(err) }, 'fake agent loop failed');
    });
  }

  /** The host lost power: stop everything (answers in flight are cut). */
  async stop(): Promise<void> {
    this.abort.abort(new Error('host powered off'));
    const server = this.server;
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
    await this.running;
  }

  private async powerOffHost(): Promise<void> {
    try {
      await this.spec.powerOff?.();
    } catch (err) {
      this.settings.logger.warn({ host: this.spec.id, err: String(err) }, 'fake agent could not power the host off');
    }
    await this.stop();
    this.hooks.stopped();
  }

  private async run(): Promise<void> {
    for (;;) {
      const nodeUUID = await this.lookupPhase();
      if (nodeUUID === undefined) return;
      await this.heartbeatPhase(nodeUUID);
    }
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer | undefined> {
    try {
      const response = await request(new URL(path, this.settings.apiURL), {
        method,
        headers: { ...API_HEADERS, ...headers },
        signal: this.abort.signal,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.body.text();
      return { status: response.statusCode, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    } catch (err) {
      if (this.abort.signal.aborted) throw err;
      return undefined;
    }
  }

  private async postInspection(): Promise<void> {
    const headers: Record<string, string> = this.token === undefined ? {} : { 'x-openstack-ironic-agent-token': this.token };
    const inventory = ipaInventoryOf(this.spec);
    const answer = await this.call('POST', 'v1/continue_inspection', { inventory, boot_interface: inventory.boot?.pxe_interface }, headers);
    if (answer !== undefined && answer.status < 300) {
      this.inspected = true;
      this.record.inspections += 1;
      this.hooks.changed();
    }
  }

  /** Looks up until found (returns the node UUID), the timeout, or a lockdown. */
  private async lookupPhase(): Promise<string | undefined> {
    const deadline = Date.now() + this.settings.lookupTimeoutMs;
    const addresses = this.spec.nics.map((nic) => nic.mac.toLowerCase()).join(',');
    while (Date.now() < deadline) {
      if (this.settings.inspect && !this.inspected) await this.postInspection();
      const answer = await this.call('GET', `v1/lookup?addresses=${encodeURIComponent(addresses)}`);
      const found = answer?.status === 200 ? this.accept(answer.body) : undefined;
      if (found !== undefined) return 'uuid' in found ? found.uuid : undefined;
      await delay(this.settings.lookupIntervalMs, undefined, { signal: this.abort.signal });
    }
    this.settings.logger.warn({ host: this.spec.id }, 'fake agent lookup timed out');
    return undefined;
  }

  /** The node UUID from a lookup answer; { locked } when it masks a token the agent never had. */
  private accept(body: unknown): { uuid: string } | { locked: true } | undefined {
    const data = (body ?? {}) as { node?: { uuid?: unknown }; config?: { agent_token?: unknown; heartbeat_timeout?: unknown } };
    const uuid = data.node?.uuid;
    if (typeof uuid !== 'string') return undefined;
    this.record.lookups += 1;
    this.takeConfig(data.config ?? {});
    this.hooks.changed();
    if (this.token !== undefined) return { uuid };
    this.record.lockedDown = true;
    return { locked: true };
  }

  private takeConfig(config: { agent_token?: unknown; heartbeat_timeout?: unknown }): void {
    if (typeof config.heartbeat_timeout === 'number') this.heartbeatTimeoutS = config.heartbeat_timeout;
    if (typeof config.agent_token === 'string' && config.agent_token !== MASKED_TOKEN) this.token = config.agent_token;
  }

  private heartbeatInterval(): number {
    return this.settings.heartbeatIntervalMs ?? Math.round(this.heartbeatTimeoutS * 1000 * (0.3 + Math.random() * 0.3));
  }

  /** Heartbeats until the API rejects the token or node (then back to lookup) or the agent stops. */
  private async heartbeatPhase(nodeUUID: string): Promise<void> {
    for (;;) {
      const body = {
        callback_url: this.callbackURL,
        agent_token: this.token,
        agent_version: FAKE_AGENT_VERSION,
        ...(this.verifyCA === undefined ? {} : { agent_verify_ca: this.verifyCA }),
      };
      const answer = await this.call('POST', `v1/heartbeat/${encodeURIComponent(nodeUUID)}`, body);
      if (answer?.status === 202) {
        this.record.heartbeats += 1;
        this.hooks.changed();
      } else if (answer?.status === 401 || answer?.status === 404) {
        return;
      }
      await delay(this.heartbeatInterval(), undefined, { signal: this.abort.signal });
    }
  }

  private authorized(req: Request, res: Response): boolean {
    const token = this.token;
    if (token !== undefined && tokenMatches(req.query.agent_token, token)) return true;
    res.status(401).json({ type: 'InvalidTokenError', code: 401, message: 'Token invalid', details: '' });
    return false;
  }

  private async postCommand(req: Request, res: Response): Promise<void> {
    const body = commandBody(req.body);
    if (body === undefined) {
      res.status(400).json({ type: 'InvalidContentError', code: 400, message: 'name must be a string and params an object' });
      return;
    }
    const outcome = this.book.start(body.name, body.params);
    if (outcome.kind === 'busy') {
      res.status(409).json({ type: 'AgentIsBusy', code: 409, message: 'Agent is busy' });
      return;
    }
    if (outcome.kind === 'unknown') {
      res.status(404).json({ type: 'RequestedObjectNotFoundError', code: 404, message: `Command ${body.name} not found` });
      return;
    }
    const wait = req.query.wait === 'true' || this.book.isSync(body.name);
    res.status(200).json(wait ? await outcome.done : outcome.command);
  }

  private app(): Express {
    const app = express();
    app.disable('x-powered-by');
    app.use(express.json({ limit: '64mb' }));
    const version = { id: 'v1', links: [] };
    app.get(['/', '/v1', '/v1/'], (_req, res) => {
      res.json({ name: 'OpenStack Ironic Python Agent API', versions: [version], default_version: version });
    });
    app.get(['/status', '/v1/status'], (_req, res) => {
      res.json({ started_at: this.startedAt, version: FAKE_AGENT_VERSION });
    });
    app.get(['/v1/commands', '/v1/commands/'], (req, res) => {
      if (this.authorized(req, res)) res.json({ commands: this.book.commands });
    });
    app.get('/v1/commands/:id', (req, res) => {
      if (!this.authorized(req, res)) return;
      const command = this.book.commands.find((candidate) => candidate.id === req.params.id);
      if (command === undefined) res.status(404).json({ type: 'RequestedObjectNotFoundError', code: 404, message: 'Command not found' });
      else res.json(command);
    });
    app.post(['/v1/commands', '/v1/commands/'], (req, res, next) => {
      if (this.authorized(req, res)) this.postCommand(req, res).catch(next);
    });
    return app;
  }
}
