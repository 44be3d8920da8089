// The final status write of a request, retried: a lost final write would make a finished request
// look unfinished (and run it again). A request deleted meanwhile (404) is not retried.
import { isNotFound } from '../kube/errors.js';
import type { Clock } from '../pool/clock.js';

export interface FinalWritePolicy {
  attempts: number;
  clock: Clock;
  /** The pause after a failed attempt; none when absent. */
  pauseMs?: (attempt: number) => number;
  /** Logs a failed attempt. */
  onFailure: (attempt: number, error: unknown) => void;
}

export type FinalWriteResult = 'written' | 'gone' | 'failed';

export async function writeFinalStatus(write: () => Promise<void>, policy: FinalWritePolicy): Promise<FinalWriteResult> {
  for (let attempt = 0; attempt < policy.attempts; attempt += 1) {
    try {
      await write();
      return 'written';
    } catch (error) {
      if (isNotFound(error)) {
        return 'gone';
      }
      policy.onFailure(attempt, error);
      if (policy.pauseMs !== undefined) {
        await policy.clock.sleep(policy.pauseMs(attempt));
      }
    }
  }
  return 'failed';
}
