// A dynamic REST client for any group/version/resource: the stand-in's equivalent of client-go's
// dynamic client. Configuration and credentials come from @kubernetes/client-node's KubeConfig;
// bodies stay raw JSON (no typed models), so hooks receive objects exactly as served.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { isObject } from './objects.js';

/** A non-2xx answer from the API server, with the Status reason when there is one. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.code === 404;
export const isConflict = (error: unknown): boolean => error instanceof ApiError && error.code === 409;
export const isAlreadyExists = (error: unknown): boolean => error instanceof ApiError && error.reason === 'AlreadyExists';
export const isGone = (error: unknown): boolean => error instanceof ApiError && error.code === 410;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

export interface WatchHandle {
  /** Resolves when the stream ends (server timeout, connection loss or stop()). */
  done: Promise<void>;
  stop(): void;
}

function toURL(server: string, spec: Pick<RequestSpec, 'path' | 'query'>): URL {
  const url = new URL(server.replace(/\/$/u, '') + spec.path);
  for (const [key, value] of Object.entries(spec.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url;
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function apiErrorFrom(status: number, text: string): ApiError {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed) && parsed.kind === 'Status') {
      return new ApiError(status, typeof parsed.reason === 'string' ? parsed.reason : '', typeof parsed.message === 'string' ? parsed.message : text);
    }
  } catch {
    // not a Status object
  }
  return new ApiError(status, '', `HTTP ${String(status)}: ${text.slice(0, 500)}`);
}

export class RestClient {
  private readonly server: string;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly secure: boolean;

  private constructor(
    private readonly config: KubeConfig,
    base: RequestOptions,
  ) {
    const cluster = config.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server;
    this.secure = this.server.startsWith('https:');
    const tls = { ca: base.ca, cert: base.cert, key: base.key, rejectUnauthorized: base.rejectUnauthorized, servername: base.servername };
    this.agent = this.secure ? new HttpsAgent({ keepAlive: true, ...tls }) : new HttpAgent({ keepAlive: true });
  }

  static async fromFile(path: string | undefined): Promise<RestClient> {
    const config = new KubeConfig();
    if (path === undefined || path === '') config.loadFromDefault();
    else config.loadFromFile(path);
    const base: RequestOptions = {};
    await config.applyToHTTPSOptions(base);
    return new RestClient(config, base);
  }

  /** Headers with fresh credentials (exec/OIDC plug-ins may rotate tokens). */
  private async headers(contentType?: string): Promise<Record<string, string>> {
    const options: RequestOptions = {};
    await this.config.applyToHTTPSOptions(options);
    // The API server names the field manager after the user agent's first word: "metacontroller", as upstream.
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `metacontroller/v4.17.2-standin (node ${process.version}) ironhook` };
    for (const [key, value] of Object.entries(options.headers ?? {})) headers[key.toLowerCase()] = String(value);
    if (typeof options.auth === 'string') headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    if (contentType !== undefined) headers['content-type'] = contentType;
    return headers;
  }

  private async open(spec: RequestSpec, payload: string | undefined): Promise<IncomingMessage> {
    const url = toURL(this.server, spec);
    const headers = await this.headers(payload === undefined ? undefined : (spec.contentType ?? 'application/json'));
    // Always an explicit length: Node sends a DELETE body with neither Content-Length nor
    // chunked encoding, and the server then reads the body as the next request on the socket.
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    const send = this.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method: spec.method, headers, agent: this.agent }, resolve);
      req.on('error', reject);
      req.end(payload);
    });
  }

  async request<T = unknown>(spec: RequestSpec): Promise<T> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const response = await this.open(spec, payload);
    const text = await readBody(response);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) throw apiErrorFrom(status, text);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** Stream watch events (one JSON object per line) until the server closes or stop() is called. */
  watch(spec: Pick<RequestSpec, 'path' | 'query'>, onEvent: (event: { type: string; object: unknown }) => void): WatchHandle {
    const abort = new AbortController();
    const done = this.streamLines(spec, abort.signal, (line) => {
      const event = JSON.parse(line) as { type: string; object: unknown };
      onEvent(event);
    });
    return { done, stop: () => { abort.abort(); } };
  }

  private async streamLines(spec: Pick<RequestSpec, 'path' | 'query'>, signal: AbortSignal, onLine: (line: string) => void): Promise<void> {
    const url = toURL(this.server, spec);
    const headers = await this.headers();
    const send = this.secure ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { method: 'GET', headers, agent: this.agent, signal }, resolve);
      req.on('error', reject);
      req.end();
    });
    if (response.statusCode !== 200) throw apiErrorFrom(response.statusCode ?? 0, await readBody(response));
    const lines = createInterface({ input: response, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line.trim() !== '') onLine(line);
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
