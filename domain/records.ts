// Narrowing of unknown JSON values, shared by hooks, conversion and the hook server.

/** A JSON object's fields. */
export type Rec = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, else undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
