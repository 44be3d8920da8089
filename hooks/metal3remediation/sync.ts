// CompositeController `ironhook-metal3remediation`: parent
// Metal3Remediation, children NodeOperations and ObjectPatches (OnDelete), related the owner
// Machine, the namespace's Metal3Machines, BareMetalHosts and BMCMonitors (the monitors' poll
// times are the clock the timeout is measured with). Routes
// /hooks/metal3remediation/{sync,finalize,customize}. The host's power-off annotation is written
// by the decorator in power.ts.
import { CAPI_GROUP, CAPI_V1BETA2, CapiKind, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import { Capm3Kind } from '../../domain/capm3/types.js';
import type { CompositeSyncResponse, CustomizeResponse } from '../../domain/metacontroller.js';
import { IRONHOOK_API_VERSION } from '../../domain/operations.js';
import { parseCustomize, rec, relatedRule, relatedType } from '../kit/index.js';
import type { HookContext } from '../types.js';
import { isFinished, nodeOperation } from './children.js';
import { commit } from './commit.js';
import { attemptOf, Purpose, remediationContext, type RemediationContext } from './context.js';
import { decide, restoring } from './states.js';
import { done, wait, type Outcome } from './outcome.js';

/** What metal3remediationCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3REMEDIATION_RELATED = {
  machines: relatedType(CAPI_V1BETA2, 'machines'),
  metal3Machines: relatedType(INFRA_V1BETA2, 'metal3machines'),
  hosts: relatedType('metal3.io/v1alpha1', 'baremetalhosts'),
  monitors: relatedType(IRONHOOK_API_VERSION, 'bmcmonitors'),
};

/** Its Machine by name (owner reference, else its own name); the rest of the namespace by type. */
export function metal3remediationCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, Capm3Kind.Metal3Remediation);
  const namespace = parent.metadata.namespace ?? '';
  const machines = new Set([parent.metadata.name ?? '']);
  for (const ref of parent.metadata.ownerReferences ?? []) {
    if (ref.kind === CapiKind.Machine && ref.apiVersion.startsWith(`${CAPI_GROUP}/`)) machines.add(ref.name);
  }
  return {
    relatedResources: [
      relatedRule(METAL3REMEDIATION_RELATED.machines, namespace, { names: [...machines].sort() }),
      relatedRule(METAL3REMEDIATION_RELATED.metal3Machines, namespace),
      relatedRule(METAL3REMEDIATION_RELATED.hosts, namespace),
      relatedRule(METAL3REMEDIATION_RELATED.monitors, namespace),
    ],
  };
}

export function metal3remediationSync(request: unknown, context?: HookContext): CompositeSyncResponse {
  const ctx = remediationContext(request, context?.config.remediationOutOfServiceTaint === true);
  return commit(ctx, decide(ctx));
}

/**
 * Deletion (MachineHealthCheck deletes the remediation once the Machine is healthy, or the Machine
 * goes). The decorator removes the power-off annotation at once; a fenced Node whose labels were
 * not put back yet gets its Restore first, unless the host cannot come back (gone, or online: false).
 */
function finalizeOutcome(ctx: RemediationContext): Outcome | undefined {
  if (ctx.host === undefined || rec(ctx.host.spec).online === false) return undefined;
  const undo = restoring(ctx);
  if (undo !== undefined) return undo;
  const pending = [Purpose.Restore, Purpose.Untaint]
    .map((purpose) => nodeOperation(ctx, purpose, attemptOf(ctx)))
    .find((op) => op !== undefined && !isFinished(op));
  return pending === undefined ? undefined : wait(`waiting for ${pending.metadata.name ?? ''}`);
}

export function metal3remediationFinalize(request: unknown, context?: HookContext): CompositeSyncResponse {
  const ctx = remediationContext(request, context?.config.remediationOutOfServiceTaint === true);
  const outcome = finalizeOutcome(ctx);
  if (outcome === undefined) return { ...commit(ctx, done('deleted')), children: [], finalized: true };
  return { ...commit(ctx, outcome), finalized: false };
}
