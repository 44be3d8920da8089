// Typed outcomes of one state handler, the kit's Outcome with what a
// BareMetalHost adds. Handlers only propose; commit.ts turns an outcome into the hook response.
import type { BareMetalHostStatus, ErrorType, ProvisioningState, ProvisionStatus } from '../../domain/baremetalhost.js';
import type { Action, RequestParametersOf } from '../../domain/operations.js';
import type { Outcome as KitOutcome, OutcomeOf } from '../kit/index.js';

export type RequestParameters = RequestParametersOf;

/** A side effect the hook asks the driver pool for; it becomes a new HostOperation. */
export interface RequestIntent {
  action: Action;
  parameters: RequestParameters;
  /** The pool must not start before this instant (back-off). */
  notBefore?: string;
}

export interface Failure {
  errorType: ErrorType;
  message: string;
  /** `request`: the current HostOperation failed; `validation`: the hook found the spec unusable. */
  source: 'request' | 'validation';
}

export type StatusPatch = Partial<BareMetalHostStatus>;

/** A host has one current request, so an outcome asks for at most one. */
type OneRequest = readonly [RequestIntent];

interface HostExtras {
  /** `via`: the request that takes the host to `to`; a capacity-gated state is entered once the pool admits it. */
  continue: { via?: RequestIntent; failure?: Failure; patch?: StatusPatch; requests?: never };
  /** `delayed`: the pool holds the current request back because the provisioning limit is reached. */
  wait: { requests?: OneRequest; patch?: StatusPatch; delayed?: true };
  done: { patch?: StatusPatch };
  /** Record the failure and retry with `requests` after back-off. */
  transient: { failure: Failure; requests: OneRequest };
  /** Record the failure and wait for the user to change something. */
  permanent: { failure: Failure; patch?: StatusPatch };
}

export type Outcome = KitOutcome<ProvisioningState, RequestIntent, HostExtras>;

export function cont(to: ProvisioningState, reason: string, extra: Omit<OutcomeOf<Outcome, 'continue'>, 'kind' | 'to' | 'reason'> = {}): Outcome {
  return { kind: 'continue', to, reason, ...extra };
}

export function wait(reason: string, extra: Omit<OutcomeOf<Outcome, 'wait'>, 'kind' | 'reason'> = {}): Outcome {
  return { kind: 'wait', reason, ...extra };
}

export function done(reason: string, extra: Omit<OutcomeOf<Outcome, 'done'>, 'kind' | 'reason'> = {}): Outcome {
  return { kind: 'done', reason, ...extra };
}

export function request(action: Action, reason: string, parameters: RequestParameters = {}): Outcome {
  return { kind: 'wait', reason, requests: [{ action, parameters }] };
}

export function transient(failure: Failure, retry: RequestIntent): Outcome {
  return { kind: 'transient', reason: failure.message, failure, requests: [retry] };
}

export function permanent(failure: Failure, patch?: StatusPatch): Outcome {
  return { kind: 'permanent', reason: failure.message, failure, ...(patch && { patch }) };
}

export function finalized(reason: string): Outcome {
  return { kind: 'finalized', reason };
}

/**
 * What the prologue may record before the state's handler runs: anything but the state, which
 * only a committed outcome moves (the handler is chosen by the state). `provisioning` fields merge.
 */
export type ProloguePatch = Omit<StatusPatch, 'provisioning'> & {
  provisioning?: Partial<Omit<ProvisionStatus, 'state'>> & { state?: never };
};

/** The prologue stops the sync with an outcome, or lets the state's handler run on the patched status. */
export type PrologueResult = { kind: 'stop'; outcome: Outcome } | { kind: 'continue'; patch: ProloguePatch };

export function stop(outcome: Outcome): PrologueResult {
  return { kind: 'stop', outcome };
}

export function proceed(patch: ProloguePatch = {}): PrologueResult {
  return { kind: 'continue', patch };
}

/** A prologue patch as an outcome's patch, whose `provisioning` replaces the whole block. */
export function asStatusPatch(status: BareMetalHostStatus, patch: ProloguePatch): StatusPatch {
  const { provisioning, ...rest } = patch;
  return provisioning === undefined ? rest : { ...rest, provisioning: { ...status.provisioning, ...provisioning } };
}

/**
 * What becomes of the current request: kept as a child (`delayed`: the pool holds it back for
 * the provisioning limit), replaced by a new one, or dropped (Metacontroller deletes it).
 */
export type RequestDecision = { kind: 'keep'; delayed?: true } | { kind: 'replace'; intent: RequestIntent } | { kind: 'drop' };

/** What commit.ts makes of an outcome before it builds the response. */
export interface Decision {
  state: ProvisioningState;
  reason: string;
  patch: StatusPatch;
  request: RequestDecision;
  failure?: Failure;
  resyncAfterSeconds?: number;
}
