// deprovisioning, powering off before delete and deleting.
import { Annotation, ErrorType, ProvisioningState } from '../../../domain/baremetalhost.js';
import type { ProvisionStatus } from '../../../domain/baremetalhost.js';
import { Action, Phase } from '../../../domain/operations.js';
import type { HostOperation } from '../../../domain/operations.js';
import type { HostContext } from '../context.js';
import { cont, finalized, request, transient } from '../outcome.js';
import type { Outcome } from '../outcome.js';
import { currentIs, deprovisionParameters } from '../requests.js';
import { everRequested } from '../prologue.js';
import { failureMessage, retryOrFail, waitForRequest } from './common.js';

/** Upstream moves on with deletion after more than this many recorded failures. */
const DELETE_GIVE_UP_AFTER = 3;

const SKIP_HINT = `; to delete without it, annotate the host with ${Annotation.Detached}`;

function failuresAfter(operation: HostOperation): number {
  return operation.spec.hostStatus.errorCount + 1;
}

export function handleDeprovisioning(ctx: HostContext): Outcome {
  const current = ctx.current;
  if (current === undefined || !currentIs(ctx, Action.Deprovision)) {
    return request(Action.Deprovision, 'deprovisioning', deprovisionParameters(ctx));
  }
  switch (current.status?.phase) {
    case Phase.Succeeded:
      return deprovisioned(ctx);
    case Phase.Failed:
      return deprovisionFailed(ctx, current);
    default:
      return waitForRequest(ctx, current);
  }
}

function deprovisioned(ctx: HostContext): Outcome {
  if (ctx.deleting) {
    return cont(ProvisioningState.PoweringOffBeforeDelete, 'deprovisioned; deleting');
  }
  const provisioning: ProvisionStatus = { ...ctx.status.provisioning, image: { url: '' } };
  delete provisioning.customDeploy;
  delete provisioning.rootDeviceHints;
  if (provisioning.raid) {
    provisioning.raid = { ...provisioning.raid, softwareRAIDVolumes: null };
  }
  return cont(ProvisioningState.Available, 'deprovisioned', { patch: { provisioning } });
}

function deprovisionFailed(ctx: HostContext, current: HostOperation): Outcome {
  if (ctx.deleting && failuresAfter(current) > DELETE_GIVE_UP_AFTER) {
    return cont(ProvisioningState.PoweringOffBeforeDelete, `gave up cleaning after ${failuresAfter(current)} failures`, {
      failure: { errorType: ErrorType.Provisioning, message: failureMessage(current), source: 'request' },
    });
  }
  const outcome = retryOrFail(ctx, current, ErrorType.Provisioning);
  return ctx.deleting ? withHint(outcome) : outcome;
}

function withHint(outcome: Outcome): Outcome {
  if (outcome.kind !== 'transient' && outcome.kind !== 'permanent') {
    return outcome;
  }
  const message = outcome.failure.message + SKIP_HINT;
  return { ...outcome, reason: message, failure: { ...outcome.failure, message } };
}

export function handlePoweringOffBeforeDelete(ctx: HostContext): Outcome {
  if (ctx.spec.disablePowerOff === true) {
    return cont(ProvisioningState.Deleting, 'disablePowerOff is set; deleting without powering off');
  }
  const current = ctx.current;
  if (current === undefined || !currentIs(ctx, Action.PowerOff, ProvisioningState.PoweringOffBeforeDelete)) {
    return request(Action.PowerOff, 'powering off before delete', { power: { mode: 'hard' } });
  }
  switch (current.status?.phase) {
    case Phase.Succeeded:
      return cont(ProvisioningState.Deleting, 'powered off', { patch: { poweredOn: false, errorCount: 0 } });
    case Phase.Failed:
      return powerOffFailed(ctx, current);
    default:
      return waitForRequest(ctx, current);
  }
}

function powerOffFailed(ctx: HostContext, current: HostOperation): Outcome {
  if (failuresAfter(current) > DELETE_GIVE_UP_AFTER) {
    return cont(ProvisioningState.Deleting, `deleting without powering off after ${failuresAfter(current)} failures`, {
      failure: { errorType: ErrorType.PowerManagement, message: failureMessage(current), source: 'request' },
    });
  }
  return withHint(retryOrFail(ctx, current, ErrorType.PowerManagement));
}

export function handleDeleting(ctx: HostContext): Outcome {
  if (!everRequested(ctx)) {
    return finalized('nothing was registered for this host');
  }
  const current = ctx.current;
  if (current === undefined || !currentIs(ctx, Action.Delete)) {
    return request(Action.Delete, 'releasing the host');
  }
  switch (current.status?.phase) {
    case Phase.Succeeded:
      return finalized('the host was released');
    case Phase.Failed:
      return transient({ errorType: ErrorType.Registration, message: failureMessage(current), source: 'request' }, { action: Action.Delete, parameters: {} });
    default:
      return waitForRequest(ctx, current);
  }
}
