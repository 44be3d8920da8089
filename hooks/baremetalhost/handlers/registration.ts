// Registration: "", unmanaged, registering, and the "is the BMC registered" prologue that
// upstream runs in every managed state.
import { ErrorType, OperationalStatus, ProvisioningState } from '../../../domain/baremetalhost.js';
import type { CredentialsStatus } from '../../../domain/baremetalhost.js';
import { validateHostBMC } from '../../../domain/bmc/index.js';
import type { HostBMCInput } from '../../../domain/bmc/index.js';
import { Action, Phase, isFinished } from '../../../domain/operations.js';
import type { CredentialsReport, HostOperation } from '../../../domain/operations.js';
import { hasBMC, inspectionDisabled, requestRecordOf } from '../context.js';
import type { HostContext } from '../context.js';
import { cont, done, permanent, proceed, request, stop } from '../outcome.js';
import type { Outcome, ProloguePatch, PrologueResult } from '../outcome.js';
import { isKnownProfile, profileName, profileRootDeviceHints } from '../profiles.js';
import { inspectParameters } from '../requests.js';
import { retryOrFail, waitForRequest } from './common.js';

const UNMANAGED_POLL_SECONDS = 600;

const REGISTER = { action: Action.Register, parameters: { register: {} } };

export function handleNone(ctx: HostContext): Outcome {
  if (hasBMC(ctx)) {
    return registerFirst(ctx, 'BMC details are present');
  }
  return cont(ProvisioningState.Unmanaged, 'no BMC details', { patch: { operationalStatus: OperationalStatus.Discovered } });
}

export function handleUnmanaged(ctx: HostContext): Outcome {
  if (hasBMC(ctx)) {
    return registerFirst(ctx, 'BMC details were added');
  }
  return done('the host has no BMC details; add spec.bmc to manage it', { resyncAfterSeconds: UNMANAGED_POLL_SECONDS });
}

/** Enter registering, asking for registration in the same step unless the settings cannot work. */
function registerFirst(ctx: HostContext, reason: string): Outcome {
  const problems = registrationProblems(ctx);
  if (problems.length === 0) {
    return cont(ProvisioningState.Registering, reason, { via: REGISTER });
  }
  const failure = { errorType: ErrorType.Registration, message: problems.join('; '), source: 'validation' as const };
  return cont(ProvisioningState.Registering, reason, { failure });
}

export function handleRegistering(ctx: HostContext): Outcome {
  if (ctx.spec.externallyProvisioned === true) {
    return cont(ProvisioningState.ExternallyProvisioned, 'registered; the host is externally provisioned');
  }
  if (inspectionDisabled(ctx)) {
    return cont(ProvisioningState.Preparing, 'registered; inspection is disabled');
  }
  return cont(ProvisioningState.Inspecting, 'registered', {
    via: { action: Action.Inspect, parameters: inspectParameters(ctx) },
  });
}

/** Problems with the BMC settings that no driver can get past (what CEL could not reject). */
function bmcInput(ctx: HostContext): HostBMCInput {
  const { address = '', credentialsName = '' } = ctx.spec.bmc ?? {};
  const { bootMACAddress = '', bootMode = 'UEFI', inspectionMode = 'agent' } = ctx.spec;
  return {
    address,
    credentialsName,
    bootMACAddress,
    bootMode,
    inspectionMode,
    inspectDisabledByAnnotation: inspectionDisabled(ctx) && inspectionMode !== 'disabled',
    ...raidInput(ctx),
  };
}

/** Which RAID volumes the spec asks for (no driver configures either kind yet). */
function raidInput(ctx: HostContext): Pick<HostBMCInput, 'hasHardwareRAID' | 'hasSoftwareRAID'> {
  const { hardwareRAIDVolumes, softwareRAIDVolumes } = ctx.spec.raid ?? {};
  return { hasHardwareRAID: (hardwareRAIDVolumes ?? []).length > 0, hasSoftwareRAID: (softwareRAIDVolumes ?? []).length > 0 };
}

function registrationProblems(ctx: HostContext): string[] {
  const input = bmcInput(ctx);
  const problems = validateHostBMC(input);
  const profile = profileName(ctx.status.hardwareProfile, ctx.spec.hardwareProfile, input.address);
  return isKnownProfile(profile) ? problems : [...problems, `hardware profile "${profile}" is not known`];
}

/**
 * The registration prologue. Stops with an outcome when registration is what the host waits for,
 * or lets the state handler run (with the registration results, if any) when the BMC is registered.
 */
export function ensureRegistered(ctx: HostContext): PrologueResult {
  const problems = registrationProblems(ctx);
  if (problems.length > 0) {
    return stop(permanent({ errorType: ErrorType.Registration, message: problems.join('; '), source: 'validation' }));
  }
  const current = ctx.current;
  if (current?.spec.action === Action.Register) {
    return registerProgress(ctx, current);
  }
  if (isRegistered(ctx) || waitsForCurrentRequest(ctx)) {
    return proceed();
  }
  return stop(request(Action.Register, 'registering the BMC', { register: {} }));
}

/**
 * Registration waits for the current request: a request that succeeded is committed by its state
 * first, whatever changed in the BMC settings (a Register in the sync that first sees the success
 * would replace the request and lose its outcome: a finished Provision was run a second time,
 * writing the image twice); and a request still running goes on when only the same Secret got a
 * new resourceVersion (new credentials, or only a label such as Cluster API's cluster-name), since
 * the pool reads the Secret for every BMC call. The host registers again afterwards.
 */
function waitsForCurrentRequest(ctx: HostContext): boolean {
  const current = ctx.current;
  if (current === undefined) return false;
  const sameSecret = ctx.status.goodCredentials?.credentials?.name === ctx.spec.bmc?.credentialsName;
  return successNotCommitted(ctx, current) || (sameSecret && !isFinished(current.status?.phase));
}

/** `current` succeeded, and no status written since says so (status.ironhook.request records the phase it saw). */
function successNotCommitted(ctx: HostContext, current: HostOperation): boolean {
  return current.status?.phase === Phase.Succeeded && requestRecordOf(ctx, current)?.phase !== Phase.Succeeded;
}

function registerProgress(ctx: HostContext, current: HostOperation): PrologueResult {
  if (current.status?.phase === Phase.Succeeded) {
    return credentialsChanged(ctx, current)
      ? stop(request(Action.Register, 'the credentials changed', { register: {} }))
      : proceed(registeredPatch(ctx, current));
  }
  return stop(registrationPending(ctx, current));
}

function registrationPending(ctx: HostContext, current: HostOperation): Outcome {
  const tried = triedCredentials(current);
  if (current.status?.phase === Phase.Failed) {
    if (credentialsChanged(ctx, current) || ctx.generation > current.spec.hostGeneration) {
      return request(Action.Register, 'retrying registration with the changed settings', { register: {} });
    }
    return retryOrFail(ctx, current, ErrorType.Registration, { ...(tried && { triedCredentials: tried }) });
  }
  return waitForRequest(ctx, current, { ...(tried && { triedCredentials: tried }) });
}

function isRegistered(ctx: HostContext): boolean {
  const good = ctx.status.goodCredentials;
  if (good === undefined || good.credentials?.name !== ctx.spec.bmc?.credentialsName) {
    return false;
  }
  const observed = ctx.monitor?.status?.credentials;
  return observed === undefined || observed.credentialsVersion === good.credentialsVersion;
}

/** Did the Secret change since the pool used it for `operation`? */
function credentialsChanged(ctx: HostContext, operation: HostOperation): boolean {
  const observed = ctx.monitor?.status?.credentials;
  const used = operation.status?.result?.credentials;
  if (operation.spec.bmc.credentialsName !== ctx.spec.bmc?.credentialsName) {
    return true;
  }
  return observed !== undefined && observed.credentialsVersion !== used?.credentialsVersion;
}

function toCredentialsStatus(report: CredentialsReport): CredentialsStatus {
  return { credentials: { name: report.name, namespace: report.namespace }, credentialsVersion: report.credentialsVersion };
}

function triedCredentials(operation: HostOperation): CredentialsStatus | undefined {
  const report = operation.status?.result?.credentials;
  return report === undefined ? undefined : toCredentialsStatus(report);
}

function registeredProvisioning(ctx: HostContext, provisioningID: string | undefined, profile: string): ProloguePatch['provisioning'] {
  const rootDeviceHints = ctx.status.provisioning.rootDeviceHints ?? ctx.spec.rootDeviceHints ?? profileRootDeviceHints(profile);
  return { ID: provisioningID ?? (ctx.status.provisioning.ID || ctx.uid), ...(rootDeviceHints && { rootDeviceHints }) };
}

function registeredPatch(ctx: HostContext, operation: HostOperation): ProloguePatch {
  const { credentials, provisioningID, poweredOn } = operation.status?.result ?? {};
  const good = credentials ? toCredentialsStatus(credentials) : undefined;
  const profile = profileName(ctx.status.hardwareProfile, ctx.spec.hardwareProfile, ctx.spec.bmc?.address ?? '');
  return {
    ...(good && { goodCredentials: good, triedCredentials: good }),
    hardwareProfile: profile,
    provisioning: registeredProvisioning(ctx, provisioningID, profile),
    ...(poweredOn === undefined ? {} : { poweredOn }),
  };
}
