// Every failure the Redfish client sees becomes a BMCError (drivers/bmc/types.ts) with a stable
// CamelCase reason. Transient: the BMC may answer later (network, timeouts, 5xx, busy).
// Permanent: retrying the same request cannot help (credentials, missing system, unsupported
// operation, TLS verification). Messages name the method and path, never credentials.
import { BMCError } from '../bmc/types.js';

export const Reason = {
  Unreachable: 'BMCUnreachable',
  Timeout: 'Timeout',
  Busy: 'BMCBusy',
  ServerError: 'BMCServerError',
  Conflict: 'BMCConflict',
  PreconditionFailed: 'PreconditionFailed',
  CredentialsInvalid: 'CredentialsInvalid',
  SystemNotFound: 'SystemNotFound',
  NotFound: 'ResourceNotFound',
  Unsupported: 'Unsupported',
  TLSVerificationFailed: 'TLSVerificationFailed',
  Rejected: 'BMCRequestRejected',
  Protocol: 'ProtocolError',
  TaskFailed: 'TaskFailed',
  PowerStateTimeout: 'PowerStateTimeout',
} as const;

export function transientError(reason: string, message: string, cause?: unknown): BMCError {
  return new BMCError('Transient', reason, message, cause === undefined ? undefined : { cause });
}

export function permanentError(reason: string, message: string, cause?: unknown): BMCError {
  return new BMCError('Permanent', reason, message, cause === undefined ? undefined : { cause });
}

/** An HTTP error answer, with what the body said (for fallbacks that depend on MessageIds). */
/** An HTTP error answer, with what the body said (for fallbacks that depend on MessageIds). */
export class RedfishHttpError extends BMCError {
  readonly status: number;
  readonly info: RedfishErrorInfo;

  constructor(classified: Classified, message: string, answer: { status: number; info: RedfishErrorInfo }) {
    super(classified.kind, classified.reason, message);
    this.name = 'BMCError';
    this.status = answer.status;
    this.info = answer.info;
  }
}

interface Classified {
  readonly kind: BMCError['kind'];
  readonly reason: string;
}

/** What a Redfish error body says (`error.@Message.ExtendedInfo[]`), flattened. */
export interface RedfishErrorInfo {
  /** The last dotted part of each MessageId, e.g. "PropertyValueNotInList". */
  readonly messageIds: string[];
  readonly messages: string[];
  readonly relatedProperties: string[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function shortId(id: unknown): string[] {
  return typeof id === 'string' && id !== '' ? [id.slice(id.lastIndexOf('.') + 1)] : [];
}

function addExtended(info: RedfishErrorInfo, item: unknown): void {
  const entry = record(item);
  info.messageIds.push(...shortId(entry?.MessageId));
  if (typeof entry?.Message === 'string') {
    info.messages.push(entry.Message);
  }
  info.relatedProperties.push(...strings(entry?.RelatedProperties));
}

function errorInfo(body: unknown): RedfishErrorInfo {
  const error = record(record(body)?.error);
  const info: RedfishErrorInfo = { messageIds: [...shortId(error?.code)], messages: [], relatedProperties: [] };
  if (typeof error?.message === 'string') {
    info.messages.push(error.message);
  }
  const extended = error?.['@Message.ExtendedInfo'];
  for (const item of Array.isArray(extended) ? extended : []) {
    addExtended(info, item);
  }
  return info;
}

const UNSUPPORTED_IDS = new Set([
  'ActionNotSupported',
  'ActionParameterNotSupported',
  'ActionParameterValueNotInList',
  'PropertyValueNotInList',
  'PropertyNotWritable',
  'PropertyUnknown',
]);

const MAX_BMC_TEXT = 240;

function bmcText(info: RedfishErrorInfo): string {
  const text = info.messages.join(' ').slice(0, MAX_BMC_TEXT);
  return text === '' ? '' : `: ${text}`;
}

function classify4xx(status: number, info: RedfishErrorInfo): Classified {
  if (status === 401 || status === 403) {
    return { kind: 'Permanent', reason: Reason.CredentialsInvalid };
  }
  if (status === 404) {
    return { kind: 'Permanent', reason: Reason.NotFound };
  }
  if (status === 405 || status === 501 || info.messageIds.some((id) => UNSUPPORTED_IDS.has(id))) {
    return { kind: 'Permanent', reason: Reason.Unsupported };
  }
  if (status === 409) {
    return { kind: 'Transient', reason: Reason.Conflict };
  }
  if (status === 412) {
    return { kind: 'Transient', reason: Reason.PreconditionFailed };
  }
  return { kind: 'Permanent', reason: Reason.Rejected };
}

function classify(status: number, info: RedfishErrorInfo): Classified {
  if (status === 429 || status === 503) {
    return { kind: 'Transient', reason: Reason.Busy };
  }
  if (status >= 500 && status !== 501) {
    return { kind: 'Transient', reason: Reason.ServerError };
  }
  return classify4xx(status, info);
}

function describe(status: number, reason: string, what: string): string {
  if (reason === Reason.CredentialsInvalid) {
    return `${what}: the BMC rejected the credentials (HTTP ${status})`;
  }
  if (reason === Reason.Busy) {
    return `${what}: the BMC is busy (HTTP ${status})`;
  }
  return `${what} returned HTTP ${status}${status === 412 ? ' (ETag mismatch)' : ''}`;
}

/** Classifies a non-2xx answer. `what` is e.g. "POST /redfish/v1/Systems/1/Actions/ComputerSystem.Reset". */
export function httpError(status: number, body: unknown, what: string): RedfishHttpError {
  const info = errorInfo(body);
  const classified = classify(status, info);
  const detail = classified.reason === Reason.CredentialsInvalid ? '' : bmcText(info);
  return new RedfishHttpError(classified, `${describe(status, classified.reason, what)}${detail}`, { status, info });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR', 'UND_ERR_ABORTED']);

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

function errorCode(error: unknown): string {
  const fields = record(error);
  const code = fields?.code;
  if (typeof code === 'string') {
    return code;
  }
  const name = fields?.name;
  if (name === 'AbortError' || name === 'TimeoutError') {
    return 'ABORT_ERR';
  }
  return fields?.cause === undefined ? 'UNKNOWN' : errorCode(fields.cause);
}

/** Classifies a failure below HTTP: connection, timeout, TLS. */
export function networkError(error: unknown, what: string): BMCError {
  if (error instanceof BMCError) {
    return error;
  }
  const code = errorCode(error);
  if (TIMEOUT_CODES.has(code)) {
    return transientError(Reason.Timeout, `${what}: timed out (${code})`, error);
  }
  if (TLS_CODES.has(code)) {
    return permanentError(Reason.TLSVerificationFailed, `${what}: TLS certificate verification failed (${code})`, error);
  }
  return transientError(Reason.Unreachable, `${what}: the BMC is unreachable (${code})`, error);
}

/**
 * Replaces every secret in an error's message (and drops a cause that mentions one). The client
 * runs every error it throws through this, so even text a BMC echoes back cannot leak a password.
 */
export function scrubError(error: BMCError, secrets: readonly string[]): BMCError {
  const present = secrets.filter((secret) => secret !== '');
  const leaks = (text: string): boolean => present.some((secret) => text.includes(secret));
  const scrub = (text: string): string => present.reduce((out, secret) => out.split(secret).join('***'), text);
  const causeText = error.cause instanceof Error ? `${error.cause.message} ${error.cause.stack ?? ''}` : JSON.stringify(error.cause ?? '');
  if (error instanceof RedfishHttpError) {
    const info = { ...error.info, messages: error.info.messages.map(scrub) };
    return leaks(error.message) || error.info.messages.some(leaks) ? new RedfishHttpError(error, scrub(error.message), { status: error.status, info }) : error;
  }
  if (!leaks(error.message) && !leaks(causeText)) {
    return error;
  }
  return new BMCError(error.kind, error.reason, scrub(error.message));
}
