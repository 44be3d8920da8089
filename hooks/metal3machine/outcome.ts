// Typed outcomes of one state handler (STYLE.md habit 3). Handlers only propose; commit.ts turns
// the outcome of a sync into the hook response in one place.
import type { NodeOperationSpec, ObjectPatchSpec } from '../../domain/capi/requests.js';
import type { MachineState, Purpose } from './names.js';

/** A new request child the hook asks the driver pool for. */
export type RequestIntent =
  | { kind: 'ObjectPatch'; purpose: Purpose; spec: ObjectPatchSpec; baseVersion?: string }
  | { kind: 'NodeOperation'; purpose: Purpose; spec: NodeOperationSpec };

/** Status fields a handler sets (merged into the machine's status at commit). */
export type StatusPatch = Record<string, unknown>;

interface Common {
  requests?: RequestIntent[];
  status?: StatusPatch;
}

export type Outcome =
  /** This state is satisfied: go on to `to` in the same sync. */
  | (Common & { kind: 'continue'; to: MachineState })
  /** Nothing to decide until something changes; `reason` says what the machine waits for. */
  | (Common & { kind: 'wait'; reason: string; conditionReason?: string; resyncAfterSeconds?: number })
  /** The machine is where it should be. */
  | (Common & { kind: 'done'; reason: string })
  /** Something failed that may pass: shown as a failure reason, retried after `resyncAfterSeconds`. */
  | (Common & { kind: 'transient'; reason: string; conditionReason: string; resyncAfterSeconds: number })
  /** Something failed that only a user can fix: failureReason/failureMessage set, nothing retried. */
  | (Common & { kind: 'permanent'; reason: string; conditionReason: string; failureReason: string })
  /** Deletion is complete: the finalizer can go. */
  | { kind: 'finalized'; reason: string };

export const RESYNC_SECONDS = 30;

export function cont(to: MachineState, extra: Common = {}): Outcome {
  return { kind: 'continue', to, ...extra };
}

export function wait(reason: string, extra: Common & { conditionReason?: string; resyncAfterSeconds?: number } = {}): Outcome {
  return { kind: 'wait', reason, ...extra };
}

/** A wait on something no related-object watch reports: look again after 30 s (upstream's requeue). */
export function poll(reason: string, extra: Common & { conditionReason?: string } = {}): Outcome {
  return { kind: 'wait', reason, resyncAfterSeconds: RESYNC_SECONDS, ...extra };
}

/** The outcome of a whole sync: the state it stopped in, with everything the handlers asked for. */
export interface Decision {
  state: MachineState;
  outcome: Exclude<Outcome, { kind: 'continue' }>;
  requests: RequestIntent[];
  status: StatusPatch;
  /** The states passed through, in order (for conditions: what is already satisfied). */
  passed: MachineState[];
}
