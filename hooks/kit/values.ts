// Lenient readers for untyped JSON values inside a request: a missing or mistyped field reads as empty.
import { isRecord, type Rec } from '../../domain/records.js';

export { isRecord };

export type { Rec };

/** The value as a record, or `{}`. */
export function rec(value: unknown): Rec {
  return isRecord(value) ? value : {};
}

/** The value as a string, or `''`. */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
