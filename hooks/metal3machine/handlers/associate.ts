// Associating: choose a host, claim it (with the host spec when there is no dataTemplate) in a
// resourceVersion-guarded patch, then write the machine's own `metal3.io/BareMetalHost`
// annotation and label the BMC Secret.
import { PatchReason } from '../../../domain/capi/requests.js';
import type { KObject } from '../../../domain/k8s.js';
import { chooseHost, consumedByMe } from '../choose.js';
import { hostNamed, latestRequest, type MachineContext } from '../context.js';
import { FailureReason, MachineState as S, Purpose, Reason } from '../names.js';
import { consumerOf, isInFlight, patchReason } from '../observed.js';
import { cont, RESYNC_SECONDS, wait, type Outcome, type RequestIntent } from '../outcome.js';
import { associateOps, claimOps, credentialsLabelOps, credentialsName, hostTarget, secretTarget, selfTarget } from '../patches.js';
import { patchIntent, progressOf, targetName, unchangedSince } from '../requests.js';
import { hasRef, hostSpecChanges, hostSpecOps } from '../host-spec.js';
import { annotatedHostName, foreignAnnotationNamespace } from './host.js';
import { crossNamespaceReferences, specSecrets } from './provisioning.js';

function permanent(reason: string): Outcome {
  return { kind: 'permanent', reason, conditionReason: Reason.AssociateFailed, failureReason: FailureReason.Create };
}

/**
 * Without a dataTemplate the host spec goes into the claim itself, as upstream's Associate patches
 * consumerRef and spec together: one resourceVersion-guarded write, so a host is never claimed
 * without its image and user data. With one (or a reference WaitingForData will refuse) it waits
 * for SettingHostSpec.
 */
function claimHostSpec(ctx: MachineContext, host: KObject): Record<string, unknown> {
  if (hasRef(ctx.spec.dataTemplate) || crossNamespaceReferences(ctx).length > 0) return {};
  return hostSpecChanges(ctx, { userData: ctx.status.userData, ...specSecrets(ctx) }, host);
}

function claimIntent(ctx: MachineContext, host: KObject): RequestIntent {
  return patchIntent(Purpose.Claim, hostTarget(host), [...claimOps(ctx, host), ...hostSpecOps(claimHostSpec(ctx, host))], host);
}

/** Once per host: the BMC credentials Secret gets the cluster-name label (for clusterctl move). */
function credentialsLabel(ctx: MachineContext, host: KObject): RequestIntent[] {
  const done = latestRequest(ctx, Purpose.CredentialsLabel);
  if (credentialsName(host) === '' || ctx.clusterName === '' || done !== undefined) return [];
  return [patchIntent(Purpose.CredentialsLabel, secretTarget(host), credentialsLabelOps(ctx))];
}

/** The claim went through: record the association on the machine itself. */
function afterClaim(ctx: MachineContext, hostName: string): Outcome {
  const host = hostNamed(ctx, hostName);
  const progress = progressOf(ctx, Purpose.Associate, true, ctx.m3m);
  const requests = progress.kind === 'issue' ? [patchIntent(Purpose.Associate, selfTarget(ctx), associateOps(ctx, hostName), ctx.m3m)] : [];
  if (host !== undefined) requests.push(...credentialsLabel(ctx, host));
  if (progress.kind === 'failed') return permanent(`writing the metal3.io/BareMetalHost annotation failed: ${progress.reason}`);
  return wait(`the metal3.io/BareMetalHost annotation naming BareMetalHost ${hostName} on this Metal3Machine`, {
    requests,
    conditionReason: Reason.WaitingForHostClaim,
  });
}

/** A lost claim whose host the cache still shows as it was: wait for the change to arrive. */
function staleAfterLoss(ctx: MachineContext, lost: KObject | undefined): boolean {
  if (lost === undefined) return false;
  const host = hostNamed(ctx, targetName(lost));
  return host !== undefined && unchangedSince(lost, host);
}

function choose(ctx: MachineContext, lost: KObject | undefined): Outcome {
  if (staleAfterLoss(ctx, lost)) {
    return wait(`the new state of BareMetalHost ${targetName(lost)}, which changed before the claim`, { conditionReason: Reason.WaitingForHostClaim });
  }
  const choice = chooseHost(ctx);
  switch (choice.kind) {
    case 'invalid':
      return permanent(choice.error);
    case 'none':
    case 'reuseWait':
      return { kind: 'transient', reason: choice.reason, conditionReason: Reason.AssociateFailed, resyncAfterSeconds: RESYNC_SECONDS };
    case 'host':
      if (consumedByMe(ctx, choice.host)) return afterClaim(ctx, choice.host.metadata.name ?? '');
      return wait(`the driver pool to claim BareMetalHost ${choice.host.metadata.name ?? ''}`, {
        requests: [claimIntent(ctx, choice.host)],
        conditionReason: Reason.WaitingForHostClaim,
      });
  }
}

/** The annotation names a host: make sure it is (still) ours. */
function annotated(ctx: MachineContext, hostName: string): Outcome {
  const host = hostNamed(ctx, hostName);
  if (host === undefined)
    return wait(`BareMetalHost ${hostName} (named by the metal3.io/BareMetalHost annotation)`, { conditionReason: Reason.AssociateFailed });
  const requests = credentialsLabel(ctx, host);
  if (consumedByMe(ctx, host))
    return cont(S.WaitingForData, `BareMetalHost ${hostName} is claimed by this machine`, { requests, status: { ironhook: { host: hostName } } });
  const consumer = consumerOf(host);
  if (consumer !== undefined) return permanent(`BareMetalHost ${hostName} is consumed by ${consumer.kind} ${consumer.name}`);
  const progress = progressOf(ctx, Purpose.Claim, true, host);
  if (progress.kind === 'issue' || progress.kind === 'failed') requests.push(claimIntent(ctx, host));
  return wait(`the driver pool to claim BareMetalHost ${hostName} again`, { requests, conditionReason: Reason.WaitingForHostClaim });
}

export function handleAssociating(ctx: MachineContext): Outcome {
  const foreign = foreignAnnotationNamespace(ctx);
  if (foreign !== '') {
    return permanent(
      `the metal3.io/BareMetalHost annotation names a BareMetalHost in namespace ${foreign}, not the machine's namespace ${ctx.namespace}: cross-namespace references are not allowed`,
    );
  }
  const hostName = annotatedHostName(ctx);
  if (hostName !== '') return annotated(ctx, hostName);
  const claim = latestRequest(ctx, Purpose.Claim);
  if (isInFlight(claim)) return wait(`the driver pool to claim BareMetalHost ${targetName(claim)}`, { conditionReason: Reason.WaitingForHostClaim });
  if (patchReason(claim) === PatchReason.Applied) return afterClaim(ctx, targetName(claim));
  return choose(ctx, claim);
}
