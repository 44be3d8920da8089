// Typed outcomes of one state handler (STYLE.md habit 3). Handlers only propose; commit.ts
// turns an outcome into the hook response in one place.
import type { BareMetalHostStatus, ErrorType, ProvisioningState } from '../../domain/baremetalhost.js';
import type { Action, RequestParametersOf } from '../../domain/operations.js';

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

export type Outcome =
  /** Move to another state now; a capacity-gated state is entered once `via` is admitted. */
  | { kind: 'continue'; to: ProvisioningState; reason: string; via?: RequestIntent; failure?: Failure; patch?: StatusPatch }
  /** Nothing to decide until something changes: a request runs, or a new one is issued. */
  | { kind: 'wait'; reason: string; request?: RequestIntent; resyncAfterSeconds?: number; patch?: StatusPatch }
  /** The host is where it should be. */
  | { kind: 'done'; reason: string; patch?: StatusPatch; resyncAfterSeconds?: number }
  /** The pool holds the request back because the provisioning limit is reached. */
  | { kind: 'delayed'; reason: string }
  /** A request failed in a way worth retrying: record it and retry after back-off. */
  | { kind: 'transientError'; failure: Failure; retry: RequestIntent }
  /** A failure that retrying cannot fix: record it and wait for the user to change something. */
  | { kind: 'permanentError'; failure: Failure; patch?: StatusPatch }
  /** Deletion is complete: the finalizer can go. */
  | { kind: 'finalized'; reason: string };

export function cont(to: ProvisioningState, reason: string, extra: Partial<Extract<Outcome, { kind: 'continue' }>> = {}): Outcome {
  return { kind: 'continue', to, reason, ...extra };
}

export function wait(reason: string, extra: Partial<Extract<Outcome, { kind: 'wait' }>> = {}): Outcome {
  return { kind: 'wait', reason, ...extra };
}

export function done(reason: string, extra: Partial<Extract<Outcome, { kind: 'done' }>> = {}): Outcome {
  return { kind: 'done', reason, ...extra };
}

export function request(action: Action, reason: string, parameters: RequestParameters = {}): Outcome {
  return { kind: 'wait', reason, request: { action, parameters } };
}

/** What commit.ts makes of an outcome before it builds the response. */
export interface Decision {
  state: ProvisioningState;
  reason: string;
  patch: StatusPatch;
  newRequest?: RequestIntent;
  /** Keep the current request as a child (a new request always replaces it). */
  keepCurrent: boolean;
  /** The current request is a gated entry this decision still wants. */
  keepsEntry?: boolean;
  failure?: Failure;
  delayed?: boolean;
  resyncAfterSeconds?: number;
  finalized?: boolean;
}
