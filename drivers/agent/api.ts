// The "Ironic" API an IPA-compatible agent calls: version
// documents, lookup, heartbeat and the in-band inspection callback. Pure wiring over
// AgentState; no listening here (server.ts), testable with supertest.
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { pino, type Logger } from 'pino';
import type { AgentHostRef } from './port.js';
import { agentNode, type AgentState, type HeartbeatOutcome, type InspectionOutcome, type LookupOutcome } from './state.js';
import { hardwareFromInventory, inventoryMACs } from './inventory.js';
import { ipxeRouter, type PXEBootConfig } from './ipxe.js';

/** The API version Ironhook reports; IPA needs ≥ 1.62 for tokens and ≥ 1.68 for agent_verify_ca. */
export const API_VERSION = '1.68';
const MIN_API_VERSION = '1.1';
/** Ironic takes agent_verify_ca in a heartbeat from this version on. */
const VERIFY_CA_VERSION = '1.68';
/** Ironic's default: IPA heartbeats every 0.3–0.6 of this. */
export const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS = 300;
const BODY_LIMIT = '8mb';
const VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
const TOKEN_HEADER = 'x-openstack-ironic-agent-token';

export interface AgentAPIOptions {
  state: AgentState;
  logger?: Logger;
  heartbeatTimeoutSeconds?: number;
  /** Serve iPXE scripts for agent boots over the network (GET /boot.ipxe, /ipxe/<mac>). */
  pxe?: PXEBootConfig & { apiURL: string };
  /**
   * Resolves once what the state holds for the host is stored (with the error when it is not):
   * the inspection callback is answered only then, so accepted data survives a restart.
   */
  saved?: (host: AgentHostRef) => Promise<unknown>;
}

function versionParts(version: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/** True when `requested` (e.g. "1.68") is a version between the minimum and Ironhook's. */
export function versionSupported(requested: string): boolean {
  const wanted = versionParts(requested);
  const [major, minor] = versionParts(API_VERSION) ?? [1, 0];
  return wanted !== undefined && wanted[0] === major && wanted[1] >= 1 && wanted[1] <= minor;
}

/** True when the (supported) version `version` is `least` or newer. */
function versionAtLeast(version: string, least: string): boolean {
  const [major, minor] = versionParts(version) ?? [0, 0];
  const [leastMajor, leastMinor] = versionParts(least) ?? [0, 0];
  return major > leastMajor || (major === leastMajor && minor >= leastMinor);
}

/** Ironic's error body: error_message is a JSON string with faultstring. */
function fail(res: Response, status: number, message: string): void {
  const faultcode = status >= 500 ? 'Server' : 'Client';
  res.status(status).json({ error_message: JSON.stringify({ faultstring: message, faultcode, debuginfo: null }) });
}

const negotiate: RequestHandler = (req, res, next) => {
  res.setHeader('X-OpenStack-Ironic-API-Minimum-Version', MIN_API_VERSION);
  res.setHeader('X-OpenStack-Ironic-API-Maximum-Version', API_VERSION);
  const requested = req.get(VERSION_HEADER);
  const version = requested === undefined || requested === 'latest' ? API_VERSION : requested;
  if (!versionSupported(version)) {
    fail(
      res,
      406,
      `Version ${version} was requested but the minor version is not supported by this service. The supported version range is: [${MIN_API_VERSION}, ${API_VERSION}].`,
    );
    return;
  }
  res.setHeader(VERSION_HEADER, version);
  res.setHeader('Vary', VERSION_HEADER);
  res.locals.apiVersion = version;
  next();
};

function link(req: Request, path: string): { href: string; rel: string } {
  return { href: `${req.protocol}://${req.get('host') ?? 'localhost'}${path}`, rel: 'self' };
}

function versionDocument(req: Request): Record<string, unknown> {
  return { id: 'v1', links: [link(req, '/v1/')], status: 'CURRENT', min_version: MIN_API_VERSION, version: API_VERSION };
}

function rootDocument(req: Request): Record<string, unknown> {
  const version = versionDocument(req);
  return { name: 'OpenStack Ironic API', description: 'Ironhook agent API (IPA-compatible subset)', default_version: version, versions: [version] };
}

function v1Document(req: Request): Record<string, unknown> {
  return {
    id: 'v1',
    links: [link(req, '/v1/')],
    media_types: [{ base: 'application/json', type: 'application/vnd.openstack.ironic.v1+json' }],
    version: versionDocument(req),
    lookup: [link(req, '/v1/lookup/')],
    heartbeat: [link(req, '/v1/heartbeat/')],
  };
}

function queryText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function addressesOf(req: Request): string[] {
  return (queryText(req.query.addresses) ?? '').split(',').filter((part) => part !== '');
}

function lookupBody(outcome: Extract<LookupOutcome, { kind: 'found' }>, heartbeatTimeout: number): Record<string, unknown> {
  return {
    node: agentNode(outcome.entry),
    config: {
      heartbeat_timeout: heartbeatTimeout,
      agent_token: outcome.token,
      agent_token_required: true,
      agent_md5_checksum_enable: false,
    },
  };
}

function handleLookup(options: Required<Pick<AgentAPIOptions, 'heartbeatTimeoutSeconds'>> & { state: AgentState; logger: Logger }): RequestHandler {
  return (req, res) => {
    const outcome = options.state.lookup(addressesOf(req), queryText(req.query.node_uuid));
    res.setHeader('Cache-Control', 'no-store');
    if (outcome.kind === 'bad-request') {
      fail(res, 400, outcome.message);
      return;
    }
    if (outcome.kind !== 'found') {
      options.logger.debug({ result: outcome.kind, macCount: addressesOf(req).length }, 'agent lookup did not match an armed host');
      fail(res, outcome.kind === 'ambiguous' ? 409 : 404, outcome.kind === 'ambiguous' ? 'More than one armed host matches these addresses' : 'Node not found');
      return;
    }
    const { namespace, name } = outcome.entry;
    options.logger.info({ namespace, name, tokenHandedOut: outcome.token !== '******' }, 'agent looked up');
    res.status(200).json(lookupBody(outcome, options.heartbeatTimeoutSeconds));
  };
}

function tokenOf(req: Request, body: Record<string, unknown>): unknown {
  return body.agent_token ?? req.get(TOKEN_HEADER);
}

function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

const HEARTBEAT_REJECTIONS: Record<Exclude<HeartbeatOutcome['kind'], 'accepted' | 'bad-request'>, [number, string]> = {
  'unknown-node': [404, 'Node not found or not armed for an agent'],
  'token-invalid': [401, 'Invalid or missing agent token received.'],
  'callback-changed': [409, 'Agent callback URL changed; the host must be re-armed'],
  'ca-changed': [409, 'Agent TLS certificate (agent_verify_ca) changed; the host must be re-armed'],
};

function replyHeartbeat(res: Response, outcome: HeartbeatOutcome, logger: Logger): void {
  if (outcome.kind === 'accepted') {
    const { namespace, name, callbackURL, agentVerifyCA } = outcome.entry;
    logger[outcome.first ? 'info' : 'debug']({ namespace, name, callbackURL, pinnedCertificate: agentVerifyCA !== undefined }, 'agent heartbeat');
    res.status(202).end();
    return;
  }
  if (outcome.kind === 'bad-request') {
    fail(res, 400, outcome.message);
    return;
  }
  const [status, message] = HEARTBEAT_REJECTIONS[outcome.kind];
  logger.warn({ reason: outcome.kind }, 'agent heartbeat rejected');
  fail(res, status, message);
}

/** As Ironic: agent_verify_ca is a field of API 1.68; an older request carrying it is refused. */
function verifyCAAllowed(res: Response, body: Record<string, unknown>): boolean {
  const sent = body.agent_verify_ca !== undefined && body.agent_verify_ca !== null;
  return !sent || versionAtLeast(String(res.locals.apiVersion), VERIFY_CA_VERSION);
}

function handleHeartbeat(state: AgentState, logger: Logger): RequestHandler {
  return (req, res) => {
    const body = bodyOf(req);
    if (!verifyCAAllowed(res, body)) {
      fail(res, 400, 'Field "agent_verify_ca" not recognised in this version.');
      return;
    }
    const uuid = String(req.params.uuid);
    const outcome = state.heartbeat(uuid, {
      callbackURL: body.callback_url,
      token: tokenOf(req, body),
      agentVersion: body.agent_version,
      agentVerifyCA: body.agent_verify_ca,
    });
    replyHeartbeat(res, outcome, logger);
  };
}

const INSPECTION_REJECTIONS: Record<Exclude<InspectionOutcome['kind'], 'accepted'>, [number, string]> = {
  'not-found': [404, 'No armed host matches the inventory interfaces'],
  ambiguous: [409, 'More than one armed host matches the inventory interfaces'],
  'token-invalid': [401, 'Invalid or missing agent token received.'],
};

function handleInspection(state: AgentState, logger: Logger, saved: AgentAPIOptions['saved']): RequestHandler {
  return async (req, res) => {
    const body = bodyOf(req);
    if (typeof body.inventory !== 'object' || body.inventory === null) {
      fail(res, 400, 'inspection data must carry an inventory object');
      return;
    }
    const outcome = state.inspection(inventoryMACs(body.inventory), tokenOf(req, body), hardwareFromInventory(body.inventory));
    if (outcome.kind !== 'accepted') {
      const [status, message] = INSPECTION_REJECTIONS[outcome.kind];
      logger.warn({ reason: outcome.kind }, 'inspection data rejected');
      fail(res, status, message);
      return;
    }
    const host = { namespace: outcome.entry.namespace, name: outcome.entry.name };
    if ((await saved?.(host)) !== undefined) {
      // IPA posts again after a 5xx; a 202 for data a restart would lose would leave inspection waiting.
      logger.error(host, 'in-band inspection data received but not stored');
      fail(res, 503, 'inspection data could not be stored; post it again');
      return;
    }
    logger.info(host, 'in-band inspection data received');
    res.status(202).json({ uuid: outcome.entry.uid });
  };
}

/** Body-parser failures (bad JSON, too large) as Ironic-style errors; never echoes the body. */
// express recognises an error handler by its four parameters, so `_next` stays.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const errors: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  const status = typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : 500;
  fail(res, status, status === 500 ? 'internal error' : 'malformed request body');
};

export function createAgentAPI(options: AgentAPIOptions): Express {
  const logger = options.logger ?? pino({ level: 'silent' });
  const heartbeatTimeoutSeconds = options.heartbeatTimeoutSeconds ?? DEFAULT_HEARTBEAT_TIMEOUT_SECONDS;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.pxe !== undefined) app.use(ipxeRouter(options.state, options.pxe, options.pxe.apiURL));
  app.use(negotiate);
  app.get('/', (req, res) => {
    res.json(rootDocument(req));
  });
  app.get(['/v1', '/v1/'], (req, res) => {
    res.json(v1Document(req));
  });
  app.get(['/v1/lookup', '/v1/lookup/'], handleLookup({ state: options.state, logger, heartbeatTimeoutSeconds }));
  const json = express.json({ limit: BODY_LIMIT, type: () => true });
  app.post('/v1/heartbeat/:uuid', json, handleHeartbeat(options.state, logger));
  app.post(['/v1/continue_inspection', '/v1/continue_inspection/'], json, handleInspection(options.state, logger, options.saved));
  app.use((_req, res) => {
    fail(res, 404, 'not found');
  });
  app.use(errors);
  return app;
}
