// Structured JSON logging for the hook server (ADR 0002).
// Fixed field names, redaction of anything that could carry a secret, never a request body.
import { createLogger as createSharedLogger, type Logger, type LoggerOptions } from '../../platform/logging.js';

export { LOG_LEVELS, REDACT_PATHS, silentLogger, type Logger } from '../../platform/logging.js';

/** Field names every log line uses, so queries and dashboards can rely on them. */
export const LogField = {
  controller: 'controller',
  hook: 'hook',
  namespace: 'namespace',
  name: 'name',
  resourceVersion: 'resourceVersion',
  durationMs: 'durationMs',
  status: 'status',
  result: 'result',
  error: 'error',
  details: 'details',
  reason: 'reason',
} as const;

/** The hook server's logger: the shared configuration with `component: hooks`. */
export function createLogger(options: Omit<LoggerOptions, 'component'> = {}): Logger {
  return createSharedLogger({ ...options, component: 'hooks' });
}

/** The parts of an error that are safe to log: never a body or a parsed value attached to it. */
export function errorFields(err: unknown): { type: string; message: string; stack?: string } {
  if (err instanceof Error) {
    return err.stack === undefined ? { type: err.name, message: err.message } : { type: err.name, message: err.message, stack: err.stack };
  }
  return { type: typeof err, message: 'non-Error value thrown' };
}
