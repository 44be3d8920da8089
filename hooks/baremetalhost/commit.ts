// The one place where a handler's outcome becomes the hook response: the state transition is
// committed, the capacity gate enforced, errors counted, and the children assembled.
import { backoffSeconds, addSeconds } from '../../domain/backoff.js';
import { ErrorType, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import { canonicalize } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { Phase } from '../../domain/operations.js';
import { hasBMC } from './context.js';
import type { HostContext } from './context.js';
import { firmwareSettingsChild, hardwareDataChild, monitorChild } from './children.js';
import { sortedByKindAndName } from '../kit/index.js';
import { describeRequest } from './handlers/common.js';
import type { Decision, Outcome, RequestIntent } from './outcome.js';
import { GATE_TARGET, admitted, pendingEntry } from './prologue.js';
import { newOperation, keptOperation } from './requests.js';
import { finishStatus } from './finish.js';


type ContinueOutcome = Extract<Outcome, { kind: 'continue' }>;

function isGated(ctx: HostContext, outcome: ContinueOutcome): outcome is ContinueOutcome & { via: RequestIntent } {
  const via = outcome.via;
  return via !== undefined && GATE_TARGET[via.action] === outcome.to && outcome.to !== ctx.state;
}

function decideContinue(ctx: HostContext, outcome: ContinueOutcome): Decision {
  const base = { reason: outcome.reason, patch: outcome.patch ?? {}, ...(outcome.failure && { failure: outcome.failure }) };
  if (!isGated(ctx, outcome)) {
    const via = outcome.via;
    return via === undefined ? { ...base, state: outcome.to, keepCurrent: true } : { ...base, state: outcome.to, keepCurrent: false, newRequest: via };
  }
  return decideGatedEntry(ctx, outcome, base);
}

function decideGatedEntry(ctx: HostContext, outcome: ContinueOutcome & { via: RequestIntent }, base: Pick<Decision, 'reason' | 'patch' | 'failure'>): Decision {
  const entry = pendingEntry(ctx);
  if (entry?.operation.spec.action !== outcome.via.action) {
    return { ...base, state: ctx.state, keepCurrent: false, newRequest: outcome.via };
  }
  if (admitted(entry.operation)) {
    return { ...base, state: outcome.to, keepCurrent: true };
  }
  if (entry.operation.status?.phase === Phase.Delayed) {
    const reason = entry.operation.status.delayReason ?? `${describeRequest(entry.operation)} waits for a provisioning slot`;
    return { ...base, state: ctx.state, keepCurrent: true, keepsEntry: true, delayed: true, reason };
  }
  const reason = `waiting for the driver pool to start ${describeRequest(entry.operation)}`;
  return { ...base, state: ctx.state, keepCurrent: true, keepsEntry: true, reason };
}

function retryAfterBackoff(ctx: HostContext, retry: RequestIntent): RequestIntent {
  const current = ctx.current;
  const failedAt = current?.status?.completionTime ?? ctx.observedTime;
  const errorCount = (current?.spec.hostStatus.errorCount ?? ctx.status.errorCount) + 1;
  return { ...retry, notBefore: addSeconds(failedAt, backoffSeconds(errorCount, ctx.uid)) };
}

function decideWait(ctx: HostContext, outcome: Extract<Outcome, { kind: 'wait' }>): Decision {
  const base = { state: ctx.state, reason: outcome.reason, patch: outcome.patch ?? {}, ...resync(outcome.resyncAfterSeconds) };
  return outcome.request === undefined ? { ...base, keepCurrent: true } : { ...base, keepCurrent: false, newRequest: outcome.request };
}

export function decide(ctx: HostContext, outcome: Outcome): Decision {
  const stay = { state: ctx.state, patch: {} };
  switch (outcome.kind) {
    case 'continue':
      return decideContinue(ctx, outcome);
    case 'wait':
      return decideWait(ctx, outcome);
    case 'done':
      return { ...stay, reason: outcome.reason, patch: outcome.patch ?? {}, keepCurrent: true, ...resync(outcome.resyncAfterSeconds) };
    case 'delayed':
      return { ...stay, reason: outcome.reason, keepCurrent: true, delayed: true };
    case 'transientError':
      return { ...stay, reason: outcome.failure.message, keepCurrent: false, failure: outcome.failure, newRequest: retryAfterBackoff(ctx, outcome.retry) };
    case 'permanentError':
      return { ...stay, reason: outcome.failure.message, patch: outcome.patch ?? {}, keepCurrent: true, failure: outcome.failure };
    case 'finalized':
      return { ...stay, reason: outcome.reason, keepCurrent: false, finalized: true };
  }
}

function resync(seconds: number | undefined): { resyncAfterSeconds?: number } {
  return seconds === undefined ? {} : { resyncAfterSeconds: seconds };
}

/** Keep the current request unless it is a gated entry the handler no longer asks for. */
function keepsCurrent(ctx: HostContext, decision: Decision): boolean {
  const entry = pendingEntry(ctx);
  if (entry !== undefined && !admitted(entry.operation)) {
    return decision.keepsEntry === true;
  }
  return decision.keepCurrent && decision.newRequest === undefined;
}

/** What a request carries of the status committed with it (conditions and hardware have homes of their own). */
const NOT_COMMITTED = new Set(['conditions', 'hardware', 'lastUpdated']);

function committedStatus(status: BareMetalHostStatus): Record<string, unknown> {
  return Object.fromEntries(Object.entries(status).filter(([key]) => !NOT_COMMITTED.has(key)));
}

function monitorWanted(ctx: HostContext, decision: Decision, status: BareMetalHostStatus): boolean {
  const unmanaged = decision.state === ProvisioningState.None || decision.state === ProvisioningState.Unmanaged;
  const invalid = decision.failure?.source === 'validation' && decision.failure.errorType === ErrorType.Registration;
  return hasBMC(ctx) && !unmanaged && !invalid && status.operationalStatus !== OperationalStatus.Detached;
}

function assembleChildren(ctx: HostContext, decision: Decision, status: BareMetalHostStatus): KObject[] {
  if (decision.finalized === true) {
    return [];
  }
  const children: (KObject | undefined)[] = [hardwareDataChild(ctx, status), firmwareSettingsChild(ctx, status)];
  if (decision.newRequest !== undefined) {
    const snapshot = { state: decision.state, errorCount: status.errorCount, provisioningFailCount: status.provisioningFailCount ?? 0, status: committedStatus(status) };
    children.push(newOperation(ctx, decision.newRequest, snapshot));
  } else if (ctx.current !== undefined && decision.keepCurrent) {
    children.push(keptOperation(ctx.current));
  }
  if (monitorWanted(ctx, decision, status)) {
    children.push(monitorChild(ctx));
  }
  return sortedByKindAndName(children.filter((child): child is KObject => child !== undefined));
}

export function commit(ctx: HostContext, outcome: Outcome): CompositeSyncResponse {
  const proposed = decide(ctx, outcome);
  const decision = { ...proposed, keepCurrent: keepsCurrent(ctx, proposed) };
  const status = finishStatus(ctx, decision);
  const children = assembleChildren(ctx, decision, status);
  const response: CompositeSyncResponse = { status: canonicalize(status) as Record<string, unknown>, children: canonicalize(children) as KObject[] };
  if (decision.resyncAfterSeconds !== undefined) {
    response.resyncAfterSeconds = decision.resyncAfterSeconds;
  }
  if (ctx.deleting) {
    response.finalized = decision.finalized === true;
  }
  return response;
}
