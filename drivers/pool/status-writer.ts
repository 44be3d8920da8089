// Writes a HostOperation's status through the status subresource (JSON merge patch; spec is
// never touched) and keeps the pool's local view of it. Step updates are best effort; the final
// status is retried, because a lost final write would make the request look interrupted.
import type { HostOperationStatus } from '../../domain/operations.js';
import type { Clock } from './clock.js';
import { CancelledError } from '../errors.js';
import { isNotFound } from '../kube/errors.js';
import type { KubePort } from '../kube/port.js';
import { writeFinalStatus } from '../runner/final-status.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';

/** A merge patch of the status: null removes a field. */
export type StatusPatch = { [K in keyof HostOperationStatus]?: HostOperationStatus[K] | null };

const FINAL_ATTEMPTS = 6;

/** A write that happens only if it is not settled first (see OperationStatusWriter.later). */
export interface DeferredWrite {
  /** Cancels the write if it has not started, else waits for it (so later writes stay in order). */
  settle(): Promise<void>;
}

export class OperationStatusWriter {
  private current: HostOperationStatus;

  constructor(
    private readonly kube: KubePort,
    private readonly target: { namespace: string; name: string },
    initial: HostOperationStatus | undefined,
    private readonly options: { clock: Clock; logger: Logger },
  ) {
    this.current = structuredClone(initial ?? {});
  }

  get status(): HostOperationStatus {
    return this.current;
  }

  private apply(patch: StatusPatch): void {
    const kept = Object.entries(this.current).filter(([key]) => !(key in patch));
    const set = Object.entries(patch).filter(([, value]) => value !== null);
    this.current = Object.fromEntries([...kept, ...set]);
  }

  /** Best effort: a failure is logged, except that a deleted request cancels the execution. */
  async write(patch: StatusPatch): Promise<void> {
    this.apply(patch);
    try {
      await this.kube.patchStatus('hostoperations', this.target.namespace, this.target.name, patch);
    } catch (error) {
      if (isNotFound(error)) {
        throw new CancelledError('the request was deleted');
      }
      this.options.logger.warn(
        { namespace: this.target.namespace, operation: this.target.name, err: errorFields(error) },
        'could not write progress to the request status',
      );
    }
  }

  /**
   * `patch` after `delayMs`, unless settled first: progress that only matters while it lasts
   * ("step X is running") costs no write, and no Metacontroller sync of the host, when the step
   * is over sooner. Failures are logged as write's are.
   */
  later(patch: StatusPatch, delayMs: number): DeferredWrite {
    let written: Promise<void> | undefined;
    const timer = this.options.clock.setTimer(delayMs, () => {
      written = this.write(patch).catch(() => undefined);
    });
    return {
      settle: async () => {
        timer.cancel();
        await written;
      },
    };
  }

  /** The final status: retried with back-off; false when it could not be written. */
  async writeFinal(patch: StatusPatch): Promise<boolean> {
    this.apply(patch);
    const result = await writeFinalStatus(() => this.kube.patchStatus('hostoperations', this.target.namespace, this.target.name, patch), {
      attempts: FINAL_ATTEMPTS,
      clock: this.options.clock,
      pauseMs: (attempt) => 500 * 2 ** attempt,
      onFailure: (attempt, error) => {
        this.options.logger.warn(
          { namespace: this.target.namespace, operation: this.target.name, attempt, err: errorFields(error) },
          'could not write the final request status; retrying',
        );
      },
    });
    return result === 'written';
  }
}
