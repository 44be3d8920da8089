// Line-oriented logging to stdout with a verbosity threshold, mirroring the meaning of
// Metacontroller's --zap-log-level: 4 = actions and sync triggers, 5 = diffs, 6 = hook bodies.
import { isObject } from './kube/objects.js';

export type Sink = (line: string) => void;

export class Logger {
  constructor(
    readonly verbosity: number,
    private readonly sink: Sink = (line) => {
      process.stdout.write(`${line}\n`);
    },
  ) {}

  enabled(level: number): boolean {
    return level <= this.verbosity;
  }

  info(level: number, message: string): void {
    if (this.enabled(level)) this.sink(`${new Date().toISOString()} INFO ${message}`);
  }

  error(message: string): void {
    this.sink(`${new Date().toISOString()} ERROR ${message}`);
  }
}

const REDACTED = '<redacted>';

function redactSecret(value: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...value };
  for (const field of ['data', 'stringData']) {
    if (isObject(copy[field])) {
      copy[field] = Object.fromEntries(Object.keys(copy[field]).map((key) => [key, REDACTED]));
    }
  }
  return copy;
}

/** A copy of a hook body with the values of every Secret's data/stringData replaced. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (!isObject(value)) return value;
  const walked = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redact(item)]));
  return walked.kind === 'Secret' && typeof walked.apiVersion === 'string' ? redactSecret(walked) : walked;
}
