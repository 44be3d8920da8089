// Request children: how far a wanted change has got, and the intents and child objects for it.
import { PatchReason, PURPOSE_LABEL, REQUESTED_BY_LABEL, type JsonPatchOperation, type PatchTarget } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { labelValue, operationName } from '../../domain/naming.js';
import { Phase } from '../../domain/operations.js';
import { latestRequest, type MachineContext } from './context.js';
import { BASE_VERSION_ANNOTATION, type Purpose } from './names.js';
import { isInFlight, patchReason, phaseOf } from './observed.js';
import type { RequestIntent } from './outcome.js';

export type Progress =
  /** The world already shows the change. */
  | { kind: 'satisfied' }
  /** The pool works on it, or applied it and the cache does not show it yet. */
  | { kind: 'inflight'; request: KObject }
  /** The latest attempt failed; `reason` is the patch reason (or the request's phase). */
  | { kind: 'failed'; request: KObject; reason: string }
  /** Nothing asked yet (or the target changed since the last attempt): ask now. */
  | { kind: 'issue' };

/** The target has not changed since the hook asked for `request` (same resourceVersion). */
export function unchangedSince(request: KObject, target: KObject | undefined): boolean {
  const base = request.metadata.annotations?.[BASE_VERSION_ANNOTATION];
  return base !== undefined && base === target?.metadata.resourceVersion;
}

/** How far the change `purpose` has got, given whether the observed `target` still needs it. */
export function progressOf(ctx: MachineContext, purpose: Purpose, needed: boolean, target?: KObject): Progress {
  if (!needed) return { kind: 'satisfied' };
  const latest = latestRequest(ctx, purpose);
  if (latest === undefined) return { kind: 'issue' };
  if (isInFlight(latest)) return { kind: 'inflight', request: latest };
  const succeeded = phaseOf(latest) === Phase.Succeeded;
  if (succeeded && unchangedSince(latest, target)) return { kind: 'inflight', request: latest };
  if (succeeded) return { kind: 'issue' };
  return { kind: 'failed', request: latest, reason: patchReason(latest) || phaseOf(latest) };
}

/**
 * progressOf for a patch whose tests guard what the hook saw (the target's resourceVersion, its
 * pause): a failed test only says the target moved on, so the change is decided anew once the
 * cache shows the target changed since that attempt, and waited on while it still shows the
 * version the attempt was decided on.
 */
export function guardedProgressOf(ctx: MachineContext, purpose: Purpose, needed: boolean, target: KObject): Progress {
  const progress = progressOf(ctx, purpose, needed, target);
  if (progress.kind !== 'failed' || progress.reason !== PatchReason.TestFailed) return progress;
  return unchangedSince(progress.request, target) ? { kind: 'inflight', request: progress.request } : { kind: 'issue' };
}

export function patchIntent(purpose: Purpose, target: PatchTarget, operations: JsonPatchOperation[], base?: KObject): RequestIntent {
  const version = base?.metadata.resourceVersion;
  return { kind: 'ObjectPatch', purpose, spec: { target, operations }, ...(version !== undefined && { baseVersion: version }) };
}

export function isTestFailed(progress: Progress): boolean {
  return progress.kind === 'failed' && progress.reason === PatchReason.TestFailed;
}

/** The object name a patch targets. */
export function targetName(request: KObject | undefined): string {
  const spec = request?.spec as { target?: { name?: string } } | undefined;
  return spec?.target?.name ?? '';
}

/** The child object for a new request with sequence `sequence`. */
export function requestChild(ctx: MachineContext, intent: RequestIntent, sequence: number): KObject {
  const annotations = intent.kind === 'ObjectPatch' && intent.baseVersion !== undefined ? { [BASE_VERSION_ANNOTATION]: intent.baseVersion } : undefined;
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: intent.kind,
    metadata: {
      name: operationName(ctx.name, intent.purpose, sequence),
      labels: { [PURPOSE_LABEL]: intent.purpose, [REQUESTED_BY_LABEL]: labelValue(`Metal3Machine.${ctx.name}`) },
      ...(annotations && { annotations }),
    },
    spec: intent.spec,
  };
}
