// ObjectPatches and NodeOperations on the request runner (drivers/runner): each is executed
// once (a Succeeded or Failed request is never run again), never two for the same target at a
// time (first seen, first run), at most `concurrency` at once across both kinds. Waiting (no Node
// yet) and transient failures keep a request unfinished with a timer on the pool's clock: the
// Node recheck interval, or the runner's back-off capped by maxBackoffMs. Started with the pool on
// the leader, stopped with it; what runs at a stop finishes within the shutdown grace.
import type { KubeConfig } from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { formatTime } from '../../domain/backoff.js';
import { NODE_OPERATION_KIND, OBJECT_PATCH_KIND } from '../../domain/capi/requests.js';
import type { NodeOperation, NodeOperationStatus, ObjectPatch } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { Phase } from '../../domain/operations.js';
import type { OperationError } from '../../domain/operations.js';
import { KubeApi, verifiedTLS } from '../kube/api.js';
import { KubeClient } from '../kube/client.js';
import { REQUEST_GROUP, objectKey } from '../kube/port.js';
import type { KubePort, RequestResource } from '../kube/port.js';
import type { Clock } from '../pool/clock.js';
import type { Logger } from '../pool/logging.js';
import { errorFields } from '../pool/logging.js';
import { writeFinalStatus } from '../runner/final-status.js';
import { logDiscarded } from '../runner/stale.js';
import { RequestRunner } from '../runner/runner.js';
import type { Candidate, RequestKind, RunContext, RunOutcome, Request as RunnerRequest } from '../runner/runner.js';
import type { ClusterRequestSettings } from './config.js';
import type { ClusterRequestMetrics } from './metrics.js';
import { requestEvent } from './events.js';
import type { EventRecorder } from '../pool/events.js';
import { executeNodeOperation } from './node-operation.js';
import { executeObjectPatch } from './object-patch.js';
import { retryAfterMs, transientError } from './outcome.js';
import { WorkloadClients } from './workload.js';

export interface ClusterRequestRunnerDeps {
  /** The management cluster as the pool's port: request watches, status writes, kubeconfig Secrets. */
  kube: KubePort;
  /** The management cluster's API for the objects ObjectPatches write. */
  management: KubeApi;
  clock: Clock;
  logger: Logger;
  metrics: ClusterRequestMetrics;
  settings: ClusterRequestSettings;
  /** Records an Event per finished request on the object that asked for it. */
  events: EventRecorder;
}

type Request = ObjectPatch | NodeOperation;
type StatusPatch = Record<string, unknown>;
type Outcome =
  | { kind: 'finished'; status: StatusPatch }
  | { kind: 'waiting'; message: string; afterMs?: number }
  | { kind: 'transient'; error: OperationError; retryAfterMs?: number };

const FINAL_WRITE_ATTEMPTS = 3;

/** The management cluster (the pool's kubeconfig, TLS always verified) with the runner's deadlines. */
export function managementCluster(
  kubeConfig: KubeConfig,
  settings: ClusterRequestSettings,
  watchClock: Clock,
  logger: Logger,
): Pick<ClusterRequestRunnerDeps, 'kube' | 'management'> {
  const verified = verifiedTLS(kubeConfig);
  const kube = new KubeClient(verified, {
    clock: watchClock,
    livenessMs: settings.watchLivenessMs,
    watchTimeoutSeconds: settings.watchTimeoutSeconds,
    callTimeoutMs: settings.apiTimeoutMs,
    onWatchRestart: (resource, reason, error) => {
      logger.debug({ resource, reason, ...(error !== undefined && { err: errorFields(error) }) }, 'watch restarted');
    },
  });
  return { kube, management: new KubeApi(verified, settings.apiTimeoutMs) };
}

function targetKey(resource: RequestResource, request: Request): string {
  const namespace = request.metadata.namespace ?? '';
  if (resource === 'nodeoperations') {
    return `Node/${namespace}/${(request as NodeOperation).spec.cluster.name}`;
  }
  const { apiVersion, kind, name } = (request as ObjectPatch).spec.target;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${group}/${kind}/${(request as ObjectPatch).spec.target.namespace}/${name}`;
}

const idOf = (request: Request): string => request.metadata.uid ?? objectKey(request);

/** What both kinds share: the runner's dependencies and the workload cluster clients. */
interface KindContext {
  deps: ClusterRequestRunnerDeps;
  workloads: WorkloadClients;
}

/** The selection policy: the request that runs for a target keeps running, else the first seen that is ready. */
export function firstSeen<R extends RunnerRequest>(candidates: readonly Candidate<R>[]): R | undefined {
  const active = candidates.find((candidate) => candidate.state === 'running' || candidate.state === 'queued');
  return (active ?? candidates.find((candidate) => candidate.state === 'idle' && !candidate.finished))?.request;
}

/** One request kind of this runner: how one attempt goes, and how its outcome is recorded. */
class ClusterKind<R extends Request> implements RequestKind<R> {
  readonly cancelOnStop = false;
  readonly select = firstSeen<R>;
  /** What this runner wrote into a status since the watch last showed it (merged over it). */
  private readonly written = new Map<string, StatusPatch>();

  private readonly deps: ClusterRequestRunnerDeps;

  constructor(
    readonly resource: RequestResource,
    private readonly kindName: string,
    private readonly context: KindContext,
    private readonly attempt: (kind: ClusterKind<R>, request: R) => Promise<Outcome>,
  ) {
    this.deps = context.deps;
  }

  wellFormed(object: KObject): object is R {
    const spec = (object as { spec?: { target?: { name?: unknown }; cluster?: { name?: unknown } } }).spec;
    const valid = this.resource === 'objectpatches' ? typeof spec?.target?.name === 'string' : typeof spec?.cluster?.name === 'string';
    if (!valid) {
      this.deps.logger.warn({ namespace: object.metadata.namespace, request: object.metadata.name, resource: this.resource }, 'ignoring a malformed request');
    }
    return valid;
  }

  key(request: R): string {
    return targetKey(this.resource, request);
  }

  forget(request: R): void {
    this.written.delete(idOf(request));
  }

  crashed(request: R, error: unknown): void {
    this.deps.logger.error({ ...this.fields(request), err: errorFields(error) }, 'request execution crashed');
  }

  discarded(request: R, error?: unknown): void {
    logDiscarded(this.deps.logger, this.fields(request), error);
  }

  /** The request with what this runner wrote since the watch showed it. */
  current(request: R): R {
    return { ...request, status: { ...request.status, ...this.written.get(idOf(request)) } };
  }

  async execute(request: R, context: RunContext): Promise<RunOutcome> {
    let outcome: Outcome;
    try {
      outcome = await this.attempt(this, request);
    } catch (error) {
      outcome = { kind: 'transient', error: transientError(error, this.context.workloads.secrets()), retryAfterMs: retryAfterMs(error) };
    }
    // Deleted meanwhile: nothing to record.
    return context.signal.aborted ? { kind: 'cancelled' } : this.record(request, outcome, context);
  }

  private fields(request: R): Record<string, unknown> {
    return { namespace: request.metadata.namespace, request: request.metadata.name, kind: this.kindName, target: targetKey(this.resource, request) };
  }

  private async record(request: R, outcome: Outcome, context: RunContext): Promise<RunOutcome> {
    const { metrics, logger, clock, settings } = this.deps;
    const observedTime = this.resource === 'nodeoperations' ? { observedTime: formatTime(clock.now()) } : {};
    if (outcome.kind === 'finished') {
      return this.finish(request, outcome.status, context);
    }
    if (outcome.kind === 'waiting') {
      metrics.retries.inc({ kind: this.kindName, why: 'waiting' });
      await this.writeQuietly(request, { phase: Phase.Pending, message: outcome.message, ...observedTime, error: null });
      return { kind: 'retry', afterMs: outcome.afterMs ?? settings.nodeRecheckMs, failed: false };
    }
    metrics.retries.inc({ kind: this.kindName, why: 'transient' });
    const delayMs = outcome.retryAfterMs ?? context.backoffMs;
    logger.warn(
      { ...this.fields(request), reason: outcome.error.reason, err: { message: outcome.error.message }, retryInMs: delayMs },
      'transient failure; retrying',
    );
    await this.writeQuietly(request, { phase: Phase.Pending, message: outcome.error.message, ...observedTime, error: outcome.error });
    return { kind: 'retry', afterMs: delayMs, failed: true };
  }

  private async finish(request: R, status: StatusPatch, context: RunContext): Promise<RunOutcome> {
    const patch = { ...status, error: status.error ?? null };
    const result = await writeFinalStatus(() => this.writeStatus(request, patch), {
      attempts: FINAL_WRITE_ATTEMPTS,
      clock: this.deps.clock,
      onFailure: (attempt, error) => {
        this.deps.logger.warn({ ...this.fields(request), attempt, err: errorFields(error) }, 'could not write the final request status');
      },
    });
    if (result === 'written') {
      this.deps.metrics.finished.inc({ kind: this.kindName, result: String(status.reason ?? status.phase) });
      this.deps.logger.info({ ...this.fields(request), phase: status.phase, reason: status.reason, message: status.message }, 'request finished');
      const event = requestEvent(request, status);
      await this.deps.events.record(event.target, event.reason, event.message, event.type);
      return { kind: 'finished' };
    }
    // Executing again is safe (an applied patch is recognised, Node actions are idempotent).
    return result === 'gone' ? { kind: 'cancelled' } : { kind: 'retry', afterMs: context.backoffMs, failed: true };
  }

  async writeStatus(request: R, status: StatusPatch): Promise<void> {
    const { namespace = '', name = '' } = request.metadata;
    await this.deps.kube.patchStatus(this.resource, namespace, name, status);
    const kept = Object.entries(this.written.get(idOf(request)) ?? {}).filter(([key]) => !(key in status));
    this.written.set(idOf(request), Object.fromEntries([...kept, ...Object.entries(status)]));
  }

  private async writeQuietly(request: R, status: StatusPatch): Promise<void> {
    try {
      await this.writeStatus(request, status);
    } catch (error) {
      this.deps.logger.warn({ ...this.fields(request), err: errorFields(error) }, 'could not write the request status');
    }
  }
}

export class ClusterRequestRunner {
  private readonly queue: PQueue;
  private readonly workloads: WorkloadClients;
  private runners: RequestRunner<Request>[] = [];
  private accepting = true;
  private synced = false;

  constructor(private readonly deps: ClusterRequestRunnerDeps) {
    this.queue = new PQueue({ concurrency: deps.settings.concurrency });
    this.workloads = new WorkloadClients(deps.kube, deps.settings.apiTimeoutMs);
  }

  get ready(): boolean {
    return this.synced && this.accepting;
  }

  private kinds(): Record<'objectpatches' | 'nodeoperations', ClusterKind<Request>> {
    const { deps, workloads } = this;
    const patch = new ClusterKind<Request>('objectpatches', OBJECT_PATCH_KIND, { deps, workloads }, async (_kind, request) => ({
      kind: 'finished',
      status: { ...(await executeObjectPatch({ management: deps.management, clock: deps.clock }, request as ObjectPatch)) },
    }));
    const node = new ClusterKind<Request>('nodeoperations', NODE_OPERATION_KIND, { deps, workloads }, async (kind, request) => {
      const saveProgress = async (status: NodeOperationStatus): Promise<void> => {
        await kind.writeStatus(request, { ...status });
      };
      const outcome = await executeNodeOperation({ workloads, clock: deps.clock, saveProgress }, kind.current(request) as NodeOperation);
      return outcome.kind === 'finished' ? { kind: 'finished', status: { ...outcome.status } } : outcome;
    });
    return { objectpatches: patch, nodeoperations: node };
  }

  async start(): Promise<void> {
    const { settings, kube, clock, logger } = this.deps;
    const kinds = this.kinds();
    const runnerDeps = { kube, clock, queue: this.queue, namespaces: settings.namespaces, maxBackoffMs: settings.maxBackoffMs, metrics: this.deps.metrics };
    this.runners = (await this.servedResources()).map((resource) => new RequestRunner(kinds[resource], runnerDeps));
    await Promise.all(this.runners.map((runner) => runner.start()));
    this.synced = true;
    logger.info({ namespaces: settings.namespaces.length === 0 ? ['all'] : settings.namespaces }, 'Cluster API request runner started');
  }

  /**
   * The request kinds the API server serves. A missing CRD (Cluster API provider not installed)
   * is skipped with a warning instead of holding readiness forever; installing it later needs a
   * restart of the pool.
   */
  private async servedResources(): Promise<('objectpatches' | 'nodeoperations')[]> {
    const wanted = ['objectpatches', 'nodeoperations'] as const;
    const served = await this.deps.kube.servedRequestResources();
    const missing = wanted.filter((resource) => !served.includes(resource));
    if (missing.length > 0) {
      this.deps.logger.warn(
        { missing: missing.map((resource) => `${resource}.${REQUEST_GROUP}`) },
        'request CRDs not installed: their requests are not executed until the pool restarts',
      );
    }
    return wanted.filter((resource) => served.includes(resource));
  }

  /** Stop taking work; what runs finishes (bounded by the shutdown grace) and keeps its status. */
  async stop(): Promise<void> {
    if (!this.accepting) {
      return;
    }
    this.accepting = false;
    await Promise.all(this.runners.map((runner) => runner.stop(this.deps.settings.shutdownTimeoutMs)));
    this.workloads.close();
    this.deps.logger.info({}, 'Cluster API request runner stopped');
  }

  /** Resolves when nothing is queued or running (tests). */
  async idle(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.settled()));
  }
}
