// Pause propagation and `clusterctl move`. clusterctl pauses the Cluster, then waits until no object
// it moves carries `clusterctl.cluster.x-k8s.io/block-move`. An associated host that is not paused
// keeps that annotation (set by the claim, set again by the unpause or a block-move request); when
// the Cluster or the machine is paused, the host is paused with its status saved and block-move
// removed in one resourceVersion-guarded patch. Upstream main pauses at once; Ironhook first lets a
// host in the middle of an operation (provisioning, deprovisioning, inspecting, …) reach a stable
// state, keeping block-move meanwhile, so a move never carries a half-done operation.
import { CLUSTER_NAME_LABEL } from '../../../domain/capi/types.js';
import { isStableState } from '../../../domain/baremetalhost.js';
import type { KObject } from '../../../domain/k8s.js';
import { consumedByMe } from '../choose.js';
import { isPausedContext, type MachineContext } from '../context.js';
import { BLOCK_MOVE_ANNOTATION, HOST_PAUSED_ANNOTATION, MachineState as S, PAUSED_BY_CAPM3, Purpose, Reason } from '../names.js';
import { hostState } from '../observed.js';
import { cont, poll, type Outcome, type RequestIntent } from '../outcome.js';
import { blockMoveOps, hostTarget, pauseOps, unpauseOps } from '../patches.js';
import { guardedProgressOf, patchIntent } from '../requests.js';
import { annotatedHostName, claimedHost } from './host.js';

const UNPAUSED = 'the Cluster or the Metal3Machine to be unpaused';

function annotationOf(host: KObject, key: string): string | undefined {
  return host.metadata.annotations?.[key];
}

/** Block-move set (`present`) or removed when the host shows otherwise and no attempt is pending. */
function blockMoveRequest(ctx: MachineContext, host: KObject, present: boolean): RequestIntent[] {
  const needed = (annotationOf(host, BLOCK_MOVE_ANNOTATION) !== undefined) !== present;
  const progress = guardedProgressOf(ctx, Purpose.BlockMove, needed, host);
  return progress.kind === 'issue' ? [patchIntent(Purpose.BlockMove, hostTarget(host), blockMoveOps(ctx, host, present), host)] : [];
}

function pauseRequest(ctx: MachineContext, host: KObject): RequestIntent[] {
  const progress = guardedProgressOf(ctx, Purpose.Pause, annotationOf(host, HOST_PAUSED_ANNOTATION) === undefined, host);
  return progress.kind === 'issue' ? [patchIntent(Purpose.Pause, hostTarget(host), pauseOps(ctx, host), host)] : [];
}

/**
 * Unpause: lift the provider's pause when the host carries this cluster's label; a host that stays
 * this machine's gets block-move back in the same patch.
 */
function unpauseRequest(ctx: MachineContext, host: KObject): RequestIntent[] {
  const ours = annotationOf(host, HOST_PAUSED_ANNOTATION) === PAUSED_BY_CAPM3 && host.metadata.labels?.[CLUSTER_NAME_LABEL] === ctx.clusterName;
  const progress = guardedProgressOf(ctx, Purpose.Unpause, ours, host);
  if (progress.kind !== 'issue') return [];
  const blockMove = consumedByMe(ctx, host) && !ctx.deleting;
  return [patchIntent(Purpose.Unpause, hostTarget(host), unpauseOps(ctx, host, blockMove), host)];
}

/**
 * Not paused: a paused host gets the provider's pause lifted (never a pause of somebody else); a
 * host this machine holds and does not release keeps block-move.
 */
function notPausedRequests(ctx: MachineContext, host: KObject): RequestIntent[] {
  if (annotationOf(host, HOST_PAUSED_ANNOTATION) !== undefined) return unpauseRequest(ctx, host);
  return ctx.deleting || !consumedByMe(ctx, host) ? [] : blockMoveRequest(ctx, host, true);
}

/**
 * Paused, the host this machine's: a paused host (by anyone) no longer needs block-move; a host in
 * a stable state is paused; one in the middle of an operation keeps block-move and runs on.
 */
function pauseHost(ctx: MachineContext, host: KObject): Outcome {
  const name = host.metadata.name ?? '';
  if (annotationOf(host, HOST_PAUSED_ANNOTATION) !== undefined) {
    return poll(UNPAUSED, { requests: blockMoveRequest(ctx, host, false), conditionReason: Reason.Paused });
  }
  const state = hostState(host);
  if (isStableState(state)) return poll(UNPAUSED, { requests: pauseRequest(ctx, host), conditionReason: Reason.Paused });
  return poll(
    `BareMetalHost ${name} to leave state "${state || 'none'}" before it is paused too (until then it keeps ${BLOCK_MOVE_ANNOTATION}, so clusterctl move waits)`,
    { requests: blockMoveRequest(ctx, host, true), conditionReason: Reason.WaitingForHostPause },
  );
}

/** Paused (Cluster spec.paused or the machine's paused annotation): pause the host too and wait. */
export function handlePaused(ctx: MachineContext): Outcome {
  const host = annotatedHostName(ctx) === '' ? undefined : claimedHost(ctx);
  const next = ctx.deleting ? S.Deprovisioning : S.WaitingForBootstrapData;
  if (!isPausedContext(ctx)) return cont(next, 'not paused', { requests: host === undefined ? [] : notPausedRequests(ctx, host) });
  if (host === undefined || !consumedByMe(ctx, host)) return poll(UNPAUSED, { conditionReason: Reason.Paused });
  return pauseHost(ctx, host);
}
