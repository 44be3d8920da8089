// A small JSON-over-HTTP transport on undici for talking to agents. The client takes it as a
// parameter, so unit tests replace it with a table of canned answers.
import { isIP } from 'node:net';
import { request, type Dispatcher } from 'undici';
import { AgentError } from './errors.js';
import { certificateErrorCode, PinnedDispatchers } from './tls.js';

export interface JSONRequest {
  method: 'GET' | 'POST';
  url: URL;
  body?: unknown;
  signal?: AbortSignal;
  /** Connect to last byte (Ironic's [agent]command_timeout). */
  timeoutMs: number;
  /** The agent's agent_verify_ca: for an https URL the only certificate trusted. */
  ca?: string;
  /** The addresses the network guard checked for the URL's host name: the only ones connected to. */
  addresses?: readonly string[];
}

export interface JSONResponse {
  status: number;
  body: unknown;
}

export type JSONTransport = (req: JSONRequest) => Promise<JSONResponse>;

/** The request never got an answer: refused, reset, timed out. The command may or may not have run. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** scheme://host:port/path without the query (which carries the agent token). */
export function redactedURL(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') {
    return err.code;
  }
  return err instanceof Error ? err.name : 'Unknown';
}

async function readJSON(body: Dispatcher.ResponseData['body']): Promise<unknown> {
  const text = await body.text();
  if (text === '') {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A host name the guard checked: a dispatcher that connects only to the checked addresses. Else the
 * pinned-certificate dispatcher for an https URL with a recorded certificate, or undici's default.
 */
function dispatcherFor(req: JSONRequest, pinned: PinnedDispatchers): Dispatcher | undefined {
  const ca = req.url.protocol === 'https:' ? req.ca : undefined;
  const host = req.url.hostname.replace(/^\[|\]$/g, '');
  if (req.addresses !== undefined && isIP(host) === 0) {
    pinned.pin(host, req.addresses);
    return pinned.checkedFor(ca);
  }
  return ca === undefined ? undefined : pinned.for(ca);
}

/** A failed certificate check: nothing reached the agent, and trying again will not help soon. */
function tlsFailure(req: JSONRequest, code: string, err: unknown): AgentError {
  const trust = req.ca === undefined ? 'the system CAs' : 'the agent_verify_ca it sent';
  return new AgentError('AgentTLSFailed', `agent at ${req.url.host}: TLS certificate verification against ${trust} failed (${code})`, { cause: err });
}

/**
 * The default transport: undici, one request per call, JSON in and out, no redirects. https
 * URLs are verified: against `ca` when the request has one, else against the system CAs.
 */
export function undiciTransport(pinned: PinnedDispatchers = new PinnedDispatchers()): JSONTransport {
  return async (req) => {
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal === undefined ? timeout : AbortSignal.any([req.signal, timeout]);
    const dispatcher = dispatcherFor(req, pinned);
    try {
      const response = await request(req.url, {
        method: req.method,
        signal,
        headers: { accept: 'application/json', ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
        ...(dispatcher === undefined ? {} : { dispatcher }),
      });
      return { status: response.statusCode, body: await readJSON(response.body) };
    } catch (err) {
      if (req.signal?.aborted === true) {
        throw req.signal.reason;
      }
      const certificate = certificateErrorCode(err);
      if (certificate !== undefined) throw tlsFailure(req, certificate, err);
      const code = timeout.aborted ? 'Timeout' : errorCode(err);
      throw new TransportError(`${req.method} ${redactedURL(req.url)}: ${code}`, code, { cause: err });
    }
  };
}
