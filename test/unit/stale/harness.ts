// A parent one status write behind its own children (issue 10). Metacontroller v4.17.2 applies a
// sync's children before it writes the status, and the child events re-run the sync at once with
// the parent read from an informer cache that may not have seen the status write yet. This plays
// it: sync N answers status S_N and children C_N; Metacontroller stores C_N (creates what is new,
// updates what exists, deletes what is no longer returned); then the hook is called with C_N and
// the parent still showing S_{N-1}. The answer must keep every child of C_N as it was, ask for
// nothing C_N lacks, and not report a status earlier than S_N.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { KObject } from '../../../domain/k8s.js';
import type { CompositeSyncRequest, CompositeSyncResponse, ObjectMap } from '../../../domain/metacontroller.js';
import { hookRegistry } from '../../../hooks/registry.js';
import { DEFAULT_HOOK_CONFIG } from '../../../hooks/types.js';

export type Status = Record<string, unknown>;

export interface Scenario {
  name: string;
  /** Sync N's request: the parent with S_{N-1}, the children as they are before sync N. */
  request: () => CompositeSyncRequest;
  /** Default: finalize when the request says `finalizing`, else sync (as Metacontroller calls them). */
  hook?: 'sync' | 'finalize';
  /** What else changed before the stale read, besides the children (e.g. the host was paused). */
  meanwhile?: (request: CompositeSyncRequest) => void;
}

/** How one controller's status is compared. */
export interface Route {
  route: string;
  /** Compared lexicographically: the stale answer's must not be lower than S_N's. */
  progress: (status: Status) => number[];
  /** What both answers must report alike. */
  same?: (status: Status) => unknown;
}

const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

export function rec(value: unknown): Status {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Status) : {};
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** A recorded v2 request of the golden fixtures (test/fixtures/<route>/<scenario>/request.json). */
export function fixture(route: string, scenario: string): () => CompositeSyncRequest {
  const url = new URL(`../../fixtures/${route}/${scenario}/request.json`, import.meta.url);
  return () => JSON.parse(readFileSync(url, 'utf8')) as CompositeSyncRequest;
}

function created(desired: KObject, parent: KObject): KObject {
  const meta = desired.metadata;
  return {
    ...structuredClone(desired),
    metadata: {
      ...structuredClone(meta),
      namespace: meta.namespace ?? parent.metadata.namespace ?? '',
      uid: `uid-${desired.kind}-${meta.name ?? ''}`,
      resourceVersion: '1',
      creationTimestamp: parent.metadata.creationTimestamp ?? '2026-11-29T10:00:00Z',
      labels: { ...meta.labels, 'controller-uid': parent.metadata.uid ?? '' },
      annotations: { ...meta.annotations, [LAST_APPLIED]: JSON.stringify(desired) },
      ownerReferences: [
        ...(meta.ownerReferences ?? []),
        {
          apiVersion: parent.apiVersion,
          kind: parent.kind,
          name: parent.metadata.name ?? '',
          uid: parent.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  };
}

/** An existing child after Metacontroller applied the desired form (observed status and identity kept). */
function updated(observed: KObject, desired: KObject): KObject {
  const { metadata, ...body } = structuredClone(desired);
  return {
    ...structuredClone(observed),
    ...body,
    metadata: {
      ...structuredClone(observed.metadata),
      labels: { ...observed.metadata.labels, ...metadata.labels },
      annotations: { ...observed.metadata.annotations, ...metadata.annotations },
    },
  };
}

function keyOf(child: KObject, namespace: string): [string, string] {
  return [`${child.kind}.${child.apiVersion}`, `${child.metadata.namespace ?? namespace}/${child.metadata.name ?? ''}`];
}

/** The next request after Metacontroller applied `answer`: its children stored, the status written or not (yet) seen. */
function afterApply(request: CompositeSyncRequest, answer: CompositeSyncResponse, statusSeen: boolean): CompositeSyncRequest {
  const next = structuredClone(request);
  const namespace = request.parent.metadata.namespace ?? '';
  const children: ObjectMap = Object.fromEntries(Object.keys(request.children).map((key) => [key, {}]));
  for (const desired of answer.children) {
    const [kind, name] = keyOf(desired, namespace);
    const observed = request.children[kind]?.[name];
    children[kind] = { ...children[kind], [name]: observed === undefined ? created(desired, request.parent) : updated(observed, desired) };
  }
  next.children = children;
  if (statusSeen) next.parent.status = { ...answer.status, observedGeneration: request.parent.metadata.generation ?? 0 };
  return next;
}

function call(route: string, hook: 'sync' | 'finalize', request: CompositeSyncRequest): CompositeSyncResponse {
  const fn = hookRegistry[route]?.[hook];
  if (fn === undefined) throw new Error(`no ${hook} hook for ${route}`);
  return fn(structuredClone(request), { config: DEFAULT_HOOK_CONFIG }) as CompositeSyncResponse;
}

/** What a child says, less what Metacontroller and the API server add to metadata. */
function body(child: KObject): unknown {
  const { metadata, ...rest } = child;
  return { name: metadata.name, ...rest };
}

function ids(children: readonly KObject[]): string[] {
  return children.map((child) => `${child.kind}/${child.metadata.name ?? ''}`).sort();
}

function compareTuples(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

interface StaleRun {
  fresh: CompositeSyncResponse;
  stale: CompositeSyncResponse;
}

/** Sync N, then the same sync with C_N stored and the parent one status write behind. */
function runStale(route: string, scenario: Scenario): StaleRun {
  const request = scenario.request();
  const hook = scenario.hook ?? (request.finalizing ? 'finalize' : 'sync');
  const fresh = call(route, hook, request);
  const behind = afterApply(request, fresh, false);
  scenario.meanwhile?.(behind);
  return { fresh, stale: call(route, hook, behind) };
}

export function checkStale(route: Route, scenario: Scenario): void {
  const { fresh, stale } = runStale(route.route, scenario);
  const again = new Map(stale.children.map((child) => [`${child.kind}/${child.metadata.name ?? ''}`, child]));
  for (const child of fresh.children) {
    const id = `${child.kind}/${child.metadata.name ?? ''}`;
    expect(again.get(id), `${id} is dropped`).toBeDefined();
    expect(body(again.get(id) ?? child), `${id} is rewritten`).toEqual(body(child));
  }
  expect(ids(stale.children), 'children asked for that sync N did not want').toEqual(ids(fresh.children));
  const progress = { stale: route.progress(stale.status), fresh: route.progress(fresh.status) };
  expect(
    compareTuples(progress.stale, progress.fresh),
    `status went back from ${JSON.stringify(progress.fresh)} to ${JSON.stringify(progress.stale)}`,
  ).toBeGreaterThanOrEqual(0);
  if (route.same !== undefined) expect(route.same(stale.status)).toEqual(route.same(fresh.status));
}
