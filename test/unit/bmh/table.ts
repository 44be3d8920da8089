// Row format and runner for the BareMetalHost state table tests.
import { expect } from 'vitest';
import type { ProvisioningState } from '../../../domain/baremetalhost.js';
import type { KObject } from '../../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../../domain/metacontroller.js';
import { syncBareMetalHost } from '../../../hooks/baremetalhost/sync.js';
import { DEFAULT_HOOK_CONFIG } from '../../../hooks/types.js';
import type { HookConfig } from '../../../hooks/types.js';
import type { HostBuilder } from '../../../devenv/builders/host.js';

interface Expected {
  state?: string;
  operationalStatus?: string;
  /** null: no error recorded. */
  errorType?: string | null;
  errorCount?: number;
  errorMessage?: RegExp;
  /** Name of the HostOperation child in the response; null: none. */
  request?: string | null;
  /** Fields the HostOperation child's spec must contain. */
  requestSpec?: Record<string, unknown>;
  /** Kinds of children, sorted, e.g. ['BMCMonitor', 'HostOperation']. */
  children?: string[];
  finalized?: boolean;
  resyncAfterSeconds?: number;
  consumed?: string[];
  /** Any other status fields to match (toMatchObject). */
  status?: Record<string, unknown>;
  /** The Progressing condition's message. */
  reason?: RegExp;
}

export interface Row {
  name: string;
  /** The state the host starts in (the table's coverage is checked per state). */
  from: ProvisioningState;
  given: HostBuilder;
  expect: Expected;
  config?: Partial<HookConfig>;
}

export function run(row: Row): CompositeSyncResponse {
  return syncBareMetalHost(row.given.request(), { config: { ...DEFAULT_HOOK_CONFIG, ...row.config } });
}

function operationChild(response: CompositeSyncResponse): KObject | undefined {
  return response.children.find((child) => child.kind === 'HostOperation');
}

function statusField(response: CompositeSyncResponse, path: string[]): unknown {
  let value: unknown = response.status;
  for (const key of path) {
    value = (value as Record<string, unknown> | undefined)?.[key];
  }
  return value;
}

function checkErrors(response: CompositeSyncResponse, want: Expected): void {
  if (want.operationalStatus !== undefined) {
    expect(statusField(response, ['operationalStatus'])).toBe(want.operationalStatus);
  }
  if (want.errorType !== undefined) {
    expect(statusField(response, ['errorType']) ?? null).toBe(want.errorType);
  }
  if (want.errorCount !== undefined) {
    expect(statusField(response, ['errorCount'])).toBe(want.errorCount);
  }
  if (want.errorMessage !== undefined) {
    expect(String(statusField(response, ['errorMessage']))).toMatch(want.errorMessage);
  }
}

function checkChildren(response: CompositeSyncResponse, want: Expected): void {
  const operation = operationChild(response);
  if (want.request !== undefined) {
    expect(operation?.metadata.name ?? null).toBe(want.request);
  }
  if (want.requestSpec !== undefined) {
    expect(operation?.spec).toMatchObject(want.requestSpec);
  }
  if (want.children !== undefined) {
    expect(response.children.map((child) => child.kind)).toEqual(want.children);
  }
}

function checkRest(response: CompositeSyncResponse, want: Expected): void {
  if (want.finalized !== undefined) {
    expect(response.finalized).toBe(want.finalized);
  }
  if (want.resyncAfterSeconds !== undefined) {
    expect(response.resyncAfterSeconds).toBe(want.resyncAfterSeconds);
  }
  if (want.consumed !== undefined) {
    expect(statusField(response, ['ironhook', 'consumedAnnotations'])).toEqual(want.consumed);
  }
  if (want.status !== undefined) {
    expect(response.status).toMatchObject(want.status);
  }
  if (want.reason !== undefined) {
    const conditions = statusField(response, ['conditions']) as { type: string; message: string }[];
    expect(conditions.find((condition) => condition.type === 'Progressing')?.message).toMatch(want.reason);
  }
}

export function check(row: Row): void {
  const response = run(row);
  const want = row.expect;
  if (want.state !== undefined) {
    expect(statusField(response, ['provisioning', 'state'])).toBe(want.state);
  }
  checkErrors(response, want);
  checkChildren(response, want);
  checkRest(response, want);
}
