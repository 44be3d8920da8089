// The one commit point: an Outcome becomes the remediation's status, its
// children and the resync. Status is upstream's: phase, retryCount, lastRemediated.
import { RemediationPhase } from '../../domain/capm3/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { compareText } from '../kit/index.js';
import { fenceRequest, giveUpPatches, keptChildren, restoreRequest, taintRequest, timeoutRequest, untaintRequest } from './children.js';
import type { RemediationContext } from './context.js';
import type { NodeStep, Outcome } from './outcome.js';

const STEP_REQUESTS: Readonly<Record<NodeStep, (ctx: RemediationContext) => KObject>> = {
  Fence: fenceRequest,
  Restore: restoreRequest,
  Taint: taintRequest,
  Untaint: untaintRequest,
  Wait: timeoutRequest,
};

/** Upstream's requeue while a remediation is active. */
const ACTIVE_RESYNC_SECONDS = 5;

function isActive(phase: string): boolean {
  return phase === '' || phase === RemediationPhase.Running || phase === RemediationPhase.Waiting;
}

/** The context as it is after the outcome: phase, attempt and start time. */
function committed(ctx: RemediationContext, outcome: Outcome): RemediationContext {
  if (outcome.kind !== 'continue') return ctx;
  const next = { ...ctx, phase: outcome.to };
  return outcome.restart === undefined ? next : { ...next, retryCount: outcome.restart.retryCount, lastRemediated: ctx.observedTime };
}

function status(ctx: RemediationContext): Record<string, unknown> {
  return {
    ...(ctx.lastRemediated !== '' && { lastRemediated: ctx.lastRemediated }),
    ...(ctx.phase !== '' && { phase: ctx.phase }),
    retryCount: ctx.retryCount,
  };
}

/**
 * Children of the phase the sync ends in, and also those that the phase the parent's status shows
 * still keeps: the next sync may still read that status (Metacontroller's cache lags the write)
 * and must find them, or it would ask for them again. A sync that reads the new phase drops them.
 */
function children(ctx: RemediationContext, next: RemediationContext, outcome: Outcome): KObject[] {
  const kept = new Map<string, KObject>();
  const wanted = [...keptChildren(ctx, ctx.statusPhase), ...keptChildren(ctx, ctx.phase), ...keptChildren(next, next.phase)];
  for (const child of wanted) kept.set(child.metadata.name ?? '', child);
  const out = [...kept.values()];
  const steps = outcome.kind === 'wait' ? (outcome.requests ?? []) : [];
  out.push(...steps.map((step) => STEP_REQUESTS[step](next)));
  if (next.phase === RemediationPhase.Deleting) out.push(...giveUpPatches(next));
  return out.sort((a, b) => compareText(a.metadata.name ?? '', b.metadata.name ?? ''));
}

export function commit(ctx: RemediationContext, outcome: Outcome): CompositeSyncResponse {
  const next = committed(ctx, outcome);
  return {
    children: children(ctx, next, outcome),
    status: status(next),
    ...(isActive(next.phase) && outcome.kind !== 'done' && { resyncAfterSeconds: ACTIVE_RESYNC_SECONDS }),
  };
}
