// What upstream checks before the state handler runs:
// deletion, detachment, registration, and capacity-gated entries that the pool admitted.
import { ErrorType, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import { Action, GATED_ENTRY_STATE, Phase } from '../../domain/operations.js';
import type { HostOperation } from '../../domain/operations.js';
import { detachRequest } from './annotations.js';
import { STABLE_STATES, stateIs } from './context.js';
import type { HostContext } from './context.js';
import { ensureRegistered } from './handlers/registration.js';
import { retryOrFail, waitForRequest } from './handlers/common.js';
import { asStatusPatch, cont, done, finalized, proceed, request, stop } from './outcome.js';
import type { Outcome, PrologueResult } from './outcome.js';
import { deprovisionParameters } from './requests.js';

const DETACHED_POLL_SECONDS = 600;

/** A gated request issued from the current state, on its way into GATED_ENTRY_STATE[action]. */
export function pendingEntry(ctx: HostContext): { operation: HostOperation; target: ProvisioningState } | undefined {
  const operation = ctx.current;
  const target = operation === undefined ? undefined : GATED_ENTRY_STATE[operation.spec.action];
  if (operation === undefined || target === undefined || target === ctx.state || operation.spec.hostStatus.state !== ctx.state) {
    return undefined;
  }
  return { operation, target };
}

export function admitted(operation: HostOperation): boolean {
  const phase = operation.status?.phase;
  return phase === Phase.Running || phase === Phase.Succeeded || phase === Phase.Failed;
}

const DELETE_PATH: readonly ProvisioningState[] = [ProvisioningState.Deprovisioning, ProvisioningState.PoweringOffBeforeDelete, ProvisioningState.Deleting];

/** Was anything ever asked of the driver pool for this host (so there is something to release)? */
export function everRequested(ctx: HostContext): boolean {
  const { goodCredentials, triedCredentials, ironhook } = ctx.status;
  return ctx.current !== undefined || ironhook?.request !== undefined || goodCredentials !== undefined || triedCredentials !== undefined;
}

/** Where a host being deleted goes first, or undefined when it is already on its way. */
function deletionEntry(ctx: HostContext): Outcome | undefined {
  if (!everRequested(ctx)) {
    return finalized('nothing was registered for this host');
  }
  const detach = detachRequest(ctx.annotations);
  const detached = detach !== undefined || ctx.status.operationalStatus === OperationalStatus.Detached;
  if (detached && !stateIs(ctx, ProvisioningState.Deleting)) {
    return detach?.deleteAction === 'delay'
      ? done('deletion waits: the detached annotation asks for deleteAction "delay"')
      : cont(ProvisioningState.Deleting, 'the host is detached: deleting without deprovisioning or powering off');
  }
  if (stateIs(ctx, ...DELETE_PATH)) {
    return undefined;
  }
  if (stateIs(ctx, ProvisioningState.None, ProvisioningState.Unmanaged, ProvisioningState.Registering)) {
    return cont(ProvisioningState.Deleting, 'deleting a host that was never inspected');
  }
  if (stateIs(ctx, ProvisioningState.Provisioning, ProvisioningState.Provisioned)) {
    return cont(ProvisioningState.Deprovisioning, 'deleting: deprovisioning first', {
      via: { action: Action.Deprovision, parameters: deprovisionParameters(ctx) },
    });
  }
  return cont(ProvisioningState.PoweringOffBeforeDelete, 'deleting: powering off first');
}

/** Detach and re-attach; undefined when detachment does not apply now. */
function detachment(ctx: HostContext): Outcome | undefined {
  const detach = detachRequest(ctx.annotations);
  const isDetached = ctx.status.operationalStatus === OperationalStatus.Detached;
  if (detach === undefined) {
    const reattach = isDetached && ctx.current?.spec.action === Action.Detach;
    return reattach ? request(Action.Register, 're-attaching: the detached annotation was removed', { register: {} }) : undefined;
  }
  if (isDetached) {
    return done('detached: Ironhook does not manage this host until the annotation is removed', {
      patch: { operationalStatus: OperationalStatus.Detached },
      resyncAfterSeconds: DETACHED_POLL_SECONDS,
    });
  }
  if (!stateIs(ctx, ...STABLE_STATES) && !detach.force) {
    return undefined;
  }
  return detachProgress(ctx);
}

function detachProgress(ctx: HostContext): Outcome {
  const current = ctx.current;
  if (current?.spec.action !== Action.Detach) {
    return request(Action.Detach, 'detaching as the detached annotation asks');
  }
  if (current.status?.phase === Phase.Succeeded) {
    return done('detached', { patch: { operationalStatus: OperationalStatus.Detached } });
  }
  if (current.status?.phase === Phase.Failed) {
    return retryOrFail(ctx, current, ErrorType.Detach);
  }
  return waitForRequest(ctx, current);
}

function needsRegistration(ctx: HostContext): boolean {
  const exempt = [ProvisioningState.None, ProvisioningState.Unmanaged, ProvisioningState.MatchProfile, ProvisioningState.Deleting];
  return !stateIs(ctx, ...exempt) && !(ctx.deleting && stateIs(ctx, ...DELETE_PATH));
}

/** Run the checks in upstream's order: an outcome stops the sync there, a patch lets the handler run. */
export function prologue(ctx: HostContext): PrologueResult {
  const early = ctx.deleting ? deletionEntry(ctx) : detachment(ctx);
  if (early !== undefined) {
    return stop(early);
  }
  const registration = needsRegistration(ctx) ? ensureRegistered(ctx) : proceed();
  const entry = pendingEntry(ctx);
  if (registration.kind === 'continue' && entry !== undefined && admitted(entry.operation)) {
    const patch = asStatusPatch(ctx.status, registration.patch);
    return stop(cont(entry.target, `${entry.operation.spec.action} started`, { patch }));
  }
  return registration;
}
