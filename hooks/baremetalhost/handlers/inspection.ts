// inspecting, match profile and preparing.
import { ErrorType, ProvisioningState } from '../../../domain/baremetalhost.js';
import type { RAIDConfig, RootDeviceHints } from '../../../domain/baremetalhost.js';
import { Action, Phase } from '../../../domain/operations.js';
import type { HostContext } from '../context.js';
import { cont, request } from '../outcome.js';
import type { Outcome } from '../outcome.js';
import { profileRootDeviceHints } from '../profiles.js';
import { currentIs, inspectParameters } from '../requests.js';
import { canonicalJSON } from '../../../domain/canonical.js';
import { retryOrFail, waitForRequest } from './common.js';

export function handleInspecting(ctx: HostContext): Outcome {
  const current = ctx.current;
  if (current === undefined || !currentIs(ctx, Action.Inspect)) {
    return request(Action.Inspect, 'inspecting the hardware', inspectParameters(ctx));
  }
  switch (current.status?.phase) {
    case Phase.Succeeded:
      return cont(ProvisioningState.Preparing, 'inspection finished', {
        patch: { ...(current.status.result?.hardware && { hardware: current.status.result.hardware }) },
      });
    case Phase.Failed:
      return retryOrFail(ctx, current, ErrorType.Inspection);
    default:
      return waitForRequest(ctx, current);
  }
}

export function handleMatchProfile(): Outcome {
  return cont(ProvisioningState.Preparing, 'the legacy "match profile" state is no longer used');
}

/** The root device hints the host should use: the spec's, else the hardware profile's default. */
function desiredRootDeviceHints(ctx: HostContext): RootDeviceHints | undefined {
  if (ctx.spec.rootDeviceHints !== undefined) {
    return ctx.spec.rootDeviceHints;
  }
  const softwareRoot = ctx.spec.raid?.softwareRAIDVolumes?.some((volume) => volume.rootVolume === true) ?? false;
  return softwareRoot ? undefined : profileRootDeviceHints(ctx.status.hardwareProfile ?? 'unknown');
}

/** RAID the spec asks for that differs from what was applied (an absent `raid` keeps what is there). */
function raidChange(ctx: HostContext): RAIDConfig | undefined {
  const wanted = ctx.spec.raid;
  if (wanted === undefined) {
    return undefined;
  }
  const applied = ctx.status.provisioning.raid ?? {};
  return canonicalJSON(normalizeRAID(wanted)) === canonicalJSON(normalizeRAID(applied)) ? undefined : wanted;
}

function normalizeRAID(raid: RAIDConfig): RAIDConfig {
  return {
    hardwareRAIDVolumes: raid.hardwareRAIDVolumes ?? [],
    softwareRAIDVolumes: raid.softwareRAIDVolumes ?? [],
  };
}

export function prepareNeeded(ctx: HostContext): boolean {
  const hints = desiredRootDeviceHints(ctx);
  const hintsChanged = canonicalJSON(hints ?? null) !== canonicalJSON(ctx.status.provisioning.rootDeviceHints ?? null);
  return raidChange(ctx) !== undefined || hintsChanged;
}

export function handlePreparing(ctx: HostContext): Outcome {
  const current = ctx.current;
  if (current !== undefined && currentIs(ctx, Action.Prepare, ProvisioningState.Preparing)) {
    if (current.status?.phase === Phase.Succeeded) {
      return preparedOutcome(ctx, current.spec.prepare?.raid);
    }
    if (current.status?.phase === Phase.Failed) {
      return retryOrFail(ctx, current, ErrorType.Preparation);
    }
    return waitForRequest(ctx, current);
  }
  const raid = raidChange(ctx);
  if (raid !== undefined) {
    const hints = desiredRootDeviceHints(ctx);
    return request(Action.Prepare, 'applying RAID settings', { prepare: { raid, ...(hints && { rootDeviceHints: hints }) } });
  }
  return preparedOutcome(ctx, undefined);
}

function preparedOutcome(ctx: HostContext, raid: RAIDConfig | undefined): Outcome {
  const hints = desiredRootDeviceHints(ctx);
  const provisioning = { ...ctx.status.provisioning, ...(raid && { raid }) };
  if (hints === undefined) {
    delete provisioning.rootDeviceHints;
  } else {
    provisioning.rootDeviceHints = hints;
  }
  return cont(ProvisioningState.Available, 'preparation finished', { patch: { provisioning } });
}
