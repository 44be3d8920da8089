// One hook call's bookkeeping: labels, timing, size and outcome, turned into exactly one
// metrics observation and one log line when the response finishes (or the caller goes away).
import type { RequestHandler, Response } from 'express';
import { LogField, type Logger, type errorFields } from './logging.js';
import { resultOf, UNKNOWN_LABEL, type HookMetrics, type HookResult } from './metrics.js';

export interface CallFailure {
  error: string;
  details?: readonly string[];
  err?: ReturnType<typeof errorFields>;
}

export interface HookCall {
  /** Label values: the route's controller and hook once they are known to exist, else `_unknown`. */
  controller: string;
  hook: string;
  path: string;
  startedAt: number;
  bytes?: number;
  namespace?: string;
  name?: string;
  resourceVersion?: string;
  failure?: CallFailure;
  /** The caller went away before the request was read (body-parser's `request.aborted`). */
  aborted?: boolean;
}

export interface CallDeps {
  metrics: HookMetrics;
  logger: Logger;
  /** Monotonic milliseconds. */
  now: () => number;
}

export function callOf(res: Response): HookCall | undefined {
  return res.locals.hookCall as HookCall | undefined;
}

function contentLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

type LogLevel = 'debug' | 'warn' | 'error';

function levelOf(result: HookResult): LogLevel {
  if (result === 'success') return 'debug';
  return result === 'error' ? 'error' : 'warn';
}

function logLine(call: HookCall, statusCode: number | undefined, durationMs: number): Record<string, unknown> {
  const line: Record<string, unknown> = {
    [LogField.controller]: call.controller,
    [LogField.hook]: call.hook,
    [LogField.namespace]: call.namespace,
    [LogField.name]: call.name,
    [LogField.resourceVersion]: call.resourceVersion,
    [LogField.status]: statusCode,
    [LogField.durationMs]: Math.round(durationMs * 1000) / 1000,
  };
  if (call.controller === UNKNOWN_LABEL) line.path = call.path.slice(0, 200);
  if (call.failure !== undefined) {
    line[LogField.error] = call.failure.error;
    if (call.failure.details !== undefined) line[LogField.details] = call.failure.details;
    if (call.failure.err !== undefined) line.err = call.failure.err;
  }
  return line;
}

function record(deps: CallDeps, call: HookCall, statusCode: number | undefined): void {
  const durationMs = deps.now() - call.startedAt;
  const code = statusCode === undefined ? 'aborted' : String(statusCode);
  const result: HookResult = statusCode === undefined ? 'aborted' : resultOf(statusCode);
  const labels = { controller: call.controller, hook: call.hook };
  deps.metrics.inFlight.dec();
  deps.metrics.requests.inc({ ...labels, code });
  deps.metrics.duration.observe({ ...labels, result }, durationMs / 1000);
  if (call.bytes !== undefined) deps.metrics.requestBytes.observe(labels, call.bytes);
  const line = { ...logLine(call, statusCode, durationMs), [LogField.result]: result };
  deps.logger[levelOf(result)](line, statusCode === undefined ? 'hook call aborted by the caller' : 'hook call');
}

/** First middleware of the hook route: starts the call and records it exactly once at the end. */
export function observeHookCall(deps: CallDeps): RequestHandler {
  return (req, res, next) => {
    const call: HookCall = {
      controller: UNKNOWN_LABEL,
      hook: UNKNOWN_LABEL,
      path: req.originalUrl,
      startedAt: deps.now(),
    };
    const bytes = contentLength(req.headers['content-length']);
    if (bytes !== undefined) call.bytes = bytes;
    res.locals.hookCall = call;
    deps.metrics.inFlight.inc();
    let recorded = false;
    const finish = (): void => {
      if (recorded) return;
      recorded = true;
      record(deps, call, res.writableFinished && call.aborted !== true ? res.statusCode : undefined);
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
