// The status half of a commit: errors, state, history, operational status, conditions and
// Ironhook's own block, all derived from the decision and what was observed.
import { Annotation, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus, IronhookHostStatus } from '../../domain/baremetalhost.js';
import { operationName } from '../../domain/naming.js';
import { Phase } from '../../domain/operations.js';
import { detachRequest } from './annotations.js';
import { advisories } from './advisories.js';
import { computeConditions } from './conditions.js';
import type { HostContext } from './context.js';
import type { Decision, Failure } from './outcome.js';
import { answeredReboots, spentReboots } from './power.js';
import { recordTransition } from './status.js';

const BOOT_MODE_STATES: readonly ProvisioningState[] = [ProvisioningState.Registering, ProvisioningState.Inspecting, ProvisioningState.Provisioning];

type ErrorFields = Pick<BareMetalHostStatus, 'errorType' | 'errorMessage' | 'errorCount'>;

function failureCount(ctx: HostContext, failure: Failure): number {
  if (failure.source === 'request') {
    return (ctx.current?.spec.hostStatus.errorCount ?? ctx.status.errorCount) + 1;
  }
  const alreadyShown = ctx.status.errorType === failure.errorType && ctx.status.errorMessage === failure.message;
  return alreadyShown ? ctx.status.errorCount : ctx.status.errorCount + 1;
}

function madeProgress(ctx: HostContext, decision: Decision): boolean {
  const phase = ctx.current?.status?.phase;
  return decision.request.kind === 'keep' && (phase === Phase.Running || phase === Phase.Succeeded);
}

function errorFields(ctx: HostContext, decision: Decision, patched: BareMetalHostStatus): ErrorFields {
  const failure = decision.failure;
  if (failure !== undefined) {
    return { errorType: failure.errorType, errorMessage: failure.message, errorCount: failureCount(ctx, failure) };
  }
  if (decision.state !== ctx.state) {
    return { errorType: undefined, errorMessage: '', errorCount: decision.patch.errorCount ?? 0 };
  }
  if (madeProgress(ctx, decision)) {
    return { errorType: undefined, errorMessage: '', errorCount: patched.errorCount };
  }
  return { errorType: patched.errorType, errorMessage: patched.errorMessage, errorCount: patched.errorCount };
}

function operationalStatus(ctx: HostContext, decision: Decision, errors: ErrorFields): OperationalStatus {
  if (decision.request.kind === 'keep' && decision.request.delayed === true) {
    return OperationalStatus.Delayed;
  }
  if (errors.errorType !== undefined) {
    return OperationalStatus.Error;
  }
  if (decision.patch.operationalStatus !== undefined) {
    return decision.patch.operationalStatus;
  }
  if (decision.state === ProvisioningState.Unmanaged) {
    return OperationalStatus.Discovered;
  }
  const stillDetached = ctx.status.operationalStatus === OperationalStatus.Detached && detachRequest(ctx.annotations) !== undefined;
  return stillDetached && !ctx.deleting ? OperationalStatus.Detached : OperationalStatus.OK;
}

function requestRecord(ctx: HostContext, decision: Decision): IronhookHostStatus['request'] {
  if (decision.request.kind === 'replace') {
    const intent = decision.request.intent;
    const sequence = ctx.nextSequence;
    return { name: operationName(ctx.name, intent.action, sequence), action: intent.action, sequence, phase: Phase.Pending };
  }
  const current = ctx.current;
  if (current !== undefined && decision.request.kind === 'keep') {
    const phase = current.status?.phase ?? Phase.Pending;
    const answered = [...new Set([...spentReboots(ctx, current), ...answeredReboots(ctx)])].sort();
    const record = { name: current.metadata.name ?? '', action: current.spec.action, sequence: current.spec.sequence, phase };
    // Remembered so that a reboot annotation added again later is not taken as answered.
    return { ...record, ...(answered.length > 0 && { answeredReboots: answered }) };
  }
  return ctx.status.ironhook?.request;
}

function consumedAnnotations(ctx: HostContext, decision: Decision, status: BareMetalHostStatus): string[] {
  const present = (key: string): boolean => ctx.annotations[key] !== undefined;
  const consumed = new Set([...(ctx.status.ironhook?.consumedAnnotations ?? []), ...answeredReboots(ctx)].filter(present));
  const rules: [string, boolean][] = [
    [Annotation.Status, true],
    [Annotation.HardwareDetails, status.hardware !== undefined],
    [Annotation.Inspect, ctx.annotations[Annotation.Inspect] !== 'disabled' && decision.state === ProvisioningState.Inspecting],
  ];
  for (const [key, acted] of rules) {
    if (acted && present(key)) {
      consumed.add(key);
    }
  }
  return [...consumed].sort();
}

export function finishStatus(ctx: HostContext, decision: Decision): BareMetalHostStatus {
  const patched: BareMetalHostStatus = { ...ctx.status, ...decision.patch };
  const errors = errorFields(ctx, decision, patched);
  const entering = decision.state !== ctx.state;
  const provisioning = { ...patched.provisioning, state: decision.state };
  if (entering && BOOT_MODE_STATES.includes(decision.state)) {
    provisioning.bootMode = ctx.spec.bootMode ?? 'UEFI';
  }
  const status: BareMetalHostStatus = {
    ...patched,
    ...errors,
    provisioning,
    operationalStatus: operationalStatus(ctx, decision, errors),
    lastUpdated: ctx.observedTime,
    ...(patched.operationHistory && { operationHistory: recordTransition(patched.operationHistory, ctx.state, decision.state, ctx.observedTime) }),
  };
  const request = requestRecord(ctx, decision);
  // What was provisioned is remembered while the image stays; deprovisioning forgets it.
  const provisionedData = decision.state === ProvisioningState.Provisioned ? patched.ironhook?.provisionedData : undefined;
  status.ironhook = {
    ...(request && { request }),
    consumedAnnotations: consumedAnnotations(ctx, decision, status),
    ...(provisionedData && { provisionedData }),
  };
  status.conditions = computeConditions({
    state: decision.state,
    operationalStatus: status.operationalStatus,
    reason: decision.reason,
    errorMessage: status.errorMessage,
    generation: ctx.generation,
    time: ctx.observedTime,
    previous: ctx.status.conditions ?? [],
    advisories: advisories({ ctx, state: decision.state, status }),
  });
  return status;
}
