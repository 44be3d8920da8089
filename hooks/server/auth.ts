// Webhook authentication as Metacontroller 4.16+ sends it:
// `authorization` → `Authorization: Bearer <token>`, `basicAuth` → `Authorization: Basic …`.
// Secrets are compared in constant time and never logged.
import { createHash, timingSafeEqual } from 'node:crypto';

export type HookAuth = { readonly kind: 'bearer'; readonly token: string } | { readonly kind: 'basic'; readonly username: string; readonly password: string };

export type AuthOutcome = 'ok' | 'missing' | 'wrong-scheme' | 'invalid';

/** Equal-time comparison of two strings of any lengths (hashing first hides the length). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

function splitHeader(header: string): { scheme: string; value: string } | undefined {
  const match = /^\s*(\S+)\s+(.+?)\s*$/.exec(header);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { scheme: match[1].toLowerCase(), value: match[2] };
}

function checkBasic(value: string, username: string, password: string): boolean {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const pass = colon < 0 ? '' : decoded.slice(colon + 1);
  // Both comparisons always run, so timing does not tell which part was wrong.
  const userOk = constantTimeEqual(user, username);
  const passOk = constantTimeEqual(pass, password);
  return userOk && passOk && colon >= 0;
}

/** Checks an `Authorization` header value against the configured credentials. */
export function checkAuthorization(auth: HookAuth, header: string | undefined): AuthOutcome {
  if (header === undefined || header.trim() === '') return 'missing';
  const parts = splitHeader(header);
  if (parts === undefined) return 'invalid';
  if (parts.scheme !== auth.kind) return 'wrong-scheme';
  const ok = auth.kind === 'bearer' ? constantTimeEqual(parts.value, auth.token) : checkBasic(parts.value, auth.username, auth.password);
  return ok ? 'ok' : 'invalid';
}

/** The `WWW-Authenticate` challenge for a 401. */
export function challengeFor(auth: HookAuth): string {
  return auth.kind === 'bearer' ? 'Bearer realm="ironhook-hooks"' : 'Basic realm="ironhook-hooks", charset="UTF-8"';
}

/** Parses the contents of a secret file: a bearer token, or `username:password` for basic auth. */
export function parseBearerFile(text: string): HookAuth {
  const token = text.trim();
  if (token === '') throw new Error('the bearer token file is empty');
  return { kind: 'bearer', token };
}

export function parseBasicAuthFile(text: string): HookAuth {
  const line = text.replace(/\r?\n$/, '');
  const colon = line.indexOf(':');
  if (colon <= 0 || colon === line.length - 1) {
    throw new Error('the basic auth file must contain "username:password"');
  }
  return { kind: 'basic', username: line.slice(0, colon), password: line.slice(colon + 1) };
}
