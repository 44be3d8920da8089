// Request-level fault injection: the emulator-wide faults and the addressed system's faults are
// consulted before a request is handled. Counters (dropRequests, serverError.count) are used up.
import { errorReply } from './replies.js';
import type { Reply } from './replies.js';
import type { FaultConfig } from './types.js';

export type FaultDecision =
  | { readonly kind: 'close' }
  | { readonly kind: 'reply'; readonly reply: Reply; readonly delayMs: number }
  | { readonly kind: 'pass'; readonly delayMs: number };

function takeDrop(faults: FaultConfig): boolean {
  const remaining = faults.dropRequests ?? 0;
  if (remaining <= 0) {
    return false;
  }
  faults.dropRequests = remaining - 1;
  return true;
}

function takeServerError(faults: FaultConfig): Reply | undefined {
  const error = faults.serverError;
  if (error === undefined || (error.count !== undefined && error.count <= 0)) {
    return undefined;
  }
  if (error.count !== undefined) {
    error.count -= 1;
  }
  const status = error.status ?? 500;
  const busy = status === 503 || status === 429;
  const headers = error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
  return errorReply(status, { messageId: busy ? 'ServiceTemporarilyUnavailable' : 'InternalError', message: `Injected fault: HTTP ${status}.` }, headers);
}

export function decideFault(all: readonly (FaultConfig | undefined)[]): FaultDecision {
  const faults = all.filter((entry): entry is FaultConfig => entry !== undefined);
  if (faults.some((entry) => entry.unreachable === true) || faults.some(takeDrop)) {
    return { kind: 'close' };
  }
  const delayMs = Math.max(0, ...faults.map((entry) => entry.slowMs ?? 0));
  for (const entry of faults) {
    const reply = takeServerError(entry);
    if (reply !== undefined) {
      return { kind: 'reply', reply, delayMs };
    }
  }
  return { kind: 'pass', delayMs };
}
