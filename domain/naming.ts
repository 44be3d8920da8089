// Deterministic names and hashes for request objects (docs/architecture.md, "Naming").
import { createHash } from 'node:crypto';

const MAX_NAME = 253;
const MAX_LABEL_VALUE = 63;

/** A short, stable, lower-case hex digest of `input`. */
export function shortHash(input: string, length = 10): string {
  return createHash('sha256').update(input).digest('hex').slice(0, length);
}

/** A number in [0, 1) derived from `input`: deterministic "randomness" for jitter. */
export function unitInterval(input: string): number {
  const hex = createHash('sha256').update(input).digest('hex').slice(0, 12);
  return Number.parseInt(hex, 16) / 2 ** 48;
}

/** `<host>-<action>-<sequence>`, shortened with a hash of the host name when too long. */
export function operationName(host: string, action: string, sequence: number): string {
  const suffix = `-${action.toLowerCase()}-${sequence}`;
  const full = `${host}${suffix}`;
  if (full.length <= MAX_NAME) {
    return full;
  }
  const hash = shortHash(host);
  const room = MAX_NAME - suffix.length - hash.length - 1;
  return `${trimTrailingSeparators(host.slice(0, room))}-${hash}${suffix}`;
}

/** A label value that identifies `name`: the name itself when it fits, else a prefix plus hash. */
export function labelValue(name: string): string {
  if (name.length <= MAX_LABEL_VALUE) {
    return name;
  }
  const hash = shortHash(name);
  return `${trimTrailingSeparators(name.slice(0, MAX_LABEL_VALUE - hash.length - 1))}-${hash}`;
}

function trimTrailingSeparators(value: string): string {
  return value.replace(/[-.]+$/u, '');
}
