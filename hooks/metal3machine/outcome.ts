// The kit's outcomes (hooks/kit/outcome.ts) with what a Metal3Machine adds: status fields a
// handler sets, the condition reason shown while it waits or fails, and upstream's
// failureReason. Handlers only propose; commit.ts turns the outcome of a sync into the hook
// response in one place.
import type { NodeOperationSpec, ObjectPatchSpec } from '../../domain/capi/requests.js';
import type { Outcome as KitOutcome, OutcomeOf, Settled } from '../kit/index.js';
import type { MachineState, Purpose } from './names.js';

/** A new request child the hook asks the driver pool for. */
export type RequestIntent =
  { kind: 'ObjectPatch'; purpose: Purpose; spec: ObjectPatchSpec; baseVersion?: string } | { kind: 'NodeOperation'; purpose: Purpose; spec: NodeOperationSpec };

/** Status fields a handler sets (merged into the machine's status at commit). */
export type StatusPatch = Record<string, unknown>;

interface MachineExtras {
  continue: { status?: StatusPatch };
  /** `conditionReason`: the v1beta1 Ready reason while the machine waits. */
  wait: { status?: StatusPatch; conditionReason?: string };
  done: { status?: StatusPatch; requests?: readonly RequestIntent[] };
  /** Shown as a failure reason, retried after `resyncAfterSeconds`. */
  transient: { status?: StatusPatch; conditionReason: string; resyncAfterSeconds: number };
  /** failureReason/failureMessage set, nothing retried. */
  permanent: { status?: StatusPatch; conditionReason: string; failureReason: string };
}

export type Outcome = KitOutcome<MachineState, RequestIntent, MachineExtras>;

export const RESYNC_SECONDS = 30;

export function cont(to: MachineState, reason: string, extra: Omit<OutcomeOf<Outcome, 'continue'>, 'kind' | 'to' | 'reason'> = {}): Outcome {
  return { kind: 'continue', to, reason, ...extra };
}

type WaitExtra = Omit<OutcomeOf<Outcome, 'wait'>, 'kind' | 'reason'>;

export function wait(reason: string, extra: WaitExtra = {}): Outcome {
  return { kind: 'wait', reason, ...extra };
}

/** A wait on something no related-object watch reports: look again after 30 s (upstream's requeue). */
export function poll(reason: string, extra: Omit<WaitExtra, 'resyncAfterSeconds'> = {}): Outcome {
  return { kind: 'wait', reason, resyncAfterSeconds: RESYNC_SECONDS, ...extra };
}

/** The outcome of a whole sync: the state it stopped in, with everything the handlers asked for. */
export interface Decision {
  state: MachineState;
  outcome: Settled<Outcome>;
  requests: RequestIntent[];
  status: StatusPatch;
  /** The states passed through, in order (for conditions: what is already satisfied). */
  passed: MachineState[];
}
