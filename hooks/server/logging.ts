// Structured JSON logging for the hook server (ecosystem.md C3, ADR 0002).
// Fixed field names, redaction of anything that could carry a secret, never a request body.
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Field names every log line uses, so queries and dashboards can rely on them. */
export const LogField = {
  controller: 'controller',
  hook: 'hook',
  namespace: 'namespace',
  name: 'name',
  durationMs: 'durationMs',
  status: 'status',
  result: 'result',
  error: 'error',
  details: 'details',
  reason: 'reason',
} as const;

export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const SECRET_KEYS = ['password', 'token', 'bearerToken', 'userData', 'stringData', 'authorization', 'cookie'];

/**
 * Paths pino censors. Its wildcards match exactly one level, so each secret-looking key is
 * listed at the top level and up to three levels deep. Secret `data` is censored wherever an
 * object that looks like a Secret (kind/data) could be logged.
 */
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]),
  'data',
  '*.data',
  '*.*.data',
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; stdout when absent. Tests pass a capturing stream. */
  destination?: DestinationStream;
}

function isLevel(level: string): level is Level | 'silent' {
  return LOG_LEVELS.includes(level);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!isLevel(level)) {
    throw new Error(`unknown log level "${level}" (one of ${LOG_LEVELS.join(', ')})`);
  }
  const config = {
    level,
    base: { component: 'hooks' },
    messageKey: 'msg',
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/** A logger that writes nothing (tests, fixtures). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** The parts of an error that are safe to log: never a body or a parsed value attached to it. */
export function errorFields(err: unknown): { type: string; message: string; stack?: string } {
  if (err instanceof Error) {
    return err.stack === undefined
      ? { type: err.name, message: err.message }
      : { type: err.name, message: err.message, stack: err.stack };
  }
  return { type: typeof err, message: 'non-Error value thrown' };
}
