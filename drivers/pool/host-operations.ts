// HostOperations on the request runner (docs/architecture.md, rules 1-5): the key is the host,
// the policy picks the host's request with the highest spec.sequence that is not being deleted
// (a lower running one is cancelled when a higher one appears, a deleted one when it
// disappears); notBefore is a wait on the pool's clock; gated actions wait for a provisioning
// slot as Delayed. Transient failures are not retried here: the hook makes a new request.
import PQueue from 'p-queue';
import { CAPACITY_GATED_ACTIONS, Phase } from '../../domain/operations.js';
import type { HostOperation, HostOperationStatus } from '../../domain/operations.js';
import type { KObject } from '../../domain/k8s.js';
import type { KubePort, WatchEvent } from '../kube/port.js';
import { logDiscarded } from '../runner/stale.js';
import { RequestRunner } from '../runner/runner.js';
import type { Admission, AdmissionPolicy, Candidate, RequestKind, RunOutcome } from '../runner/runner.js';
import { ProvisioningCapacity } from './capacity.js';
import type { Clock } from './clock.js';
import { tryParseAddress } from './connect.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';
import type { PoolMetrics } from './metrics.js';

export interface HostOperationDeps {
  clock: Clock;
  logger: Logger;
  metrics: PoolMetrics;
  kube: KubePort;
  namespaces: readonly string[];
  concurrency: number;
  provisioningLimit: number;
  run: (op: HostOperation, signal: AbortSignal) => Promise<HostOperationStatus | undefined>;
  onFinished?: (op: HostOperation) => void;
}

function uidOf(op: HostOperation): string {
  return op.metadata.uid ?? `${op.metadata.namespace ?? ''}/${op.metadata.name ?? ''}`;
}

/** Gated actions on schemes that do not boot ISOs hold a provisioning slot. */
export function isCapacityGated(op: HostOperation): boolean {
  if (!CAPACITY_GATED_ACTIONS.has(op.spec.action)) {
    return false;
  }
  return tryParseAddress(op.spec.bmc.address)?.capabilities.bootsISO !== true;
}

function isOperation(object: unknown): object is HostOperation {
  const spec = (object as { spec?: { host?: { name?: unknown }; sequence?: unknown } }).spec;
  return typeof spec?.host?.name === 'string' && typeof spec.sequence === 'number';
}

/** The selection policy: the highest sequence not being deleted; the first seen wins a tie. */
export function highestSequence(candidates: readonly Candidate<HostOperation>[]): HostOperation | undefined {
  let best: HostOperation | undefined;
  for (const { request } of candidates) {
    if (request.metadata.deletionTimestamp === undefined && (best === undefined || request.spec.sequence > best.spec.sequence)) {
      best = request;
    }
  }
  return best;
}

/** notBefore and the provisioning limit, between selection and the worker queue. */
class HostAdmission implements AdmissionPolicy<HostOperation> {
  private readonly delayedOnce = new Set<string>();

  constructor(
    private readonly deps: HostOperationDeps,
    readonly capacity: ProvisioningCapacity,
  ) {}

  admit(op: HostOperation, key: string): Admission {
    const resumed = op.status?.phase === Phase.Running;
    const notBefore = op.spec.notBefore === undefined ? Number.NaN : Date.parse(op.spec.notBefore);
    const wait = notBefore - this.deps.clock.now();
    if (!resumed && wait > 0) {
      if (op.status?.phase === undefined) {
        this.writeQuietly(op, { phase: Phase.Pending, message: `waiting until ${op.spec.notBefore ?? ''} (notBefore)` });
      }
      return { kind: 'wait', ms: wait };
    }
    if (isCapacityGated(op) && !this.capacity.tryAcquire(uidOf(op), resumed)) {
      this.delay(op, key);
      return { kind: 'hold' };
    }
    return { kind: 'run' };
  }

  private delay(op: HostOperation, key: string): void {
    this.capacity.wait(key);
    const uid = uidOf(op);
    if (!this.delayedOnce.has(uid)) {
      this.delayedOnce.add(uid);
      const labels = this.deps.metrics.hostLabels(op.metadata.namespace ?? '', op.spec.host.name);
      (op.spec.action === 'Deprovision' ? this.deps.metrics.delayedDeprovisioning : this.deps.metrics.delayedProvisioning).inc(labels);
    }
    if (op.status?.phase !== Phase.Delayed) {
      const delayReason = `the provisioning limit of ${String(this.capacity.limit)} concurrent inspections, provisionings and deprovisionings is reached (PROVISIONING_LIMIT); waiting for a slot`;
      this.writeQuietly(op, { phase: Phase.Delayed, delayReason, message: delayReason });
    }
  }

  unhold(key: string): void {
    this.capacity.unwait(key);
  }

  release(op: HostOperation): string[] {
    return this.capacity.release(uidOf(op));
  }

  forget(op: HostOperation): void {
    this.delayedOnce.delete(uidOf(op));
  }

  heldChanged(count: number): void {
    this.deps.metrics.delayed.set(count);
  }

  private writeQuietly(op: HostOperation, status: HostOperationStatus): void {
    this.deps.kube.patchStatus('hostoperations', op.metadata.namespace ?? '', op.metadata.name ?? '', { ...status }).catch((error: unknown) => {
      this.deps.logger.warn({ namespace: op.metadata.namespace, operation: op.metadata.name, err: errorFields(error) }, 'could not write the request status');
    });
  }
}

function hostOperationKind(deps: HostOperationDeps, admission: HostAdmission): RequestKind<HostOperation> {
  return {
    resource: 'hostoperations',
    cancelOnStop: true,
    admission,
    forget: (op) => {
      admission.forget(op);
    },
    wellFormed: (object: KObject): object is HostOperation => {
      if (isOperation(object)) {
        return true;
      }
      deps.logger.warn(
        { namespace: object.metadata.namespace, operation: object.metadata.name },
        'ignoring a HostOperation without spec.host.name or spec.sequence',
      );
      return false;
    },
    key: (op) => `${op.metadata.namespace ?? ''}/${op.spec.host.name}`,
    select: highestSequence,
    execute: async (op, { signal }): Promise<RunOutcome> => {
      const status = await deps.run(op, signal);
      if (status === undefined) {
        // Cancelled: resumable. Otherwise found deleted while the watch still shows it: never loop on it.
        return signal.aborted ? { kind: 'cancelled' } : { kind: 'finished' };
      }
      deps.onFinished?.(op);
      return { kind: 'finished' };
    },
    discarded: (op, error) => {
      logDiscarded(deps.logger, { namespace: op.metadata.namespace, operation: op.metadata.name, action: op.spec.action }, error);
    },
    crashed: (op, error) => {
      deps.logger.error({ namespace: op.metadata.namespace, operation: op.metadata.name, err: errorFields(error) }, 'request execution crashed');
    },
  };
}

/** The HostOperation runner of the pool, with its provisioning capacity. */
export class HostOperationRunner {
  readonly capacity: ProvisioningCapacity;
  private readonly runner: RequestRunner<HostOperation>;

  constructor(deps: HostOperationDeps) {
    this.capacity = new ProvisioningCapacity(deps.provisioningLimit);
    const queue = new PQueue({ concurrency: deps.concurrency });
    const metrics = { inFlight: deps.metrics.inFlight, queueDepth: deps.metrics.queueDepth };
    this.runner = new RequestRunner(hostOperationKind(deps, new HostAdmission(deps, this.capacity)), {
      kube: deps.kube,
      clock: deps.clock,
      queue,
      namespaces: deps.namespaces,
      metrics,
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  /** A watch event (the watch started by start() delivers them; tests replay lagging ones). */
  onEvent(event: WatchEvent): void {
    this.runner.onEvent(event);
  }

  /** What runs, waits for a slot (delayed), for notBefore (waiting) or for a worker (queued). */
  snapshot(): { running: string[]; queued: string[]; delayed: string[]; waiting: string[] } {
    const { running, queued, held, waiting } = this.runner.snapshot();
    return { running, queued, delayed: held, waiting };
  }

  /** Resolves when nothing is queued or running (tests). */
  settled(): Promise<void> {
    return this.runner.settled();
  }

  /** Stop taking work and cancel what runs; statuses are left resumable. */
  stop(graceMs: number): Promise<void> {
    return this.runner.stop(graceMs);
  }
}
