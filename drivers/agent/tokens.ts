// Per-host agent tokens: 32 random bytes, base64url (43
// characters, above IPA's 32-character minimum). Compared in constant time, never logged.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a lookup answers once the token has been handed out (Ironic's mask). */
export const MASKED_TOKEN = '******';
/** IPA refuses shorter tokens. */
export const MIN_TOKEN_LENGTH = 32;

const TOKEN_BYTES = 32;

export function newAgentToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * True when `candidate` is exactly `token`. Both sides are hashed first, so the comparison
 * takes the same time whatever the lengths and wherever the first difference is.
 */
export function tokenMatches(candidate: unknown, token: string): boolean {
  if (typeof candidate !== 'string' || candidate.length === 0) {
    return false;
  }
  return timingSafeEqual(digest(candidate), digest(token));
}
