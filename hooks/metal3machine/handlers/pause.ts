// Pause propagation: when the Cluster or the machine is paused, the associated host is paused too
// (the provider's value, with the host status saved for clusterctl move); when neither is, a pause
// the provider set on a host of this cluster is lifted.
import { CLUSTER_NAME_LABEL } from '../../../domain/capi/types.js';
import type { KObject } from '../../../domain/k8s.js';
import { consumedByMe } from '../choose.js';
import { isPausedContext, type MachineContext } from '../context.js';
import { HOST_PAUSED_ANNOTATION, MachineState as S, PAUSED_BY_CAPM3, Purpose, Reason } from '../names.js';
import { cont, poll, type Outcome, type RequestIntent } from '../outcome.js';
import { hostTarget, pauseOps, unpauseOps } from '../patches.js';
import { patchIntent, progressOf } from '../requests.js';
import { annotatedHostName, claimedHost } from './host.js';

function pauseRequest(ctx: MachineContext, host: KObject): RequestIntent[] {
  if (host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] !== undefined || !consumedByMe(ctx, host)) return [];
  const progress = progressOf(ctx, Purpose.Pause, true, host);
  return progress.kind === 'issue' ? [patchIntent(Purpose.Pause, hostTarget(host), pauseOps(ctx, host), host)] : [];
}

/** Unpause: lift the provider's pause when the host carries this cluster's label. */
function unpauseRequest(ctx: MachineContext, host: KObject): RequestIntent[] {
  const ours = host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] === PAUSED_BY_CAPM3 && host.metadata.labels?.[CLUSTER_NAME_LABEL] === ctx.clusterName;
  const progress = progressOf(ctx, Purpose.Unpause, ours, host);
  return progress.kind === 'issue' ? [patchIntent(Purpose.Unpause, hostTarget(host), unpauseOps(host), host)] : [];
}

/** Paused (Cluster spec.paused or the machine's paused annotation): pause the host too and wait. */
export function handlePaused(ctx: MachineContext): Outcome {
  const host = annotatedHostName(ctx) === '' ? undefined : claimedHost(ctx);
  const next = ctx.deleting ? S.Deprovisioning : S.WaitingForBootstrapData;
  if (!isPausedContext(ctx)) return cont(next, 'not paused', { requests: host === undefined ? [] : unpauseRequest(ctx, host) });
  return poll('the Cluster or the Metal3Machine to be unpaused', {
    requests: host === undefined ? [] : pauseRequest(ctx, host),
    conditionReason: Reason.Paused,
  });
}
