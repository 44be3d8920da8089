// Fields that only change place between v1beta1 and v1beta2 (status.ready ↔
// status.initialization.provisioned, status.failureReason ↔ status.deprecated.v1beta1.failureReason,
// image.format ↔ image.diskFormat, …). Containers only one version has are created on demand and
// removed once emptied; an empty one that held none of the moved fields is remembered in the
// conversion annotation, so `status.deprecated: {}` survives a round trip too.
import type { Kept } from '../capi/conversion.js';
import { rec, type ConversionStep, type Rec } from './types.js';

export interface FieldMove {
  /** Dotted path of the field in a v1beta1 body ("status.ready"). */
  readonly v1beta1: string;
  /** Dotted path of the same field in a v1beta2 body ("status.initialization.provisioned"). */
  readonly v1beta2: string;
}

export interface MovePlan {
  readonly moves: readonly FieldMove[];
  /** Containers only v1beta1 has (dotted paths). */
  readonly v1beta1Only: readonly string[];
  /** Containers only v1beta2 has (dotted paths). */
  readonly v1beta2Only: readonly string[];
}

const EMPTY_KEY = 'emptyObjects';

export function getPath(body: Rec, path: string): unknown {
  let node: unknown = body;
  for (const part of path.split('.')) node = rec(node)?.[part];
  return node;
}

function parentOf(body: Rec, path: string, create: boolean): { holder: Rec; field: string } | undefined {
  const parts = path.split('.');
  const field = parts.pop() ?? '';
  let holder: Rec | undefined = body;
  for (const part of parts) {
    if (holder[part] === undefined && create) holder[part] = {};
    holder = rec(holder[part]);
    if (holder === undefined) return undefined;
  }
  return { holder, field };
}

export function takePath(body: Rec, path: string): unknown {
  const at = parentOf(body, path, false);
  if (at === undefined) return undefined;
  const value = at.holder[at.field];
  Reflect.deleteProperty(at.holder, at.field);
  return value;
}

export function putPath(body: Rec, path: string, value: unknown): void {
  const at = parentOf(body, path, true);
  if (at !== undefined) at.holder[at.field] = value;
}

/** The version-only containers that exist but hold none of the moved fields. */
function emptyContainers(body: Rec, containers: readonly string[], sources: readonly string[]): string[] {
  return containers.filter(
    (path) => rec(getPath(body, path)) !== undefined && !sources.some((s) => s.startsWith(`${path}.`) && getPath(body, s) !== undefined),
  );
}

function removeEmptied(body: Rec, containers: readonly string[]): void {
  for (const path of [...containers].sort((a, b) => b.length - a.length)) {
    const node = rec(getPath(body, path));
    if (node !== undefined && Object.keys(node).length === 0) takePath(body, path);
  }
}

function move(body: Rec, plan: MovePlan, toV1beta2: boolean, io: { kept: Kept; restore: Kept }): void {
  const from = plan.moves.map((m) => (toV1beta2 ? m.v1beta1 : m.v1beta2));
  const to = plan.moves.map((m) => (toV1beta2 ? m.v1beta2 : m.v1beta1));
  const containers = toV1beta2 ? plan.v1beta1Only : plan.v1beta2Only;
  const empty = emptyContainers(body, containers, from);
  const values = from.map((path) => takePath(body, path));
  removeEmptied(body, containers);
  values.forEach((value, i) => {
    if (value !== undefined) putPath(body, to[i] ?? '', value);
  });
  const restored = io.restore[EMPTY_KEY];
  for (const path of Array.isArray(restored) ? restored : []) {
    if (typeof path === 'string' && getPath(body, path) === undefined) putPath(body, path, {});
  }
  if (empty.length > 0) io.kept[EMPTY_KEY] = empty;
}

/** A conversion step that moves fields as `plan` says. */
export function moveStep(plan: MovePlan): ConversionStep {
  return {
    up: (body, kept, restore) => {
      move(body, plan, true, { kept, restore });
    },
    down: (body, kept, restore) => {
      move(body, plan, false, { kept, restore });
    },
  };
}

/** The status moves every Cluster API v1beta2 contract kind shares. */
export function contractStatusMoves(): FieldMove[] {
  return [
    { v1beta1: 'status.ready', v1beta2: 'status.initialization.provisioned' },
    { v1beta1: 'status.failureReason', v1beta2: 'status.deprecated.v1beta1.failureReason' },
    { v1beta1: 'status.failureMessage', v1beta2: 'status.deprecated.v1beta1.failureMessage' },
    { v1beta1: 'status.conditions', v1beta2: 'status.deprecated.v1beta1.conditions' },
    { v1beta1: 'status.v1beta2.conditions', v1beta2: 'status.conditions' },
  ];
}

export const CONTRACT_V1BETA1_ONLY = ['status.v1beta2'] as const;
export const CONTRACT_V1BETA2_ONLY = ['status.initialization', 'status.deprecated', 'status.deprecated.v1beta1'] as const;
