// Task monitors: a 202 answer names a monitor in Location; poll
// it while it answers 202 (or a Task that is still running), sleeping Retry-After or 1 s, until
// the final answer or a deadline. A finished Task in Exception/Killed/Cancelled is a failure.
import type { Clock } from './clock.js';
import { Reason, permanentError, transientError } from './errors.js';
import { asResource, list, text } from './resource.js';
import type { HttpResponse } from './transport.js';

export interface TaskOptions {
  readonly clock: Clock;
  /** Give up after this long (default 10 minutes, as sushy's default task wait). */
  readonly timeoutMs: number;
  /** GET one path without auth handling concerns (the client passes its own). */
  readonly get: (path: string) => Promise<HttpResponse>;
}

const DEFAULT_POLL_MS = 1_000;
const MAX_POLL_MS = 60_000;
const RUNNING_STATES = new Set(['New', 'Starting', 'Running', 'Pending', 'Suspended', 'Stopping', 'Service', 'Interrupted']);
const FAILED_STATES = new Set(['Exception', 'Killed', 'Cancelled']);

/** Retry-After as milliseconds: delta-seconds or an HTTP date; 1 s when absent or odd. */
export function retryAfterMs(header: string | undefined, now: number): number {
  if (header === undefined || header.trim() === '') {
    return DEFAULT_POLL_MS;
  }
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) {
    return DEFAULT_POLL_MS;
  }
  return Math.min(Math.max(ms, 0), MAX_POLL_MS);
}

function taskState(response: HttpResponse): string | undefined {
  return text(asResource(response.body), 'TaskState');
}

function stillRunning(response: HttpResponse): boolean {
  if (response.status === 202) {
    return true;
  }
  const state = taskState(response);
  return response.status === 200 && state !== undefined && RUNNING_STATES.has(state);
}

function taskMessages(response: HttpResponse): string {
  const messages = list(asResource(response.body), 'Messages')
    .map((message) => text(asResource(message), 'Message'))
    .filter((message): message is string => message !== undefined);
  return messages.length === 0 ? '' : `: ${messages.join(' ').slice(0, 240)}`;
}

function checkFinished(response: HttpResponse, what: string): HttpResponse {
  const state = taskState(response);
  if (state !== undefined && FAILED_STATES.has(state)) {
    throw permanentError(Reason.TaskFailed, `${what}: the BMC task ended in ${state}${taskMessages(response)}`);
  }
  if (response.status >= 300) {
    throw permanentError(Reason.TaskFailed, `${what}: the task monitor answered HTTP ${response.status}${taskMessages(response)}`);
  }
  return response;
}

/** Follows a 202 to its end; any other answer is returned unchanged. */
export async function followTask(first: HttpResponse, what: string, options: TaskOptions): Promise<HttpResponse> {
  if (first.status !== 202) {
    return first;
  }
  const monitor = first.headers.location;
  if (monitor === undefined || monitor === '') {
    throw permanentError(Reason.Protocol, `${what}: HTTP 202 without a Location (task monitor)`);
  }
  const path = new URL(monitor, 'http://bmc.invalid').pathname;
  const deadline = options.clock.now() + options.timeoutMs;
  let response = first;
  while (stillRunning(response)) {
    const wait = retryAfterMs(response.headers['retry-after'], options.clock.now());
    if (options.clock.now() + wait > deadline) {
      throw transientError(Reason.Timeout, `${what}: the BMC task at ${path} did not finish within ${options.timeoutMs} ms`);
    }
    await options.clock.sleep(wait);
    response = await options.get(path);
  }
  return checkFinished(response, what);
}
