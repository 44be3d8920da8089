// A small dynamic REST client for the Cluster API requests: any group/version/resource, raw JSON
// bodies, any patch content type (application/json-patch+json above all), a per-call timeout.
// Configuration and credentials come from @kubernetes/client-node's KubeConfig, so the
// management cluster (the pool's kubeconfig) and a workload cluster (a `<cluster>-kubeconfig`
// Secret) are reached the same way. TLS verification is never turned off.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';

/** A non-2xx answer, with the Status reason, message and causes when the server sent a Status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The call did not answer within the client's timeout. */
export class RequestTimeout extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${String(Math.round(ms / 1000))}s`);
    this.name = 'RequestTimeout';
  }
}

export const statusCode = (error: unknown): number | undefined => (error instanceof ApiError ? error.code : undefined);
export const isNotFound = (error: unknown): boolean => statusCode(error) === 404;
export const isConflict = (error: unknown): boolean => statusCode(error) === 409;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
  details?: { causes?: { message?: unknown; field?: unknown }[] };
}

function causesOf(status: StatusBody): string[] {
  return (status.details?.causes ?? []).map((cause) => [cause.field, cause.message].filter((part) => typeof part === 'string' && part !== '').join(': '));
}

function apiErrorFrom(code: number, text: string): ApiError {
  try {
    const status = JSON.parse(text) as StatusBody;
    if (status.kind === 'Status') {
      return new ApiError(code, typeof status.reason === 'string' ? status.reason : '', typeof status.message === 'string' ? status.message : text, causesOf(status));
    }
  } catch {
    // Not a Status object: keep the raw text, shortened.
  }
  return new ApiError(code, '', `HTTP ${String(code)}: ${text.slice(0, 500)}`);
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface RestClientOptions {
  /** Budget of one call, connection to last byte. */
  timeoutMs: number;
  userAgent?: string;
}

export class RestClient {
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly secure: boolean;

  private constructor(
    private readonly config: KubeConfig,
    readonly server: string,
    base: RequestOptions,
    private readonly options: RestClientOptions,
  ) {
    this.secure = server.startsWith('https:');
    // rejectUnauthorized is forced on: a kubeconfig asking to skip verification is not honoured.
    const tls = { ca: base.ca, cert: base.cert, key: base.key, servername: base.servername, rejectUnauthorized: true };
    this.agent = this.secure ? new HttpsAgent({ keepAlive: true, ...tls }) : new HttpAgent({ keepAlive: true });
  }

  static async create(config: KubeConfig, options: RestClientOptions): Promise<RestClient> {
    const cluster = config.getCurrentCluster();
    if (cluster === null) {
      throw new Error('the kubeconfig has no current cluster');
    }
    const base: RequestOptions = {};
    await config.applyToHTTPSOptions(base);
    return new RestClient(config, cluster.server.replace(/\/$/u, ''), base, options);
  }

  /** Headers with fresh credentials (exec and token-file users may rotate them). */
  private async headers(contentType: string | undefined): Promise<Record<string, string>> {
    const options: RequestOptions = {};
    await this.config.applyToHTTPSOptions(options);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent ?? 'ironhook-driver-pool' };
    for (const [key, value] of Object.entries(options.headers ?? {})) {
      headers[key.toLowerCase()] = String(value);
    }
    if (typeof options.auth === 'string') {
      headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    }
    if (contentType !== undefined) {
      headers['content-type'] = contentType;
    }
    return headers;
  }

  private url(spec: RequestSpec): URL {
    const url = new URL(this.server + spec.path);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) {
        url.searchParams.set(key, value);
      }
    }
    return url;
  }

  async request<T = unknown>(spec: RequestSpec): Promise<T> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers = await this.headers(payload === undefined ? undefined : (spec.contentType ?? 'application/json'));
    if (payload !== undefined) {
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const { code, text } = await this.send(spec, headers, payload);
    if (code < 200 || code > 299) {
      throw apiErrorFrom(code, text);
    }
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  private send(spec: RequestSpec, headers: Record<string, string>, payload: string | undefined): Promise<{ code: number; text: string }> {
    const send = this.secure ? httpsRequest : httpRequest;
    const what = `${spec.method} ${spec.path}`;
    // A deadline for the whole call (connect to last byte); its abort surfaces as a timeout, never as
    // a cancellation of the request.
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    return new Promise((resolve, reject) => {
      const req = send(this.url(spec), { method: spec.method, headers, agent: this.agent, signal: deadline }, (response) => {
        readBody(response).then((text) => {
          resolve({ code: response.statusCode ?? 0, text });
        }, (error: unknown) => {
          reject(deadline.aborted || !(error instanceof Error) ? new RequestTimeout(what, this.options.timeoutMs) : error);
        });
      });
      req.on('error', (error) => {
        reject(deadline.aborted ? new RequestTimeout(what, this.options.timeoutMs) : error);
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
