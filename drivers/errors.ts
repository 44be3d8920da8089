// The one base of every classified failure in the driver pool:
// a kind (Transient: try again, Permanent: retrying cannot help) and a stable CamelCase reason,
// the way Kopf's TemporaryError(delay) and PermanentError work (kind Permanent here). A transient error may say how
// long to wait before the next attempt (retryAfterMs); without it the runner's back-off decides.
// BMC drivers (BMCError, RedfishHttpError, AgentError), the pool (OperationFailure) and the
// Kubernetes client (RequestTimeout) derive from it. Messages must never carry credentials: each
// driver scrubs what it throws, the pool scrubs again when it classifies (pool/errors.ts).
import type { ErrorKind } from '../domain/operations.js';

export interface DriverErrorOptions {
  cause?: unknown;
  /** Transient only: wait this long before the next attempt instead of the back-off. */
  retryAfterMs?: number;
}

export class DriverError extends Error {
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: ErrorKind,
    /** CamelCase and stable, e.g. BMCUnreachable, CredentialsInvalid, Timeout, Unsupported. */
    readonly reason: string,
    message: string,
    options?: DriverErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DriverError';
    this.retryAfterMs = kind === 'Transient' ? options?.retryAfterMs : undefined;
  }
}

/** Worth another attempt, after `retryAfterMs` when given. */
export class TransientError extends DriverError {
  constructor(reason: string, message: string, options?: DriverErrorOptions) {
    super('Transient', reason, message, options);
    this.name = 'TransientError';
  }
}

/** The request was superseded, deleted, or the pool is shutting down. Never written to status. */
export class CancelledError extends Error {
  constructor(readonly why: string) {
    super(`cancelled: ${why}`);
    this.name = 'AbortError';
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error instanceof CancelledError);
}

/** The string `code` of an error or of the first cause that has one (ECONNRESET, UND_ERR_SOCKET, …). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) {
    return undefined;
  }
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    return code;
  }
  return cause === undefined ? undefined : errorCode(cause);
}
