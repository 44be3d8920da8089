// Row format and runner for the Metal3Machine state table tests.
import { expect } from 'vitest';
import type { KObject } from '../../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../../domain/metacontroller.js';
import { metal3machineSync } from '../../../hooks/metal3machine/sync.js';
import type { MachineState } from '../../../hooks/metal3machine/names.js';
import type { MachineBuilder } from '../../support/machine-builder.js';

interface Expected {
  /** status.ironhook.state after the sync. */
  state?: MachineState;
  /** status.ironhook.waitingFor; null: not waiting. */
  waitingFor?: RegExp | null;
  /** Names of all children in the response, sorted. */
  children?: string[];
  /** A child by name and what its spec must contain. */
  child?: { name: string; spec?: Record<string, unknown>; annotations?: Record<string, string> };
  /** The JSON patch operations of a child ObjectPatch, exactly. */
  operations?: { name: string; ops: unknown[] };
  finalized?: boolean;
  resyncAfterSeconds?: number | null;
  status?: Record<string, unknown>;
  /** A v1beta2 condition by type. */
  condition?: { type: string; status: string; reason?: string; message?: RegExp };
  /** A v1beta1 condition by type. */
  v1beta1?: { type: string; status: string; reason?: string; severity?: string };
  failureMessage?: RegExp;
}

/** The annotation an associated host that is not paused carries (the claim sets it): clusterctl move waits for it. */
export const BLOCK_MOVE = { 'clusterctl.cluster.x-k8s.io/block-move': '' } as const;

export interface Row {
  name: string;
  /** The state the row exercises (the state the sync stops in); coverage is checked per state. */
  state: MachineState;
  given: MachineBuilder;
  expect: Expected;
}

export function run(row: Row): CompositeSyncResponse {
  return metal3machineSync(row.given.request());
}

function ironhook(response: CompositeSyncResponse): Record<string, unknown> {
  return (response.status.ironhook ?? {}) as Record<string, unknown>;
}

function childNamed(response: CompositeSyncResponse, name: string): KObject | undefined {
  return response.children.find((c) => c.metadata.name === name);
}

function conditionsAt(response: CompositeSyncResponse, v1beta1: boolean): Record<string, unknown>[] {
  if (!v1beta1) return (response.status.conditions ?? []) as Record<string, unknown>[];
  const deprecated = response.status.deprecated as { v1beta1?: { conditions?: Record<string, unknown>[] } } | undefined;
  return deprecated?.v1beta1?.conditions ?? [];
}

function checkChildren(response: CompositeSyncResponse, want: Expected): void {
  if (want.children !== undefined) expect(response.children.map((c) => c.metadata.name).sort()).toEqual(want.children);
  if (want.child !== undefined) {
    const child = childNamed(response, want.child.name);
    expect(child, `child ${want.child.name}`).toBeDefined();
    if (want.child.spec !== undefined) expect(child?.spec).toMatchObject(want.child.spec);
    if (want.child.annotations !== undefined) expect(child?.metadata.annotations).toMatchObject(want.child.annotations);
  }
  if (want.operations !== undefined) {
    const child = childNamed(response, want.operations.name);
    expect((child?.spec as { operations?: unknown } | undefined)?.operations).toEqual(want.operations.ops);
  }
}

function checkConditions(response: CompositeSyncResponse, want: Expected): void {
  if (want.condition !== undefined) {
    const { message, ...rest } = want.condition;
    const found = conditionsAt(response, false).find((c) => c.type === want.condition?.type);
    expect(found).toMatchObject(rest);
    if (message !== undefined) expect(String(found?.message)).toMatch(message);
  }
  if (want.v1beta1 !== undefined) {
    expect(conditionsAt(response, true).find((c) => c.type === want.v1beta1?.type)).toMatchObject(want.v1beta1);
  }
  if (want.failureMessage !== undefined) {
    const deprecated = response.status.deprecated as { v1beta1?: { failureMessage?: string } };
    expect(String(deprecated.v1beta1?.failureMessage)).toMatch(want.failureMessage);
  }
}

export function check(row: Row): void {
  const response = run(row);
  const want = row.expect;
  expect(ironhook(response).state).toBe(want.state ?? row.state);
  if (want.waitingFor === null) expect(ironhook(response).waitingFor).toBeUndefined();
  else if (want.waitingFor !== undefined) expect(String(ironhook(response).waitingFor)).toMatch(want.waitingFor);
  checkChildren(response, want);
  checkConditions(response, want);
  if (want.finalized !== undefined) expect(response.finalized).toBe(want.finalized);
  if (want.resyncAfterSeconds === null) expect(response.resyncAfterSeconds).toBeUndefined();
  else if (want.resyncAfterSeconds !== undefined) expect(response.resyncAfterSeconds).toBe(want.resyncAfterSeconds);
  if (want.status !== undefined) expect(response.status).toMatchObject(want.status);
}
