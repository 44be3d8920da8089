// Error classification (docs/architecture.md rule 6): every failure that ends
// a request becomes {kind, reason, message}; messages are scrubbed of every secret the pool
// handled for that request (rule 7) and capped in length.
import { DriverError, errorCode } from '../errors.js';
import type { DriverErrorOptions } from '../errors.js';
import { KubeStatusError } from '../kube/errors.js';
import { BMCError } from '../bmc/types.js';
import type { ErrorKind, OperationError } from '../../domain/operations.js';

const MAX_MESSAGE = 1024;
const REDACTED = '[REDACTED]';

/** A failure raised by the pool itself (credentials, network guard, configuration, agent). */
export class OperationFailure extends DriverError {
  constructor(kind: ErrorKind, reason: string, message: string, options?: DriverErrorOptions) {
    super(kind, reason, message, options);
    this.name = 'OperationFailure';
  }
}

export function permanent(reason: string, message: string): OperationFailure {
  return new OperationFailure('Permanent', reason, message);
}

export function transient(reason: string, message: string): OperationFailure {
  return new OperationFailure('Transient', reason, message);
}

/** Raised when a BMC or agent call outlives its budget. */
export class TimeoutFailure extends OperationFailure {
  constructor(what: string, ms: number) {
    super('Transient', 'Timeout', `${what} did not finish within ${String(Math.round(ms / 1000))}s`);
  }
}

/** Transient BMC reasons that a repeat cannot cure: the BMC answered, the host did not follow. */
const NOT_REPEATED_IN_STEP = new Set(['PowerStateTimeout', 'PowerTimeout', 'TaskFailed']);

/**
 * A BMC failure worth repeating inside a step whose work reads the BMC's state before it acts
 * (ExecutionContext.bmcStep): the call was dropped, refused, timed out or answered 5xx/busy.
 */
export function repeatableBMCFailure(error: unknown): boolean {
  if (error instanceof TimeoutFailure) {
    return true;
  }
  return error instanceof BMCError && error.kind === 'Transient' && !NOT_REPEATED_IN_STEP.has(error.reason);
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function kubernetesStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) {
    return undefined;
  }
  if (error instanceof KubeStatusError) {
    return error.code;
  }
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  const value = typeof code === 'number' ? code : statusCode;
  return typeof value === 'number' ? value : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Classify any thrown value; `secrets` are scrubbed from the message. */
export function classify(error: unknown, secrets: readonly string[] = []): OperationError {
  return { ...rawClassify(error), message: scrub(messageOf(error), secrets) };
}

/** A DriverError, or any error that carries its own kind and reason (agent side). */
function ownClassification(error: unknown): Omit<OperationError, 'message'> | undefined {
  if (error instanceof DriverError) {
    return { kind: error.kind, reason: error.reason };
  }
  const { kind, reason } = (typeof error === 'object' && error !== null ? error : {}) as { kind?: unknown; reason?: unknown };
  if ((kind === 'Transient' || kind === 'Permanent') && typeof reason === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(reason)) {
    return { kind, reason };
  }
  return undefined;
}

function rawClassify(error: unknown): Omit<OperationError, 'message'> {
  const own = ownClassification(error);
  if (own !== undefined) {
    return own;
  }
  const code = errorCode(error);
  if (code !== undefined && NETWORK_CODES.has(code)) {
    return { kind: 'Transient', reason: 'BMCUnreachable' };
  }
  if (kubernetesStatus(error) !== undefined) {
    return { kind: 'Transient', reason: 'KubernetesAPIError' };
  }
  return { kind: 'Transient', reason: 'Unexpected' };
}

/** Replace every secret (longer than 3 characters) with a marker, and cap the length. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 3) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE - 1)}…` : out;
}
