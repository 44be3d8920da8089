// The one place where a handler's outcome becomes the hook response: the state transition is
// committed, the capacity gate enforced, errors counted, and the children assembled.
import { backoffSeconds, addSeconds } from '../../domain/backoff.js';
import { ErrorType, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { GATED_ENTRY_STATE, Phase } from '../../domain/operations.js';
import { sortedByKindAndName } from '../kit/index.js';
import type { OutcomeOf } from '../kit/index.js';
import { hasBMC } from './context.js';
import type { HostContext } from './context.js';
import { firmwareSettingsChild, hardwareDataChild, monitorChild } from './children.js';
import { describeRequest } from './handlers/common.js';
import type { Decision, Outcome, RequestDecision, RequestIntent } from './outcome.js';
import { admitted, pendingEntry } from './prologue.js';
import { newOperation, keptOperation } from './requests.js';
import { finishStatus } from './finish.js';
import { statusSnapshot } from './status.js';

const KEEP: RequestDecision = { kind: 'keep' };
const DROP: RequestDecision = { kind: 'drop' };

function replace(intent: RequestIntent): RequestDecision {
  return { kind: 'replace', intent };
}

/** Keep the current request, unless it is a gated entry that this outcome no longer asks for. */
function keepUnlessEntry(ctx: HostContext, delayed?: true): RequestDecision {
  const entry = pendingEntry(ctx);
  if (entry !== undefined && !admitted(entry.operation)) {
    return DROP;
  }
  return delayed === undefined ? KEEP : { kind: 'keep', delayed };
}

type Entry = Pick<Decision, 'state' | 'request'> & { reason?: string };

/** A capacity-gated state is entered from the state before, once the pool admits its request. */
function gatedEntry(ctx: HostContext, to: ProvisioningState, via: RequestIntent): Entry {
  const entry = pendingEntry(ctx);
  if (entry?.operation.spec.action !== via.action) {
    return { state: ctx.state, request: replace(via) };
  }
  if (admitted(entry.operation)) {
    return { state: to, request: KEEP };
  }
  if (entry.operation.status?.phase === Phase.Delayed) {
    const reason = entry.operation.status.delayReason ?? `${describeRequest(entry.operation)} waits for a provisioning slot`;
    return { state: ctx.state, request: { kind: 'keep', delayed: true }, reason };
  }
  return { state: ctx.state, request: KEEP, reason: `waiting for the driver pool to start ${describeRequest(entry.operation)}` };
}

function decideContinue(ctx: HostContext, outcome: OutcomeOf<Outcome, 'continue'>): Decision {
  const base = { reason: outcome.reason, patch: outcome.patch ?? {}, ...(outcome.failure && { failure: outcome.failure }) };
  const via = outcome.via;
  if (via === undefined) {
    return { ...base, state: outcome.to, request: keepUnlessEntry(ctx) };
  }
  if (GATED_ENTRY_STATE[via.action] !== outcome.to || outcome.to === ctx.state) {
    return { ...base, state: outcome.to, request: replace(via) };
  }
  return { ...base, ...gatedEntry(ctx, outcome.to, via) };
}

function retryAfterBackoff(ctx: HostContext, retry: RequestIntent): RequestIntent {
  const current = ctx.current;
  const failedAt = current?.status?.completionTime ?? ctx.observedTime;
  const errorCount = (current?.spec.hostStatus.errorCount ?? ctx.status.errorCount) + 1;
  return { ...retry, notBefore: addSeconds(failedAt, backoffSeconds(errorCount, ctx.uid)) };
}

function decideWait(ctx: HostContext, outcome: OutcomeOf<Outcome, 'wait'>): Decision {
  const next = outcome.requests?.[0];
  const request = next === undefined ? keepUnlessEntry(ctx, outcome.delayed) : replace(next);
  return { state: ctx.state, reason: outcome.reason, patch: outcome.patch ?? {}, request, ...resync(outcome.resyncAfterSeconds) };
}

function decide(ctx: HostContext, outcome: Outcome): Decision {
  const stay = { state: ctx.state, reason: outcome.reason };
  switch (outcome.kind) {
    case 'continue':
      return decideContinue(ctx, outcome);
    case 'wait':
      return decideWait(ctx, outcome);
    case 'done':
      return { ...stay, patch: outcome.patch ?? {}, request: keepUnlessEntry(ctx), ...resync(outcome.resyncAfterSeconds) };
    case 'transient':
      return { ...stay, patch: {}, request: replace(retryAfterBackoff(ctx, outcome.requests[0])), failure: outcome.failure };
    case 'permanent':
      return { ...stay, patch: outcome.patch ?? {}, request: keepUnlessEntry(ctx), failure: outcome.failure };
    case 'finalized':
      return { ...stay, patch: {}, request: DROP };
  }
}

function resync(seconds: number | undefined): { resyncAfterSeconds?: number } {
  return seconds === undefined ? {} : { resyncAfterSeconds: seconds };
}

function monitorWanted(ctx: HostContext, decision: Decision, status: BareMetalHostStatus): boolean {
  const unmanaged = decision.state === ProvisioningState.None || decision.state === ProvisioningState.Unmanaged;
  const invalid = decision.failure?.source === 'validation' && decision.failure.errorType === ErrorType.Registration;
  return hasBMC(ctx) && !unmanaged && !invalid && status.operationalStatus !== OperationalStatus.Detached;
}

function requestChild(ctx: HostContext, request: RequestDecision, status: BareMetalHostStatus): KObject | undefined {
  switch (request.kind) {
    case 'replace':
      return newOperation(ctx, request.intent, statusSnapshot(status));
    case 'keep':
      return ctx.current && keptOperation(ctx.current);
    case 'drop':
      return undefined;
  }
}

function assembleChildren(ctx: HostContext, decision: Decision, status: BareMetalHostStatus): KObject[] {
  const children = [hardwareDataChild(ctx, status), firmwareSettingsChild(ctx, status), requestChild(ctx, decision.request, status)];
  if (monitorWanted(ctx, decision, status)) {
    children.push(monitorChild(ctx));
  }
  return sortedByKindAndName(children.filter((child): child is KObject => child !== undefined));
}

export function commit(ctx: HostContext, outcome: Outcome): CompositeSyncResponse {
  const decision = decide(ctx, outcome);
  const status = finishStatus(ctx, decision);
  // Deletion is complete: the finalizer can go, and no child is wanted any more.
  const finalized = outcome.kind === 'finalized';
  const children = finalized ? [] : assembleChildren(ctx, decision, status);
  const response: CompositeSyncResponse = { status: { ...status }, children };
  if (decision.resyncAfterSeconds !== undefined) {
    response.resyncAfterSeconds = decision.resyncAfterSeconds;
  }
  if (ctx.deleting) {
    response.finalized = finalized;
  }
  return response;
}
