// Condition upserts of an ObjectPatch (domain/capi/requests.ts): by type, in the list at a JSON
// pointer, creating the list and its parents; lastTransitionTime comes from the pool's clock and
// moves only when the status changes (as apimachinery's SetStatusCondition and Cluster API's
// conditions.Set do). Pure: the executor does the read and the guarded write.
import type { ConditionUpsert, ConditionValue } from '../../domain/capi/requests.js';
import { ensureObjectPath, parsePointer } from './json-pointer.js';

type StoredCondition = ConditionValue & { lastTransitionTime?: string; [key: string]: unknown };

export type UpsertResult = { kind: 'changed' } | { kind: 'unchanged' } | { kind: 'invalid'; message: string };

function sameContent(stored: StoredCondition, wanted: ConditionValue): boolean {
  return (
    stored.status === wanted.status &&
    (stored.reason ?? '') === (wanted.reason ?? '') &&
    (stored.message ?? '') === (wanted.message ?? '') &&
    (stored.severity ?? '') === (wanted.severity ?? '')
  );
}

function merged(stored: StoredCondition | undefined, wanted: ConditionValue, now: string): StoredCondition {
  const lastTransitionTime =
    stored !== undefined && stored.status === wanted.status && stored.lastTransitionTime !== undefined ? stored.lastTransitionTime : now;
  // metav1.Condition requires reason and message keys; Cluster API v1beta1 accepts them too.
  return { ...stored, ...wanted, reason: wanted.reason ?? '', message: wanted.message ?? '', lastTransitionTime };
}

/** The list at the pointer (created empty with its parents), or why there is none. */
function locateList(document: Record<string, unknown>, pointer: string): { parent: Record<string, unknown>; key: string; list: StoredCondition[] } | string {
  const segments = parsePointer(pointer);
  if (segments === undefined || segments.length === 0) {
    return `condition path ${JSON.stringify(pointer)} is not a JSON pointer to a list`;
  }
  const parent = ensureObjectPath(document, segments.slice(0, -1));
  if (parent === undefined || Array.isArray(parent)) {
    return `the parent of ${pointer} is not an object`;
  }
  const key = segments.at(-1) ?? '';
  const list = parent[key] ?? [];
  return Array.isArray(list) ? { parent, key, list: list as StoredCondition[] } : `${pointer} is not a list`;
}

function upsertOne(document: Record<string, unknown>, upsert: ConditionUpsert, now: string): UpsertResult {
  const located = locateList(document, upsert.path);
  if (typeof located === 'string') {
    return { kind: 'invalid', message: located };
  }
  const { parent, key, list } = located;
  const index = list.findIndex((condition) => condition.type === upsert.condition.type);
  const stored = index < 0 ? undefined : list[index];
  if (stored !== undefined && sameContent(stored, upsert.condition)) {
    return { kind: 'unchanged' };
  }
  const next = merged(stored, upsert.condition, now);
  parent[key] = index < 0 ? [...list, next] : list.map((condition, i) => (i === index ? next : condition));
  return { kind: 'changed' };
}

/** Applies every upsert to `document` in place; the first invalid path wins. */
export function upsertConditions(document: Record<string, unknown>, upserts: readonly ConditionUpsert[], now: string): UpsertResult {
  let changed = false;
  for (const upsert of upserts) {
    const result = upsertOne(document, upsert, now);
    if (result.kind === 'invalid') {
      return result;
    }
    changed ||= result.kind === 'changed';
  }
  return { kind: changed ? 'changed' : 'unchanged' };
}
