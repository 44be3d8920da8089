// provisioning, provisioned and externally provisioned.
import { ErrorType, ProvisioningState } from '../../../domain/baremetalhost.js';
import type { ProvisionStatus } from '../../../domain/baremetalhost.js';
import { Action, Phase } from '../../../domain/operations.js';
import type { HostOperation } from '../../../domain/operations.js';
import type { HostContext } from '../context.js';
import { cont, request } from '../outcome.js';
import type { Outcome, StatusPatch } from '../outcome.js';
import { provisionedDataOf } from '../provisioned-data.js';
import { managePower, observedPower } from '../power.js';
import { currentIs, deprovisionParameters, provisionParameters } from '../requests.js';
import { failureMessage, waitForRequest } from './common.js';

function deprovision(ctx: HostContext, reason: string, extra: Parameters<typeof cont>[2] = {}): Outcome {
  return cont(ProvisioningState.Deprovisioning, reason, {
    via: { action: Action.Deprovision, parameters: deprovisionParameters(ctx) },
    ...extra,
  });
}

/** Did the user take back or change (by URL) what is being or was deployed? Checksum edits do not count. */
function cancelled(ctx: HostContext, deployed: { imageURL: string; method: string }): boolean {
  const imageURL = ctx.spec.image?.url ?? '';
  const method = ctx.spec.customDeploy?.method ?? '';
  if (deployed.method !== '') {
    return method !== deployed.method;
  }
  return imageURL !== deployed.imageURL;
}

function requested(operation: HostOperation): { imageURL: string; method: string } {
  return {
    imageURL: operation.spec.provision?.image?.url ?? '',
    method: operation.spec.provision?.customDeploy?.method ?? '',
  };
}

export function handleProvisioning(ctx: HostContext): Outcome {
  const current = ctx.current;
  if (currentIs(ctx, Action.Deprovision, ProvisioningState.Provisioning)) {
    return deprovision(ctx, 'deprovisioning after provisioning failed or was cancelled');
  }
  if (current === undefined || !currentIs(ctx, Action.Provision)) {
    return request(Action.Provision, 'provisioning the image', provisionParameters(ctx));
  }
  if (cancelled(ctx, requested(current))) {
    return deprovision(ctx, 'the image was removed or its URL changed while provisioning');
  }
  switch (current.status?.phase) {
    case Phase.Succeeded:
      return cont(ProvisioningState.Provisioned, 'the image is deployed', { patch: provisionedPatch(ctx, current) });
    case Phase.Failed:
      return deprovision(ctx, 'provisioning failed; cleaning up before the next attempt', {
        failure: { errorType: ErrorType.Provisioning, message: failureMessage(current), source: 'request' },
        patch: { provisioningFailCount: ctx.status.provisioningFailCount + 1 },
      });
    default:
      return waitForRequest(ctx, current);
  }
}

function provisionedPatch(ctx: HostContext, operation: HostOperation): StatusPatch {
  const parameters = operation.spec.provision ?? {};
  const provisioning: ProvisionStatus = {
    ...ctx.status.provisioning,
    image: parameters.image ?? { url: '' },
    ...(parameters.customDeploy && { customDeploy: parameters.customDeploy }),
    ...(operation.spec.bootMode && { bootMode: operation.spec.bootMode }),
  };
  const ironhook = { ...ctx.status.ironhook, provisionedData: provisionedDataOf(operation) };
  // The power the Provision left the host in (or a newer reading) goes out with the state: the
  // next sync, which would settle it, can be seconds away when Metacontroller's queue is long.
  const observed = observedPower(ctx);
  return { provisioning, provisioningFailCount: 0, errorCount: 0, ironhook, ...(observed !== undefined && { poweredOn: observed.poweredOn }) };
}

export function handleProvisioned(ctx: HostContext): Outcome {
  const deployed = {
    imageURL: ctx.status.provisioning.image?.url ?? '',
    method: ctx.status.provisioning.customDeploy?.method ?? '',
  };
  if (cancelled(ctx, deployed)) {
    return deprovision(ctx, 'the image was removed or its URL changed');
  }
  return managePower(ctx, false);
}

export function handleExternallyProvisioned(ctx: HostContext): Outcome {
  if (ctx.spec.externallyProvisioned === true) {
    return managePower(ctx, false);
  }
  const provisioning: ProvisionStatus = {
    ...ctx.status.provisioning,
    image: ctx.spec.image ?? { url: '' },
    ...(ctx.spec.customDeploy && { customDeploy: ctx.spec.customDeploy }),
  };
  return cont(ProvisioningState.Provisioned, 'externallyProvisioned was cleared', { patch: { provisioning } });
}
