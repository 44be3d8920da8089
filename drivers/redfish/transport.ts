// HTTP to one BMC on undici 7: one Pool per BMC origin with a
// small connection limit, connect/headers/body timeouts plus an overall deadline, TLS
// verification on unless disableCertificateVerification, and an optional per-BMC CA bundle.
// A host name's sockets go only to the addresses the network guard checked (pinnedAddresses):
// every new socket, keep-alive reconnects included, while TLS verifies the certificate against
// the name. Bodies are sent as strings (Content-Length, never chunked). Nothing here knows about auth.
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { pinnedLookup } from '../pinned-lookup.js';
import { networkError } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Absolute path on the BMC origin, e.g. "/redfish/v1/Systems/1". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON-serialised when given; `undefined` sends no body at all. */
  readonly body?: unknown;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or undefined for an empty or non-JSON body. */
  readonly body: unknown;
}

export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** "https://10.0.0.5:8443" */
  readonly origin: string;
  readonly timeoutMs: number;
  /** Skip certificate verification (only when the host spec asks for it). */
  readonly insecure: boolean;
  /** PEM bundle to trust instead of the system store. */
  readonly caBundle?: string;
  /** Parallel connections to this BMC; BMCs tolerate very few. */
  readonly connections?: number;
  /** The addresses the network guard checked for the origin's host name: the only ones connected to. */
  readonly pinnedAddresses?: readonly string[];
}

const BASE_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json',
  'odata-version': '4.0',
  'accept-encoding': 'identity',
};

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return flat;
}

function parseJSON(text: string): unknown {
  if (text.trim() === '') {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function requestOptions(request: HttpRequest, timeoutMs: number): Dispatcher.RequestOptions {
  const hasBody = request.body !== undefined;
  return {
    method: request.method,
    path: request.path,
    headers: { ...BASE_HEADERS, ...(hasBody ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: hasBody ? JSON.stringify(request.body) : undefined,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  };
}

/** Connect options that send every socket to the checked addresses (none: the system resolver). */
function pinning(addresses: readonly string[] | undefined): { lookup?: ReturnType<typeof pinnedLookup> } {
  return addresses === undefined ? {} : { lookup: pinnedLookup(() => addresses) };
}

class UndiciTransport implements HttpTransport {
  private readonly pool: Pool;

  constructor(private readonly options: TransportOptions) {
    this.pool = new Pool(options.origin, {
      connections: options.connections ?? 2,
      pipelining: 1,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4_000,
      connect: {
        timeout: options.timeoutMs,
        rejectUnauthorized: !options.insecure,
        ...(options.caBundle === undefined ? {} : { ca: options.caBundle }),
        ...pinning(options.pinnedAddresses),
      },
    });
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    try {
      const response = await this.pool.request(requestOptions(request, this.options.timeoutMs));
      const text = await response.body.text();
      return { status: response.statusCode, headers: flattenHeaders(response.headers), body: parseJSON(text) };
    } catch (error) {
      throw networkError(error, `${request.method} ${request.path}`);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

export function createHttpTransport(options: TransportOptions): HttpTransport {
  return new UndiciTransport(options);
}
