// The Redfish client: one per BMC. Authentication (basic/session/auto) with one re-login and
// replay on a 401 during a session, GET-only retries on transient failures, PATCH with If-Match
// and sushy's weak → strong → none downgrade on 412, and task
// monitors for 202. No caching of mutable state: callers GET before they decide, and take
// the ETag from that same GET. Every error leaving this class is a scrubbed BMCError.
import { BMCError } from '../bmc/types.js';
import type { BMCCredentials } from '../bmc/types.js';
import { Authenticator } from './auth.js';
import type { AuthMode } from './auth.js';
import { silentLogger, systemClock } from './clock.js';
import type { Clock, RedfishLogger } from './clock.js';
import { Reason, httpError, permanentError, scrubError } from './errors.js';
import { asResource, text } from './resource.js';
import type { Resource } from './resource.js';
import { followTask, retryAfterMs } from './tasks.js';
import { createHttpTransport } from './transport.js';
import type { HttpMethod, HttpRequest, HttpResponse, HttpTransport } from './transport.js';

const ROOT_PATH = '/redfish/v1/';

export interface RedfishClientOptions {
  /** "https://10.0.0.5:8443", from redfishBaseURL(address). */
  readonly origin: string;
  readonly credentials: BMCCredentials;
  readonly timeoutMs: number;
  readonly insecure: boolean;
  readonly caBundle?: string;
  /** The addresses the network guard checked for the origin's host name (transport.ts). */
  readonly pinnedAddresses?: readonly string[];
  /** Default "auto": a session when offered, basic otherwise. */
  readonly authMode?: AuthMode;
  readonly clock?: Clock;
  readonly logger?: RedfishLogger;
  /** Extra attempts for a GET that failed transiently (not for timeouts). Default 2. */
  readonly getRetries?: number;
  /** Pause between those attempts unless the BMC sends Retry-After. Default 1 s. */
  readonly retryDelayMs?: number;
  /** Upper bound for following a task monitor. Default 10 minutes. */
  readonly taskTimeoutMs?: number;
  /** Replaces the undici transport (tests). */
  readonly transport?: HttpTransport;
}

export interface RedfishResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Resource | undefined;
  /** The ETag header, or the body's @odata.etag. */
  readonly etag: string | undefined;
}

/** A resource as read, with the ETag to send back when changing it. */
export interface Loaded {
  readonly path: string;
  readonly resource: Resource;
  readonly etag: string | undefined;
}

/** The If-Match values to try in order after each 412: as read, strong form of a weak one, none. */
export function ifMatchSequence(etag: string | undefined): (string | undefined)[] {
  if (etag === undefined) {
    return [undefined];
  }
  return etag.startsWith('W/') ? [etag, etag.slice(2), undefined] : [etag, undefined];
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function retryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

function retryableError(error: unknown): boolean {
  return error instanceof BMCError && error.kind === 'Transient' && error.reason !== Reason.Timeout;
}

function wrap(response: HttpResponse): RedfishResponse {
  const body = asResource(response.body);
  return { status: response.status, headers: response.headers, body, etag: response.headers.etag ?? text(body, '@odata.etag') };
}

export class RedfishClient {
  private readonly transport: HttpTransport;
  private readonly auth: Authenticator;
  private readonly clock: Clock;
  private readonly logger: RedfishLogger;
  private serviceRoot: Resource | undefined;

  constructor(private readonly options: RedfishClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.transport = options.transport ?? createHttpTransport(options);
    this.auth = new Authenticator({
      transport: this.transport,
      credentials: options.credentials,
      mode: options.authMode ?? 'auto',
      logger: this.logger,
      root: async () => this.loadRoot(),
    });
  }

  /** "basic" or "session" once a request has been authenticated. */
  get authKind(): 'none' | 'basic' | 'session' {
    return this.auth.kind;
  }

  /** The service root (read once; it describes the service, not mutable state). */
  async root(): Promise<Resource> {
    return this.guard(async () => this.loadRoot());
  }

  async get(path: string): Promise<RedfishResponse> {
    return this.guard(async () => this.checked(await this.getWithRetries(path), 'GET', path));
  }

  async load(path: string): Promise<Loaded> {
    const response = await this.get(path);
    if (response.body === undefined) {
      throw this.scrub(permanentError(Reason.Protocol, `GET ${path}: the BMC answered without a JSON body`));
    }
    return { path, resource: response.body, etag: response.etag };
  }

  /** POST (actions); a 202 is followed to the end of its task. `body` undefined sends none. */
  async post(path: string, body?: unknown): Promise<RedfishResponse> {
    return this.guard(async () => this.finish(await this.authed({ method: 'POST', path, body }), 'POST', path));
  }

  /** PATCH with If-Match `etag`, downgraded weak → strong → none on 412, each step logged. */
  async patch(path: string, body: unknown, etag: string | undefined): Promise<RedfishResponse> {
    return this.guard(async () => {
      const sequence = ifMatchSequence(etag);
      for (const [index, candidate] of sequence.entries()) {
        const headers: Record<string, string> = candidate === undefined ? {} : { 'if-match': candidate };
        const response = await this.authed({ method: 'PATCH', path, body, headers });
        if (response.status !== 412 || index === sequence.length - 1) {
          return this.finish(response, 'PATCH', path);
        }
        const next = sequence[index + 1];
        this.logger.warn({ path, ifMatch: candidate, next: next ?? 'none' }, 'Redfish PATCH got 412, retrying with a weaker If-Match');
      }
      throw permanentError(Reason.Protocol, `PATCH ${path}: no attempt made`);
    });
  }

  async delete(path: string): Promise<RedfishResponse> {
    return this.guard(async () => this.checked(await this.authed({ method: 'DELETE', path }), 'DELETE', path));
  }

  /** Deletes the session (if any) and closes the connections. */
  async close(): Promise<void> {
    await this.auth.logout();
    await this.transport.close();
  }

  private scrub(error: BMCError): BMCError {
    return scrubError(error, this.auth.secrets());
  }

  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw error instanceof BMCError ? this.scrub(error) : error;
    }
  }

  private async loadRoot(): Promise<Resource> {
    if (this.serviceRoot !== undefined) {
      return this.serviceRoot;
    }
    const response = await this.retrying(ROOT_PATH, async () => this.rootOnce());
    const root = asResource(this.checked(response, 'GET', ROOT_PATH).body);
    if (root === undefined) {
      throw permanentError(Reason.Protocol, `GET ${ROOT_PATH}: the service root is not a JSON object`);
    }
    this.serviceRoot = root;
    return root;
  }

  private async rootOnce(): Promise<HttpResponse> {
    const response = await this.transport.send({ method: 'GET', path: ROOT_PATH });
    if (response.status !== 401 && response.status !== 403) {
      return response;
    }
    // The root should be public; a few BMCs want credentials anyway.
    return this.transport.send({ method: 'GET', path: ROOT_PATH, headers: this.basicHeader() });
  }

  private basicHeader(): Record<string, string> {
    const { username, password } = this.options.credentials;
    return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
  }

  /** Sends with auth; a 401/403 during a session triggers one re-login and one replay. */
  private async authed(request: HttpRequest): Promise<HttpResponse> {
    await this.auth.ensure();
    const response = await this.transport.send({ ...request, headers: { ...request.headers, ...this.auth.headers() } });
    if ((response.status !== 401 && response.status !== 403) || !(await this.auth.refresh())) {
      return response;
    }
    return this.transport.send({ ...request, headers: { ...request.headers, ...this.auth.headers() } });
  }

  private async getWithRetries(path: string): Promise<HttpResponse> {
    return this.retrying(path, async () => this.authed({ method: 'GET', path }));
  }

  /** Runs an idempotent read, repeating it after transient failures (never after a timeout). */
  private async retrying(path: string, read: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const retries = this.options.getRetries ?? 2;
    for (let attempt = 0; ; attempt += 1) {
      let wait = this.options.retryDelayMs ?? 1_000;
      try {
        const response = await read();
        if (!retryableStatus(response.status) || attempt >= retries) {
          return response;
        }
        const retryAfter = response.headers['retry-after'];
        wait = retryAfter === undefined ? wait : retryAfterMs(retryAfter, this.clock.now());
        this.logger.debug({ path, status: response.status, attempt }, 'Redfish GET failed, retrying');
      } catch (error) {
        if (!retryableError(error) || attempt >= retries) {
          throw error;
        }
        this.logger.debug({ path, reason: (error as BMCError).reason, attempt }, 'Redfish GET failed, retrying');
      }
      await this.clock.sleep(wait);
    }
  }

  private checked(response: HttpResponse, method: HttpMethod, path: string): RedfishResponse {
    if (!isSuccess(response.status)) {
      throw httpError(response.status, response.body, `${method} ${path}`);
    }
    return wrap(response);
  }

  private async finish(response: HttpResponse, method: HttpMethod, path: string): Promise<RedfishResponse> {
    const checked = this.checked(response, method, path);
    const done = await followTask(response, `${method} ${path}`, {
      clock: this.clock,
      timeoutMs: this.options.taskTimeoutMs ?? 600_000,
      get: async (monitor) => this.getWithRetries(monitor),
    });
    return done === response ? checked : wrap(done);
  }
}
