// Transient failures of a Cluster API request as status.error (docs/architecture.md rule 6):
// the kind is always Transient here (permanent outcomes are returned by the executors, not
// thrown), the reason says where it failed, the message is scrubbed of the workload cluster's
// credentials and capped.
import type { OperationError } from '../../domain/operations.js';
import { DriverError, errorCode } from '../errors.js';
import { KubeStatusError } from '../kube/errors.js';
import { scrub } from '../pool/errors.js';

function reasonOf(error: unknown): string {
  // The pool's own failures (KubeconfigNotFound, …) and RequestTimeout (Timeout).
  if (error instanceof DriverError) {
    return error.reason;
  }
  if (error instanceof KubeStatusError) {
    return error.code === 429 ? 'TooManyRequests' : 'APIServerError';
  }
  return errorCode(error) === undefined ? 'Unexpected' : 'APIServerUnreachable';
}

/** The delay a transient error asks for before the next attempt (else the runner's back-off). */
export function retryAfterMs(error: unknown): number | undefined {
  return error instanceof DriverError ? error.retryAfterMs : undefined;
}

export function transientError(error: unknown, secrets: readonly string[]): OperationError {
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'Transient', reason: reasonOf(error), message: scrub(message, secrets) };
}
