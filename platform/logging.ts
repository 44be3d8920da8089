// Structured JSON logging shared by the hook server and the driver pool (ADR
// 0002): pino, one line per event, fixed field names chosen by each process, and redaction
// of every secret-looking key at any depth pino can reach. Never log a request body.
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const SECRET_KEYS = ['password', 'token', 'agentToken', 'bearerToken', 'userData', 'networkData', 'metaData', 'stringData', 'authorization', 'cookie'];

/**
 * Paths pino censors. Its wildcards match exactly one level, so each secret-looking key is
 * listed at the top level and up to three levels deep; a Secret's `data` is censored wherever
 * an object that looks like a Secret could be logged.
 */
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]),
  'data',
  '*.data',
  '*.*.data',
];

export interface LoggerOptions {
  /** Written into every line as `component`. */
  component: string;
  level?: string;
  /** Where lines go; stdout when absent. Tests pass a capturing stream. */
  destination?: DestinationStream;
}

function isLevel(level: string): level is Level | 'silent' {
  return LOG_LEVELS.includes(level);
}

export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? 'info';
  if (!isLevel(level)) {
    throw new Error(`unknown log level "${level}" (one of ${LOG_LEVELS.join(', ')})`);
  }
  const config = {
    level,
    base: { component: options.component },
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
