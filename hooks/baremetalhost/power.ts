// Power management in the stable states: `online`, reboot
// annotations and disablePowerOff, against the newest observation of the host's power.
import { Annotation, ErrorType } from '../../domain/baremetalhost.js';
import { Action, Phase, isFinished } from '../../domain/operations.js';
import type { HostOperation, PowerMode } from '../../domain/operations.js';
import { rebootRequests } from './annotations.js';
import type { RebootRequest } from './annotations.js';
import { requestRecordOf } from './context.js';
import type { HostContext } from './context.js';
import { retryOrFail, waitForRequest } from './handlers/common.js';
import { done, request, wait } from './outcome.js';
import type { Outcome, RequestParameters } from './outcome.js';

const POWER_ACTIONS: ReadonlySet<string> = new Set([Action.PowerOn, Action.PowerOff, Action.Reboot]);

interface PowerObservation {
  poweredOn: boolean;
  time: string;
}

function isPowerRequest(operation: HostOperation | undefined): operation is HostOperation {
  return operation !== undefined && POWER_ACTIONS.has(operation.spec.action);
}

/** The newer of the monitor's reading and the current request's result. */
function reading(poweredOn: boolean | undefined, time: string | undefined): PowerObservation | undefined {
  return poweredOn === undefined || !time ? undefined : { poweredOn, time };
}

function fromRequest(operation: HostOperation | undefined): PowerObservation | undefined {
  const status = operation?.status;
  return status?.phase === Phase.Succeeded ? reading(status.result?.poweredOn, status.completionTime) : undefined;
}

/** The later reading; on a tie the request's, since the monitor may not have read after it. */
function newer(monitor: PowerObservation | undefined, request: PowerObservation | undefined): PowerObservation | undefined {
  if (monitor === undefined || request === undefined) {
    return monitor ?? request;
  }
  return Date.parse(request.time) >= Date.parse(monitor.time) ? request : monitor;
}

/** The host's power as last observed: the monitor's reading or the current request's result, whichever is newer. */
export function observedPower(ctx: HostContext): PowerObservation | undefined {
  const monitor = ctx.monitor?.status;
  return newer(reading(monitor?.poweredOn, monitor?.observedTime), fromRequest(ctx.current));
}

/**
 * Reboot annotations the current request has answered: it succeeded, and it was issued for them.
 * A phased key stays pending after a PowerOff (it keeps the host off until its owner removes it);
 * only a Reboot answers it. A key answered before, removed since and added again is a new request.
 */
export function answeredReboots(ctx: HostContext): string[] {
  const current = ctx.current;
  if (current?.status?.phase !== Phase.Succeeded) {
    return [];
  }
  const spent = spentReboots(ctx, current);
  const consumed = ctx.status.ironhook?.consumedAnnotations ?? [];
  const answers = (key: string): boolean => key === Annotation.Reboot || current.spec.action === Action.Reboot;
  const live = (key: string): boolean => ctx.annotations[key] !== undefined && (!spent.includes(key) || consumed.includes(key));
  return (current.spec.power?.reboots ?? []).filter((key) => answers(key) && live(key));
}

/** Keys `operation` answered in an earlier sync, as the status recorded them. */
export function spentReboots(ctx: HostContext, operation: HostOperation): string[] {
  return requestRecordOf(ctx, operation)?.answeredReboots ?? [];
}

/** Reboot annotations that still ask for something: not yet answered, and honoured in this state. */
function pendingReboots(ctx: HostContext, forcedOnly: boolean): RebootRequest[] {
  const settled = new Set([...(ctx.status.ironhook?.consumedAnnotations ?? []), ...answeredReboots(ctx)]);
  return rebootRequests(ctx.annotations).filter((reboot) => !settled.has(reboot.key) && (reboot.force || !forcedOnly));
}

function unfinishedPowerRequest(ctx: HostContext): HostOperation | undefined {
  const current = ctx.current;
  return isPowerRequest(current) && !isFinished(current.status?.phase) ? current : undefined;
}

/**
 * Bring power to what `online` and the reboot annotations ask for.
 * `forcedOnly`: in `available` only reboot annotations with `force: true` count.
 * A reboot annotation is answered by a request made for it, never by a reading: a reading can be
 * older than the annotation, and a host that is already off still gets a PowerOff (which the pool
 * answers from the BMC without acting).
 */
export function managePower(ctx: HostContext, forcedOnly: boolean): Outcome {
  const inFlight = unfinishedPowerRequest(ctx);
  if (inFlight !== undefined) {
    return waitForRequest(ctx, inFlight);
  }
  const reboots = pendingReboots(ctx, forcedOnly);
  const observed = observedPower(ctx);
  if (observed === undefined) {
    return wait('waiting for the driver pool to read the power state');
  }
  if (reboots.length > 0 && ctx.spec.disablePowerOff === true) {
    return request(Action.Reboot, 'rebooting: disablePowerOff keeps the host from staying off', {
      power: powerParameters(rebootMode(ctx, reboots), reboots),
    });
  }
  const wantOn = ctx.spec.online && reboots.length === 0;
  const bareRebootPending = reboots.some((reboot) => reboot.key === Annotation.Reboot);
  if (observed.poweredOn === wantOn && !bareRebootPending) {
    return done(`power is ${wantOn ? 'on' : 'off'} as requested`, { patch: settledPatch(ctx, observed) });
  }
  return changePower(ctx, wantOn, reboots);
}

function powerParameters(mode: PowerMode, reboots: RebootRequest[]): RequestParameters['power'] {
  return { mode, ...(reboots.length > 0 && { reboots: reboots.map((reboot) => reboot.key) }) };
}

function changePower(ctx: HostContext, wantOn: boolean, reboots: RebootRequest[]): Outcome {
  const action = wantOn ? Action.PowerOn : Action.PowerOff;
  const current = ctx.current;
  if (current?.spec.action === action && current.status?.phase === Phase.Failed) {
    return retryOrFail(ctx, current, ErrorType.PowerManagement);
  }
  if (!wantOn && ctx.spec.disablePowerOff === true) {
    return done('the host stays on: disablePowerOff is set');
  }
  const reason = wantOn ? 'powering on (online: true)' : powerOffReason(reboots);
  return request(action, reason, { power: wantOn ? { mode: 'hard' } : powerParameters(rebootMode(ctx, reboots), reboots) });
}

function powerOffReason(reboots: RebootRequest[]): string {
  return reboots.length > 0 ? `powering off for ${reboots.map((reboot) => reboot.key).join(', ')}` : 'powering off (online: false)';
}

/** Soft unless an annotation asks for hard, or an earlier attempt failed (upstream escalates). */
function rebootMode(ctx: HostContext, reboots: RebootRequest[]): 'hard' | 'soft' {
  return reboots.some((reboot) => reboot.mode === 'hard') || ctx.status.errorCount > 0 ? 'hard' : 'soft';
}

function settledPatch(ctx: HostContext, observed: PowerObservation): { poweredOn: boolean; errorCount?: number } {
  const succeeded = isPowerRequest(ctx.current) && ctx.current.status?.phase === Phase.Succeeded;
  return { poweredOn: observed.poweredOn, ...(succeeded && ctx.status.errorCount > 0 ? { errorCount: 0 } : {}) };
}
