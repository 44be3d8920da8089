// The one error type of the Kubernetes port: an apiserver answer other than success, with its
// HTTP code and, when the server sent a Status, its reason, message and causes. The real adapter
// (api.ts) and the in-memory one (test/support/memory-kube.ts) both throw it; callers judge it
// by code (isNotFound, isConflict), never by message.
import type { ApiException } from '@kubernetes/client-node';
import { TransientError } from '../errors.js';

export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: string[] = [],
  ) {
    super(message);
    this.name = 'KubeStatusError';
  }
}

/** The call did not answer within the client's timeout. */
export class RequestTimeout extends TransientError {
  readonly code = 'ETIMEDOUT';

  constructor(what: string, ms: number) {
    super('Timeout', `${what} did not answer within ${String(Math.round(ms / 1000))}s`);
    this.name = 'RequestTimeout';
  }
}

/**
 * The apiserver could not be reached (refused, reset, DNS): transient, and named as the
 * apiserver's failure, so a request failing to read its BMC Secret does not report BMCUnreachable.
 */
export class APIServerUnreachable extends TransientError {
  constructor(what: string, cause: unknown) {
    super('APIServerUnreachable', `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'APIServerUnreachable';
  }
}

/** The HTTP code of a KubeStatusError (or of anything else that carries a numeric code). */
function statusCode(error: unknown): number | undefined {
  if (error instanceof KubeStatusError) {
    return error.code;
  }
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (error: unknown): boolean => statusCode(error) === 404;
export const isConflict = (error: unknown): boolean => statusCode(error) === 409;

/** What `call` resolves to, or `absent` when the apiserver answered 404; other failures pass. */
export async function unlessNotFound<T, A>(call: Promise<T>, absent: A): Promise<T | A> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound(error)) {
      return absent;
    }
    throw error;
  }
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

/** client-node hands an error body over as the raw text (or parsed, or not at all for a 401). */
function statusOf(body: unknown): StatusBody | undefined {
  if (typeof body !== 'string') {
    return typeof body === 'object' && body !== null ? body : undefined;
  }
  try {
    return JSON.parse(body) as StatusBody;
  } catch {
    return undefined;
  }
}

/**
 * ApiException's own message carries the response headers and body verbatim; only the Status
 * fields (or the shortened raw text) go on, so nothing but the server's explanation is logged.
 */
export function kubeStatusErrorFrom(error: ApiException<unknown>): KubeStatusError {
  const status = statusOf(error.body);
  if (status?.kind === 'Status') {
    const message = typeof status.message === 'string' ? status.message : `HTTP ${String(error.code)}`;
    return new KubeStatusError(error.code, typeof status.reason === 'string' ? status.reason : '', message, causesOf(status));
  }
  const text = typeof error.body === 'string' ? `: ${error.body.slice(0, 500)}` : '';
  return new KubeStatusError(error.code, '', `HTTP ${String(error.code)}${text}`);
}
