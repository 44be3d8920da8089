// The kit's outcomes (hooks/kit/outcome.ts) for one remediation step, turned into a response
// only by commit.ts. A remediation takes one step per sync, so `continue` enters its phase at
// commit and the next sync (5 s later, upstream's requeue) runs that phase's handler.
//
//   continue  enter phase `to`; `restart` starts a new attempt (retryCount and lastRemediated)
//   wait      nothing to change yet; `requests` asks the driver pool to fence or restore (or
//             taint or untaint) the Node of the current attempt
//   done      nothing more to do: a terminal phase, or a strategy this controller does not run
import type { RemediationPhase } from '../../domain/capm3/types.js';
import type { Outcome as KitOutcome } from '../kit/index.js';

export type Phase = (typeof RemediationPhase)[keyof typeof RemediationPhase];

/** Node deletion mode: Fence, then Restore; out-of-service mode: Taint, then Untaint; Wait, the attempt's timeout clock. */
export type NodeStep = 'Fence' | 'Restore' | 'Taint' | 'Untaint' | 'Wait';

interface RemediationExtras {
  continue: { restart?: { retryCount: number } };
}

export type Outcome = KitOutcome<Phase, NodeStep, RemediationExtras, 'continue' | 'wait' | 'done'>;

export function wait(reason: string): Outcome {
  return { kind: 'wait', reason };
}

/** Ask the driver pool for `step` on the Node, then wait for it. */
export function request(step: NodeStep, reason: string): Outcome {
  return { kind: 'wait', reason, requests: [step] };
}

export function advance(to: Phase, reason: string, restart?: { retryCount: number }): Outcome {
  return { kind: 'continue', to, reason, ...(restart && { restart }) };
}

export function done(reason: string): Outcome {
  return { kind: 'done', reason };
}
