// Deletion: deprovision the host, wait until it is no longer provisioned, release it
// (with the node-reuse label when the template asks for it), then let the finalizer go.
import { PatchReason } from '../../../domain/capi/requests.js';
import type { KObject } from '../../../domain/k8s.js';
import { rec, str } from '../../kit/index.js';
import { consumedByMe, reuseLabelValue } from '../choose.js';
import { latestRequest, type MachineContext } from '../context.js';
import { FailureReason, HOST_WRITES, MachineState as S, Purpose, Reason } from '../names.js';
import { hostState, isInFlight, patchReason } from '../observed.js';
import { cont, wait, type Outcome, type RequestIntent } from '../outcome.js';
import { credentialsName, credentialsReleaseOps, deprovisionOps, hostTarget, releaseOps, secretTarget } from '../patches.js';
import { isTestFailed, patchIntent, progressOf, unchangedSince } from '../requests.js';
import { claimedHost, claimedHostName } from './host.js';

/** Host states in which deprovisioning is still under way. */
const STILL_PROVISIONED: readonly string[] = [
  'preparing',
  'provisioning',
  'provisioned',
  'deprovisioning',
  'powering off before delete',
  'deleting',
  'unknown',
];

function inFlightHostWrite(ctx: MachineContext): KObject | undefined {
  return HOST_WRITES.map((purpose) => latestRequest(ctx, purpose)).find(isInFlight);
}

/** The host is ours as far as the cache can tell (an applied claim the cache does not show yet counts). */
function holdsHost(ctx: MachineContext, host: KObject): boolean {
  if (consumedByMe(ctx, host)) return true;
  const claim = latestRequest(ctx, Purpose.Claim);
  return claim !== undefined && patchReason(claim) === PatchReason.Applied && unchangedSince(claim, host);
}

export function handleDeprovisioning(ctx: MachineContext): Outcome {
  const name = claimedHostName(ctx);
  const host = claimedHost(ctx);
  const pending = inFlightHostWrite(ctx);
  if (pending !== undefined)
    return wait(`request ${pending.metadata.name ?? ''} on BareMetalHost ${name} to finish before deprovisioning`, { conditionReason: Reason.Deleting });
  if (host === undefined || !holdsHost(ctx, host)) return cont(S.Finalized, 'no host of this machine to deprovision');
  const ops = deprovisionOps(ctx, host);
  const progress = progressOf(ctx, Purpose.Deprovision, ops.length > 0, host);
  if (progress.kind === 'satisfied') return cont(S.WaitingForDeprovision, `deprovisioning of BareMetalHost ${name} requested`);
  if (isTestFailed(progress)) return cont(S.Finalized, `BareMetalHost ${name} is no longer this machine's`);
  if (progress.kind === 'failed') return deleteFailed(`deprovisioning BareMetalHost ${name}`, progress.reason);
  const requests = progress.kind === 'issue' ? [patchIntent(Purpose.Deprovision, hostTarget(host), ops, host)] : [];
  return wait(`the driver pool to deprovision BareMetalHost ${name}`, { requests, conditionReason: Reason.Deleting });
}

function deleteFailed(what: string, reason: string): Outcome {
  return { kind: 'permanent', reason: `${what} failed: ${reason}`, conditionReason: Reason.Deleting, failureReason: FailureReason.Delete };
}

export function handleWaitingForDeprovision(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  const state = hostState(host);
  const name = host?.metadata.name ?? '';
  if (STILL_PROVISIONED.includes(state)) return wait(`BareMetalHost ${name} to finish deprovisioning (state: ${state})`, { conditionReason: Reason.Deleting });
  if (state === 'externally provisioned' && rec(host?.status).poweredOn !== false)
    return wait(`externally provisioned BareMetalHost ${name} to power off`, { conditionReason: Reason.Deleting });
  return cont(S.Releasing, `BareMetalHost ${name} is deprovisioned`);
}

/** Node reuse: only with the template's nodeReuse and a Cluster that is not being deleted. */
function releaseReuse(ctx: MachineContext): string | undefined {
  const reuse = rec(rec(ctx.template?.spec)).nodeReuse === true;
  const clusterLives = ctx.cluster !== undefined && ctx.cluster.metadata.deletionTimestamp === undefined;
  return reuse && clusterLives ? reuseLabelValue(ctx) : undefined;
}

function releaseRequests(ctx: MachineContext, host: KObject): RequestIntent[] {
  const requests = [patchIntent(Purpose.Release, hostTarget(host), releaseOps(ctx, host, releaseReuse(ctx)), host)];
  const secretLabelled = latestRequest(ctx, Purpose.CredentialsLabel) !== undefined;
  if (secretLabelled && credentialsName(host) !== '' && latestRequest(ctx, Purpose.CredentialsRelease) === undefined) {
    requests.push(patchIntent(Purpose.CredentialsRelease, secretTarget(host), credentialsReleaseOps(ctx)));
  }
  return requests;
}

export function handleReleasing(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  if (host === undefined) return cont(S.Finalized, 'no host to release');
  const progress = progressOf(ctx, Purpose.Release, consumedByMe(ctx, host), host);
  if (progress.kind === 'satisfied' || isTestFailed(progress)) return cont(S.Finalized, `BareMetalHost ${host.metadata.name ?? ''} is released`);
  if (progress.kind === 'failed') return deleteFailed(`releasing BareMetalHost ${host.metadata.name ?? ''}`, progress.reason);
  const requests = progress.kind === 'issue' ? releaseRequests(ctx, host) : [];
  return wait(`the driver pool to release BareMetalHost ${host.metadata.name ?? ''}`, { requests, conditionReason: Reason.Deleting });
}

export function handleFinalized(ctx: MachineContext): Outcome {
  const secret = latestRequest(ctx, Purpose.CredentialsRelease);
  if (isInFlight(secret))
    return wait(`the driver pool to remove the cluster-name label from Secret ${str(rec(rec(secret?.spec).target).name)}`, {
      conditionReason: Reason.Deleting,
    });
  return { kind: 'finalized', reason: 'the host is released' };
}
