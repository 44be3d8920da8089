// Conditions in the two shapes the v1beta2 Cluster API contract carries: metav1.Condition in
// status.conditions and Cluster API v1beta1 conditions (with severity) under
// status.deprecated.v1beta1.conditions. No clock is read: a condition keeps its old
// lastTransitionTime while its status stays the same, and takes the newest observed timestamp
// when it changes (docs/capm3.md, "Time").
import type { Metal3ClusterStatus, V1Beta1Condition } from '../../domain/capm3/types.js';
import { rec, str } from '../kit/index.js';

type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface ConditionSpec {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** v1beta1 only: Error, Warning or Info on a False condition. */
  severity?: 'Error' | 'Warning' | 'Info';
}

type ConditionRecord = Record<string, unknown>;
/** A metav1.Condition as the Metal3Cluster status holds it. */
type Condition = NonNullable<Metal3ClusterStatus['conditions']>[number];

/** The old list of conditions at `list`, by type. */
function byType(list: unknown): Map<string, ConditionRecord> {
  const out = new Map<string, ConditionRecord>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const condition = rec(item);
    if (str(condition.type) !== '') out.set(str(condition.type), condition);
  }
  return out;
}

function transitionTime(old: ConditionRecord | undefined, status: ConditionStatus, now: string): string {
  const kept = str(old?.lastTransitionTime);
  return old !== undefined && old.status === status && kept !== '' ? kept : now;
}

/** Ready first, then by type, as Cluster API orders them. */
function ordered<T extends { type: string }>(conditions: T[]): T[] {
  const rank = (type: string): string => (type === 'Ready' ? '' : type);
  return [...conditions].sort((a, b) => (rank(a.type) < rank(b.type) ? -1 : 1));
}

/** metav1.Condition list. `generation` is the parent's metadata.generation. */
export function metav1Conditions(specs: ConditionSpec[], oldList: unknown, now: string, generation: number | undefined): Condition[] {
  const old = byType(oldList);
  return ordered(specs).map((spec) => ({
    lastTransitionTime: transitionTime(old.get(spec.type), spec.status, now),
    message: spec.message,
    ...(generation !== undefined && { observedGeneration: generation }),
    reason: spec.reason,
    status: spec.status,
    type: spec.type,
  }));
}

/** Cluster API v1beta1 conditions: a True condition carries no reason, message or severity. */
export function v1beta1Conditions(specs: ConditionSpec[], oldList: unknown, now: string): V1Beta1Condition[] {
  const old = byType(oldList);
  return ordered(specs).map((spec) => {
    const lastTransitionTime = transitionTime(old.get(spec.type), spec.status, now);
    if (spec.status === 'True') return { lastTransitionTime, status: spec.status, type: spec.type };
    return {
      lastTransitionTime,
      ...(spec.message !== '' && { message: spec.message }),
      reason: spec.reason,
      severity: spec.severity ?? 'Info',
      status: spec.status,
      type: spec.type,
    };
  });
}

/** The newest of the given RFC 3339 timestamps (they compare as text), or undefined. */
export function newest(stamps: readonly (string | undefined)[]): string | undefined {
  return stamps
    .filter((s): s is string => typeof s === 'string' && s !== '')
    .sort()
    .at(-1);
}
