// The driver pool's second runner: watches ObjectPatches and NodeOperations, executes each once
// (a Succeeded or Failed request is never run again), never two for the same target at a time,
// at most `concurrency` at once. Waiting (no Node yet) and transient failures keep a request
// unfinished with a timer on the pool's clock: the Node recheck interval, or the pool's back-off
// (domain/backoff.ts) capped by maxBackoffMs. Started with the pool on the leader, stopped with it.
import type { KubeConfig } from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { backoffSeconds, formatTime } from '../../domain/backoff.js';
import { NODE_OPERATION_KIND, OBJECT_PATCH_KIND } from '../../domain/capi/requests.js';
import type { NodeOperation, NodeOperationStatus, ObjectPatch } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { Phase, isFinished } from '../../domain/operations.js';
import type { OperationError } from '../../domain/operations.js';
import type { Clock, Timer } from '../pool/clock.js';
import type { KubeWatch, WatchEvent } from '../pool/kube/port.js';
import type { Logger } from '../pool/logging.js';
import { errorFields } from '../pool/logging.js';
import type { ClusterRequestSettings } from './config.js';
import type { ClusterRequestMetrics } from './metrics.js';
import { executeNodeOperation } from './node-operation.js';
import { executeObjectPatch } from './object-patch.js';
import { transientError } from './outcome.js';
import { ClusterApi, MERGE_PATCH, isNotFound } from './api.js';
import { REQUEST_GROUP, REQUEST_VERSION, collectionPath, watchRequests } from './watch.js';
import type { RequestResource } from './watch.js';
import { WorkloadClients } from './workload.js';

export interface ClusterRequestRunnerDeps {
  /** The management cluster (the pool's own kubeconfig). */
  kubeConfig: KubeConfig;
  clock: Clock;
  /** Timers of the watches (relists, liveness); the request clock when absent. */
  watchClock?: Clock;
  logger: Logger;
  metrics: ClusterRequestMetrics;
  settings: ClusterRequestSettings;
}

type Request = ObjectPatch | NodeOperation;
type StatusPatch = Record<string, unknown>;
type Outcome = { kind: 'finished'; status: StatusPatch } | { kind: 'waiting'; message: string } | { kind: 'transient'; error: OperationError };

interface Entry {
  uid: string;
  resource: RequestResource;
  object: Request;
  target: string;
  state: 'idle' | 'blocked' | 'queued' | 'running' | 'waiting';
  timer?: Timer;
  attempts: number;
  finished: boolean;
  deleted: boolean;
  /** What this runner wrote into the status since the watch last showed it (merged over it). */
  written: StatusPatch;
}

const FINAL_WRITE_ATTEMPTS = 3;

function targetKey(resource: RequestResource, object: Request): string {
  const namespace = object.metadata.namespace ?? '';
  if (resource === 'nodeoperations') {
    return `Node/${namespace}/${(object as NodeOperation).spec.cluster.name}`;
  }
  const { apiVersion, kind, name } = (object as ObjectPatch).spec.target;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${group}/${kind}/${(object as ObjectPatch).spec.target.namespace}/${name}`;
}

function isWellFormed(resource: RequestResource, object: KObject): object is Request {
  const spec = (object as { spec?: { target?: { name?: unknown }; cluster?: { name?: unknown } } }).spec;
  return resource === 'objectpatches' ? typeof spec?.target?.name === 'string' : typeof spec?.cluster?.name === 'string';
}

export class ClusterRequestRunner {
  private readonly entries = new Map<string, Entry>();
  private readonly busy = new Set<string>();
  private readonly queue: PQueue;
  private watches: KubeWatch[] = [];
  private api: ClusterApi | undefined;
  private workloads: WorkloadClients | undefined;
  private accepting = true;
  private synced = false;

  constructor(private readonly deps: ClusterRequestRunnerDeps) {
    this.queue = new PQueue({ concurrency: deps.settings.concurrency });
  }

  get ready(): boolean {
    return this.synced && this.accepting;
  }

  async start(): Promise<void> {
    const { settings, kubeConfig, logger } = this.deps;
    const api = new ClusterApi(kubeConfig, settings.apiTimeoutMs);
    this.api = api;
    this.workloads = new WorkloadClients(api, settings.apiTimeoutMs);
    const options = {
      kubeConfig,
      api,
      clock: this.deps.watchClock ?? this.deps.clock,
      livenessMs: settings.watchLivenessMs,
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
      onRestart: (resource: RequestResource, reason: string, error?: unknown) => {
        logger.debug({ resource, reason, ...(error !== undefined && { err: errorFields(error) }) }, 'watch restarted');
      },
    };
    const scopes = settings.namespaces.length === 0 ? [undefined] : settings.namespaces;
    for (const resource of await this.servedResources(api)) {
      this.watches.push(...scopes.map((namespace) => watchRequests(options, resource, namespace, (event) => {
        this.onEvent(resource, event);
      })));
    }
    await Promise.all(this.watches.map((watch) => watch.start()));
    this.synced = true;
    logger.info({ namespaces: scopes.map((scope) => scope ?? 'all') }, 'Cluster API request runner started');
  }

  /**
   * The request kinds the API server serves. A missing CRD (Cluster API provider not installed)
   * is skipped with a warning instead of holding readiness forever; installing it later needs a
   * restart of the pool.
   */
  private async servedResources(api: ClusterApi): Promise<RequestResource[]> {
    const wanted: RequestResource[] = ['objectpatches', 'nodeoperations'];
    let served: string[] = [];
    try {
      const list = await api.call(`discovery of ${REQUEST_GROUP}/${REQUEST_VERSION}`, (options) => api.custom.getAPIResources({ group: REQUEST_GROUP, version: REQUEST_VERSION }, options));
      served = list.resources.map((resource) => resource.name);
    } catch (error) {
      if (!isNotFound(error)) {
        throw error;
      }
    }
    const missing = wanted.filter((resource) => !served.includes(resource));
    if (missing.length > 0) {
      this.deps.logger.warn({ missing: missing.map((resource) => `${resource}.${REQUEST_GROUP}`) }, 'request CRDs not installed: their requests are not executed until the pool restarts');
    }
    return wanted.filter((resource) => served.includes(resource));
  }

  /** Stop taking work; what runs finishes (bounded by the shutdown grace) and keeps its status. */
  async stop(): Promise<void> {
    if (!this.accepting) {
      return;
    }
    this.accepting = false;
    for (const watch of this.watches) {
      watch.stop();
    }
    for (const entry of this.entries.values()) {
      entry.timer?.cancel();
    }
    this.queue.clear();
    await Promise.race([this.queue.onIdle(), this.deps.clock.sleep(this.deps.settings.shutdownTimeoutMs)]);
    this.workloads?.close();
    this.deps.logger.info({}, 'Cluster API request runner stopped');
  }

  /** Resolves when nothing is queued or running (tests). */
  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  private onEvent(resource: RequestResource, event: WatchEvent): void {
    const object = event.object;
    if (!isWellFormed(resource, object)) {
      this.deps.logger.warn({ namespace: object.metadata.namespace, request: object.metadata.name, resource }, 'ignoring a malformed request');
      return;
    }
    const uid = object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
    const known = this.entries.get(uid);
    if (event.type === 'deleted') {
      this.forget(known);
      return;
    }
    const entry = known ?? { uid, resource, object, target: targetKey(resource, object), state: 'idle', attempts: 0, finished: false, deleted: false, written: {} };
    this.entries.set(uid, entry);
    entry.object = object;
    if (isFinished(object.status?.phase)) {
      entry.finished = true;
      entry.timer?.cancel();
      return;
    }
    this.schedule(entry);
  }

  private forget(entry: Entry | undefined): void {
    if (entry === undefined) {
      return;
    }
    entry.deleted = true;
    entry.timer?.cancel();
    this.entries.delete(entry.uid);
  }

  private schedule(entry: Entry): void {
    if (!this.accepting || entry.finished || entry.deleted || entry.state !== 'idle') {
      return;
    }
    if (this.busy.has(entry.target)) {
      entry.state = 'blocked';
      return;
    }
    this.busy.add(entry.target);
    entry.state = 'queued';
    void this.queue.add(async () => {
      await this.run(entry);
    });
  }

  /** After a request of `target` ends: the next one waiting for it, in the order they were seen. */
  private wake(target: string): void {
    const next = [...this.entries.values()].find((entry) => entry.target === target && entry.state === 'blocked');
    if (next !== undefined) {
      next.state = 'idle';
      this.schedule(next);
    }
  }

  private async run(entry: Entry): Promise<void> {
    entry.state = 'running';
    this.deps.metrics.inFlight.inc();
    let outcome: Outcome;
    try {
      outcome = await this.attempt(entry);
      if (!entry.deleted) {
        await this.record(entry, outcome);
      }
    } finally {
      this.deps.metrics.inFlight.dec();
      this.busy.delete(entry.target);
      this.release(entry);
    }
  }

  /** A run ended without a timer armed: the request may be scheduled again (unless finished). */
  private release(entry: Entry): void {
    if (entry.state === 'running') {
      entry.state = 'idle';
    }
    this.wake(entry.target);
  }

  private current(entry: Entry): Request {
    const status = { ...entry.object.status, ...entry.written };
    return { ...entry.object, status };
  }

  private async attempt(entry: Entry): Promise<Outcome> {
    const { clock } = this.deps;
    const api = this.api as ClusterApi;
    const workloads = this.workloads as WorkloadClients;
    try {
      if (entry.resource === 'objectpatches') {
        return { kind: 'finished', status: { ...(await executeObjectPatch({ management: api, clock }, entry.object as ObjectPatch)) } };
      }
      const saveProgress = async (status: NodeOperationStatus): Promise<void> => {
        await this.writeStatus(entry, { ...status });
      };
      const outcome = await executeNodeOperation({ workloads, clock, saveProgress }, this.current(entry) as NodeOperation);
      return outcome.kind === 'finished' ? { kind: 'finished', status: { ...outcome.status } } : outcome;
    } catch (error) {
      return { kind: 'transient', error: transientError(error, workloads.secrets()) };
    }
  }

  private fields(entry: Entry): Record<string, unknown> {
    return { namespace: entry.object.metadata.namespace, request: entry.object.metadata.name, kind: entry.resource === 'objectpatches' ? OBJECT_PATCH_KIND : NODE_OPERATION_KIND, target: entry.target };
  }

  private async record(entry: Entry, outcome: Outcome): Promise<void> {
    const { metrics, logger, clock } = this.deps;
    const kind = entry.resource === 'objectpatches' ? OBJECT_PATCH_KIND : NODE_OPERATION_KIND;
    const observedTime = entry.resource === 'nodeoperations' ? { observedTime: formatTime(clock.now()) } : {};
    if (outcome.kind === 'finished') {
      await this.finish(entry, outcome.status);
      return;
    }
    if (outcome.kind === 'waiting') {
      metrics.retries.inc({ kind, why: 'waiting' });
      entry.attempts = 0;
      await this.writeQuietly(entry, { phase: Phase.Pending, message: outcome.message, ...observedTime, error: null });
      this.arm(entry, this.deps.settings.nodeRecheckMs);
      return;
    }
    metrics.retries.inc({ kind, why: 'transient' });
    entry.attempts += 1;
    const delayMs = Math.min(backoffSeconds(entry.attempts, entry.uid) * 1000, this.deps.settings.maxBackoffMs);
    logger.warn({ ...this.fields(entry), reason: outcome.error.reason, err: { message: outcome.error.message }, retryInMs: delayMs }, 'transient failure; retrying');
    await this.writeQuietly(entry, { phase: Phase.Pending, message: outcome.error.message, ...observedTime, error: outcome.error });
    this.arm(entry, delayMs);
  }

  private async finish(entry: Entry, status: StatusPatch): Promise<void> {
    const kind = entry.resource === 'objectpatches' ? OBJECT_PATCH_KIND : NODE_OPERATION_KIND;
    const patch = { ...status, error: status.error ?? null };
    for (let attempt = 0; attempt < FINAL_WRITE_ATTEMPTS; attempt += 1) {
      try {
        await this.writeStatus(entry, patch);
        entry.finished = true;
        this.deps.metrics.finished.inc({ kind, result: String(status.reason ?? status.phase) });
        this.deps.logger.info({ ...this.fields(entry), phase: status.phase, reason: status.reason, message: status.message }, 'request finished');
        return;
      } catch (error) {
        if (isNotFound(error)) {
          return;
        }
        this.deps.logger.warn({ ...this.fields(entry), attempt, err: errorFields(error) }, 'could not write the final request status');
      }
    }
    // Executing again is safe (an applied patch is recognised, Node actions are idempotent).
    entry.attempts += 1;
    this.arm(entry, Math.min(backoffSeconds(entry.attempts, entry.uid) * 1000, this.deps.settings.maxBackoffMs));
  }

  private arm(entry: Entry, ms: number): void {
    entry.state = 'waiting';
    entry.timer?.cancel();
    entry.timer = this.deps.clock.setTimer(ms, () => {
      entry.timer = undefined;
      if (entry.state === 'waiting') {
        entry.state = 'idle';
        this.schedule(entry);
      }
    });
  }

  private async writeStatus(entry: Entry, status: StatusPatch): Promise<void> {
    const { namespace = '', name = '' } = entry.object.metadata;
    const api = this.api as ClusterApi;
    const params = { group: REQUEST_GROUP, version: REQUEST_VERSION, namespace, plural: entry.resource, name, body: { status } };
    await api.call(`PATCH ${collectionPath(entry.resource, namespace)}/${name}/status`, (options) => api.custom.patchNamespacedCustomObjectStatus(params, options), MERGE_PATCH);
    const kept = Object.entries(entry.written).filter(([key]) => !(key in status));
    entry.written = Object.fromEntries([...kept, ...Object.entries(status)]);
  }

  private async writeQuietly(entry: Entry, status: StatusPatch): Promise<void> {
    try {
      await this.writeStatus(entry, status);
    } catch (error) {
      this.deps.logger.warn({ ...this.fields(entry), err: errorFields(error) }, 'could not write the request status');
    }
  }
}
