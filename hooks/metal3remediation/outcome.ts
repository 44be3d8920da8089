// Typed outcomes of one remediation step (STYLE.md habit 3), turned into a response only by
// commit.ts.
import type { RemediationPhase } from '../../domain/capm3/types.js';

export type Phase = (typeof RemediationPhase)[keyof typeof RemediationPhase];

export type NodeStep = 'Fence' | 'Restore';

export type Outcome =
  /** Nothing to change yet; look again in 5 s (upstream's requeue). */
  | { kind: 'wait'; reason: string }
  /** Ask the driver pool to fence or restore the Node of the current attempt, then wait. */
  | { kind: 'request'; step: NodeStep; reason: string }
  /** Enter `phase`; `restart` starts a new attempt (retryCount and lastRemediated). */
  | { kind: 'advance'; phase: Phase; reason: string; restart?: { retryCount: number } }
  /** Nothing more to do: a terminal phase, or a strategy this controller does not run. */
  | { kind: 'stop'; reason: string };

export function wait(reason: string): Outcome {
  return { kind: 'wait', reason };
}

export function advance(phase: Phase, reason: string, restart?: { retryCount: number }): Outcome {
  return { kind: 'advance', phase, reason, ...(restart && { restart }) };
}
