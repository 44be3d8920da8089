// Structured JSON logs for the driver pool (the hook server's ADR 0002 rules):
// fixed field names, pino redaction of every secret-looking key, never a Secret's data, never a
// password, agent token or user data, at any level. Error messages from drivers are scrubbed of
// the request's secrets before they get here (errors.ts), redaction is the second line.
import { createLogger as createSharedLogger, type Logger, type LoggerOptions } from '../../platform/logging.js';

export { silentLogger, type Logger } from '../../platform/logging.js';

/** The pool's logger: the shared configuration with `component: driver-pool`. */
export function createLogger(options: Omit<LoggerOptions, 'component'> = {}): Logger {
  return createSharedLogger({ ...options, component: 'driver-pool' });
}

/** The loggable parts of an error: name and message (already scrubbed by the caller), no body. */
export function errorFields(err: unknown): { type: string; message: string } {
  if (err instanceof Error) {
    return { type: err.name, message: err.message };
  }
  return { type: typeof err, message: 'non-Error value thrown' };
}
