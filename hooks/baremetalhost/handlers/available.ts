// available (and legacy ready): the decisions upstream takes in order.
import { Annotation, ErrorType, ProvisioningState } from '../../../domain/baremetalhost.js';
import type { Image } from '../../../domain/baremetalhost.js';
import { canonicalJSON } from '../../../domain/canonical.js';
import { Action } from '../../../domain/operations.js';
import type { HostContext } from '../context.js';
import { cont, permanent } from '../outcome.js';
import type { Outcome, StatusPatch } from '../outcome.js';
import { managePower } from '../power.js';
import { inspectParameters, provisionParameters } from '../requests.js';
import { prepareNeeded } from './inspection.js';

function reinspectionRequested(ctx: HostContext): boolean {
  const value = ctx.annotations[Annotation.Inspect];
  const consumed = ctx.status.ironhook?.consumedAnnotations?.includes(Annotation.Inspect) ?? false;
  return value !== undefined && value !== 'disabled' && !consumed;
}

function wantsProvisioning(ctx: HostContext): boolean {
  const imageRequested = Boolean(ctx.spec.image?.url) && !ctx.status.provisioning.image?.url;
  const method = ctx.spec.customDeploy?.method;
  const deployRequested = Boolean(method) && method !== ctx.status.provisioning.customDeploy?.method;
  return imageRequested || deployRequested;
}

function sameImage(a: Image | undefined, b: Image | undefined): boolean {
  return canonicalJSON(a ?? null) === canonicalJSON(b ?? null);
}

export function handleAvailable(ctx: HostContext): Outcome {
  if (ctx.state === ProvisioningState.Ready) {
    return cont(ProvisioningState.Available, 'the legacy "ready" state is now called "available"');
  }
  if (ctx.spec.externallyProvisioned === true) {
    return cont(ProvisioningState.ExternallyProvisioned, 'externallyProvisioned was set');
  }
  if (reinspectionRequested(ctx)) {
    return cont(ProvisioningState.Inspecting, `re-inspection requested by ${Annotation.Inspect}`, {
      via: { action: Action.Inspect, parameters: inspectParameters(ctx) },
    });
  }
  if (prepareNeeded(ctx)) {
    return cont(ProvisioningState.Preparing, 'RAID or root device hints changed');
  }
  if (wantsProvisioning(ctx) && ctx.spec.online) {
    return startProvisioning(ctx);
  }
  const outcome = managePower(ctx, true);
  return wantsProvisioning(ctx) ? outcome : withPatch(outcome, resetAttempts(ctx));
}

/** Upstream's webhook rule, enforced here too: the pool must never read another namespace's Secret. */
function crossNamespaceSecrets(ctx: HostContext): string[] {
  const refs = { userData: ctx.spec.userData, networkData: ctx.spec.networkData, metaData: ctx.spec.metaData };
  return Object.entries(refs)
    .filter(([, ref]) => Boolean(ref?.namespace) && ref?.namespace !== ctx.namespace)
    .map(([field]) => `${field}: cross-namespace Secret references are not allowed`);
}

function startProvisioning(ctx: HostContext): Outcome {
  const forbidden = crossNamespaceSecrets(ctx);
  if (forbidden.length > 0) {
    return permanent({ errorType: ErrorType.Provisioning, message: forbidden.join('; '), source: 'validation' });
  }
  const limit = ctx.config.maxProvisioningRetries;
  const failures = sameImage(ctx.spec.image, ctx.status.lastAttemptedImage) ? ctx.status.provisioningFailCount : 0;
  if (limit > 0 && failures >= limit) {
    const message = `provisioning failed ${failures} times, retry limit ${limit} reached; change the image to try again`;
    return permanent({ errorType: ErrorType.Provisioning, message, source: 'validation' });
  }
  const patch: StatusPatch = { provisioningFailCount: failures, ...(ctx.spec.image && { lastAttemptedImage: ctx.spec.image }) };
  return cont(ProvisioningState.Provisioning, 'an image was requested', {
    via: { action: Action.Provision, parameters: provisionParameters(ctx) },
    patch,
  });
}

function resetAttempts(ctx: HostContext): StatusPatch {
  return ctx.status.provisioningFailCount || ctx.status.lastAttemptedImage ? { provisioningFailCount: 0, lastAttemptedImage: undefined } : {};
}

/** Add status fields to a wait or done outcome (other outcomes already say what to record). */
function withPatch(outcome: Outcome, patch: StatusPatch): Outcome {
  if (Object.keys(patch).length === 0 || (outcome.kind !== 'wait' && outcome.kind !== 'done')) {
    return outcome;
  }
  return { ...outcome, patch: { ...outcome.patch, ...patch } };
}
