// RFC 6901 JSON pointers over plain JSON, and the two questions the ObjectPatch executor asks of
// a patch the API server could not apply. kube-apiserver (1.36) answers any JSON patch that does
// not apply, failed `test` or missing path alike, with the same bare 422 Invalid ("the server
// rejected our request due to an error in our request", no details), so the pool reads the object
// and decides itself: is it already what the patch's writes would make it (an earlier run applied
// it and the pool died before recording that: Applied, not TestFailed), and which `test` fails.
import { isDeepStrictEqual } from 'node:util';
import type { JsonPatchOperation } from '../../domain/capi/requests.js';

type Container = Record<string, unknown> | unknown[];

/** The unescaped segments of a pointer; undefined when it is not a pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') {
    return [];
  }
  if (!pointer.startsWith('/')) {
    return undefined;
  }
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/gu, '/').replace(/~0/gu, '~'));
}

function child(container: unknown, segment: string): { found: boolean; value: unknown } {
  if (Array.isArray(container)) {
    const index = /^(0|[1-9][0-9]*)$/u.test(segment) ? Number(segment) : Number.NaN;
    return index < container.length ? { found: true, value: container[index] } : { found: false, value: undefined };
  }
  if (typeof container === 'object' && container !== null && Object.hasOwn(container, segment)) {
    return { found: true, value: (container as Record<string, unknown>)[segment] };
  }
  return { found: false, value: undefined };
}

/** The value at `segments`, and whether it exists. */
function lookup(document: unknown, segments: readonly string[]): { found: boolean; value: unknown } {
  let current: { found: boolean; value: unknown } = { found: true, value: document };
  for (const segment of segments) {
    current = child(current.value, segment);
    if (!current.found) {
      return current;
    }
  }
  return current;
}

/**
 * The container at `segments`, creating missing objects on the way (for a condition list's
 * parents). Undefined when something on the way is not an object or array.
 */
export function ensureObjectPath(document: Record<string, unknown>, segments: readonly string[]): Container | undefined {
  let current: Container = document;
  for (const segment of segments) {
    const next = child(current, segment);
    if (!next.found && !Array.isArray(current)) {
      const created: Record<string, unknown> = {};
      current[segment] = created;
      current = created;
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null) {
      return undefined;
    }
    current = next.value as Container;
  }
  return current;
}

/** Whether `document` already shows the effect of one writing operation (false when unknowable). */
function showsEffect(document: unknown, operation: JsonPatchOperation): boolean {
  const segments = parsePointer(operation.path);
  if (segments === undefined || segments.at(-1) === '-') {
    return false;
  }
  const at = lookup(document, segments);
  switch (operation.op) {
    case 'add':
    case 'replace':
      return at.found && isDeepStrictEqual(at.value, operation.value);
    case 'remove':
      return !at.found;
    default:
      // move and copy: the source may have changed since; never assume.
      return false;
  }
}

/** The first `test` operation `document` does not pass (a missing path passes only a null value). */
export function failingTest(document: unknown, operations: readonly JsonPatchOperation[]): JsonPatchOperation | undefined {
  return operations.find((operation) => {
    if (operation.op !== 'test') {
      return false;
    }
    const segments = parsePointer(operation.path);
    const at = segments === undefined ? { found: false, value: undefined } : lookup(document, segments);
    return at.found ? !isDeepStrictEqual(at.value, operation.value) : operation.value !== undefined && operation.value !== null;
  });
}

/** True when the patch writes something and every write is already in `document`. */
export function alreadyApplied(document: unknown, operations: readonly JsonPatchOperation[]): boolean {
  const writes = operations.filter((operation) => operation.op !== 'test');
  return writes.length > 0 && writes.every((operation) => showsEffect(document, operation));
}
