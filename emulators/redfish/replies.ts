// Answers in Redfish's shapes: JSON bodies, error bodies with @Message.ExtendedInfo, and ETags
// computed from the representation (so any change to a resource changes its ETag).
import { createHash } from 'node:crypto';
import type { ETagMode } from './types.js';

export type Json = Record<string, unknown>;

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Json;
}

const REGISTRY = 'Base.1.8';

export interface MessageOptions {
  readonly messageId: string;
  readonly message: string;
  readonly related?: readonly string[];
}

/** A Redfish error answer: `{"error": {code, message, @Message.ExtendedInfo: [...]}}`. */
export function errorReply(status: number, options: MessageOptions, headers?: Record<string, string>): Reply {
  const info = {
    '@odata.type': '#Message.v1_1_1.Message',
    MessageId: `${REGISTRY}.${options.messageId}`,
    Message: options.message,
    RelatedProperties: options.related ?? [],
    Severity: status >= 500 ? 'Critical' : 'Warning',
  };
  return {
    status,
    ...(headers === undefined ? {} : { headers }),
    body: { error: { code: `${REGISTRY}.GeneralError`, message: options.message, '@Message.ExtendedInfo': [info] } },
  };
}

export const notFound = (path: string): Reply =>
  errorReply(404, { messageId: 'ResourceMissingAtURI', message: `The resource at the URI ${path} was not found.` });

export const methodNotAllowed = (method: string, path: string): Reply =>
  errorReply(405, { messageId: 'OperationNotAllowed', message: `${method} is not allowed on ${path}.` });

export const unauthorized = (): Reply =>
  errorReply(
    401,
    { messageId: 'NoValidSession', message: 'There is no valid session established with the implementation.' },
    { 'www-authenticate': 'Basic realm="Redfish"' },
  );

export const malformed = (message: string): Reply => errorReply(400, { messageId: 'MalformedJSON', message });

export function valueNotInList(property: string, value: unknown): Reply {
  return errorReply(400, {
    messageId: 'PropertyValueNotInList',
    message: `The value ${JSON.stringify(value)} for the property ${property} is not in the list of acceptable values.`,
    related: [`#/${property}`],
  });
}

export const noContent = (): Reply => ({ status: 204 });

export const ok = (body: Json, headers?: Record<string, string>): Reply => ({ status: 200, body, ...(headers === undefined ? {} : { headers }) });

/** The strong validator of a representation: a hash of its JSON. */
export function strongETag(body: Json): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 20)}"`;
}

/** The ETag header value the mode sends, if any. */
function etagHeader(strong: string, mode: ETagMode): string | undefined {
  if (mode === 'none') {
    return undefined;
  }
  return mode === 'weak' ? `W/${strong}` : strong;
}

/** Whether an If-Match header (maybe absent) lets a PATCH through. */
export function ifMatchAccepted(ifMatch: string | undefined, strong: string, mode: ETagMode, required: boolean): boolean {
  if (ifMatch === undefined || ifMatch === '') {
    return !required;
  }
  if (mode === 'none') {
    return true;
  }
  if (mode === 'mismatch') {
    return false;
  }
  return ifMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === strong);
}

export const preconditionFailed = (): Reply =>
  errorReply(412, { messageId: 'PreconditionFailed', message: 'The ETag supplied did not match the ETag required to change this resource.' });

/** A resource answer with its ETag in the header and in @odata.etag. */
export function withETag(body: Json, mode: ETagMode): Reply {
  const header = etagHeader(strongETag(body), mode);
  return header === undefined ? ok(body) : ok({ ...body, '@odata.etag': header }, { etag: header });
}
