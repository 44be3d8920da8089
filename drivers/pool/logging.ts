// Structured JSON logs for the driver pool (ecosystem.md C3; the hook server's ADR 0002 rules):
// fixed field names, pino redaction of every secret-looking key, never a Secret's data, never a
// password, agent token or user data, at any level. Error messages from drivers are scrubbed of
// the request's secrets before they get here (errors.ts), redaction is the second line.
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger } from 'pino';

export const LogField = {
  namespace: 'namespace',
  host: 'host',
  operation: 'operation',
  action: 'action',
  sequence: 'sequence',
  monitor: 'monitor',
  bmc: 'bmc',
  step: 'step',
  phase: 'phase',
  reason: 'reason',
  durationMs: 'durationMs',
} as const;

const LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const SECRET_KEYS = ['password', 'token', 'agentToken', 'bearerToken', 'userData', 'networkData', 'metaData', 'stringData', 'authorization', 'cookie', 'credentials.password'];

export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]),
  'data',
  '*.data',
  '*.*.data',
];

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

function isLevel(level: string): level is Level | 'silent' {
  return LEVELS.includes(level);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!isLevel(level)) {
    throw new Error(`unknown log level "${level}" (one of ${LEVELS.join(', ')})`);
  }
  const config = {
    level,
    base: { component: 'driver-pool' },
    messageKey: 'msg',
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** The loggable parts of an error: name and message (already scrubbed by the caller), no body. */
export function errorFields(err: unknown): { type: string; message: string } {
  if (err instanceof Error) {
    return { type: err.name, message: err.message };
  }
  return { type: typeof err, message: 'non-Error value thrown' };
}
