// The generic request runner (drivers/runner) against the in-memory port: per-key serialisation,
// the selection policy, back-off, run once, not-found handling and the final status write; then
// each request kind the pool executes (HostOperation, ObjectPatch, NodeOperation) once through
// it, and the one error base (drivers/errors.ts). Executions are controllable stand-ins; time is
// a manual clock, nothing sleeps.
import { KubeConfig } from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { backoffSeconds } from '../../domain/backoff.js';
import type { NodeOperation, ObjectPatch } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { Action, Phase } from '../../domain/operations.js';
import type { HostOperation } from '../../domain/operations.js';
import { AgentError } from '../../drivers/agent/errors.js';
import { BMCError } from '../../drivers/bmc/types.js';
import { createClusterRequestMetrics } from '../../drivers/cluster/metrics.js';
import { retryAfterMs } from '../../drivers/cluster/outcome.js';
import { DriverError, TransientError } from '../../drivers/errors.js';
import { ClusterRequestRunner, firstSeen } from '../../drivers/cluster/runner.js';
import type { ClusterRequestSettings } from '../../drivers/cluster/config.js';
import { KubeApi } from '../../drivers/kube/api.js';
import { KubeStatusError, RequestTimeout } from '../../drivers/kube/errors.js';
import { ManualClock } from '../../drivers/pool/clock.js';
import { EventRecorder } from '../../drivers/pool/events.js';
import type { Executor } from '../../drivers/pool/executors/index.js';
import { classify, transient } from '../../drivers/pool/errors.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { httpError } from '../../drivers/redfish/errors.js';
import { highestSequence } from '../../drivers/pool/host-operations.js';
import { writeFinalStatus } from '../../drivers/runner/final-status.js';
import { RequestRunner } from '../../drivers/runner/runner.js';
import type { Candidate, RequestKind, RunOutcome } from '../../drivers/runner/runner.js';
import { LogCapture, createHarness, operation, NAMESPACE } from '../support/fake-driver.js';
import { MemoryKube } from '../support/memory-kube.js';

type TestRequest = KObject & { spec: { key: string; sequence: number }; status?: { phase?: Phase } };

interface Run {
  name: string;
  signal: AbortSignal;
  backoffMs: number;
  end(outcome: RunOutcome): void;
}

/** A runner of test requests whose runs end when the test says so. */
function setup(
  options: { select?: (candidates: readonly Candidate<TestRequest>[]) => TestRequest | undefined; concurrency?: number; maxBackoffMs?: number } = {},
) {
  const kube = new MemoryKube();
  const clock = new ManualClock();
  const runs: Run[] = [];
  const crashes: string[] = [];
  const kind: RequestKind<TestRequest> = {
    resource: 'objectpatches',
    cancelOnStop: true,
    wellFormed: (object): object is TestRequest => typeof (object as { spec?: { key?: unknown } }).spec?.key === 'string',
    key: (request) => request.spec.key,
    select: options.select ?? firstSeen,
    execute: (request, context) =>
      new Promise<RunOutcome>((resolve) => {
        runs.push({ name: request.metadata.name ?? '', signal: context.signal, backoffMs: context.backoffMs, end: resolve });
      }),
    crashed: (request) => {
      crashes.push(request.metadata.name ?? '');
    },
  };
  const queue = new PQueue({ concurrency: options.concurrency ?? 10 });
  const runner = new RequestRunner(kind, { kube, clock, queue, namespaces: [], maxBackoffMs: options.maxBackoffMs });
  const put = (name: string, key: string, sequence = 1, phase?: Phase): void => {
    kube.put('objectpatches', {
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'Test',
      metadata: { name, namespace: 'ns' },
      spec: { key, sequence },
      ...(phase && { status: { phase } }),
    });
  };
  const running = (): string[] => runner.snapshot().running;
  const run = (name: string): Run => {
    const found = runs.filter((candidate) => candidate.name === name).at(-1);
    if (found === undefined) throw new Error(`${name} never ran`);
    return found;
  };
  return { kube, clock, runs, crashes, runner, put, running, run, started: () => runs.map((r) => r.name) };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const finished: RunOutcome = { kind: 'finished' };

describe('per-key serialisation', () => {
  // prettier-ignore
  const ROWS: { name: string; requests: [string, string][]; concurrency: number; first: string[]; then: string[] }[] = [
    { name: 'one key: one at a time, in the order seen', requests: [['a', 'k'], ['b', 'k'], ['c', 'k']], concurrency: 10, first: ['a'], then: ['a', 'b'] },
    { name: 'different keys: at once', requests: [['a', 'k1'], ['b', 'k2'], ['c', 'k3']], concurrency: 10, first: ['a', 'b', 'c'], then: ['a', 'b', 'c'] },
    { name: 'different keys: bounded by the queue', requests: [['a', 'k1'], ['b', 'k2'], ['c', 'k3']], concurrency: 2, first: ['a', 'b'], then: ['a', 'b', 'c'] },
  ];

  it.each(ROWS)('$name', async (row) => {
    const t = setup({ concurrency: row.concurrency });
    await t.runner.start();
    for (const [name, key] of row.requests) t.put(name, key);
    await flush();
    expect(t.started()).toEqual(row.first);
    t.run('a').end(finished);
    await flush();
    expect(t.started()).toEqual(row.then);
  });
});

describe('requests their controller no longer owns (clusterctl move, release) are deleted, never run', () => {
  const owner = (uid: string) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'h', uid, controller: true });
  // prettier-ignore
  const ROWS: { name: string; labels?: Record<string, string>; ownerReferences?: ReturnType<typeof owner>[]; runs: boolean }[] = [
    { name: 'made by hand (no controller-uid label): runs', runs: true },
    { name: "owned by the parent its label names: runs", labels: { 'controller-uid': 'new' }, ownerReferences: [owner('new')], runs: true },
    { name: 'moved: the owner re-created with a new uid, the label still the old one', labels: { 'controller-uid': 'old' }, ownerReferences: [owner('new')], runs: false },
    { name: 'released by its controller: the label without an owner', labels: { 'controller-uid': 'old' }, runs: false },
    { name: 'owned, but not as its controller', labels: { 'controller-uid': 'old' }, ownerReferences: [{ ...owner('old'), controller: false }], runs: false },
  ];

  it.each(ROWS)('$name', async (row) => {
    const t = setup();
    await t.runner.start();
    t.kube.put('objectpatches', {
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'Test',
      metadata: { name: 'r', namespace: 'ns', ...(row.labels && { labels: row.labels }), ...(row.ownerReferences && { ownerReferences: row.ownerReferences }) },
      spec: { key: 'k', sequence: 1 },
    });
    await flush();
    expect(t.started()).toEqual(row.runs ? ['r'] : []);
    expect(t.kube.deletedRequests).toEqual(row.runs ? [] : [{ resource: 'objectpatches', key: 'ns/r' }]);
    expect(t.kube.get('objectpatches', 'ns', 'r') === undefined).toBe(!row.runs);
  });

  it('a running request its controller releases is cancelled and deleted', async () => {
    const t = setup();
    await t.runner.start();
    const metadata = { name: 'r', namespace: 'ns', labels: { 'controller-uid': 'p' }, ownerReferences: [owner('p')] };
    t.kube.put('objectpatches', { apiVersion: 'ironhook.dev/v1alpha1', kind: 'Test', metadata, spec: { key: 'k', sequence: 1 } });
    await flush();
    expect(t.running()).toEqual(['r']);
    t.kube.put('objectpatches', {
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'Test',
      metadata: { ...metadata, ownerReferences: [] },
      spec: { key: 'k', sequence: 1 },
    });
    await flush();
    expect(t.run('r').signal.aborted).toBe(true);
    expect(t.kube.get('objectpatches', 'ns', 'r')).toBeUndefined();
  });
});

describe('selection policy', () => {
  const ROWS: { name: string; select: typeof highestSequence | typeof firstSeen; starts: string[]; aborted: boolean }[] = [
    { name: 'highest sequence: a higher request cancels the running lower one', select: highestSequence, starts: ['low', 'high'], aborted: true },
    { name: 'first seen: the running request keeps running, the newer one waits', select: firstSeen, starts: ['low'], aborted: false },
  ];

  it.each(ROWS)('$name', async (row) => {
    const t = setup({ select: row.select as never });
    await t.runner.start();
    t.put('low', 'k', 1);
    await flush();
    t.put('high', 'k', 2);
    await flush();
    expect(t.run('low').signal.aborted).toBe(row.aborted);
    if (row.aborted) {
      expect(String(t.run('low').signal.reason)).toContain('superseded by high');
      t.run('low').end({ kind: 'cancelled' });
      await flush();
    }
    expect(t.started()).toEqual(row.starts);
  });

  it('highest sequence: a lower request seen later never runs', async () => {
    const t = setup({ select: highestSequence as never });
    await t.runner.start();
    t.put('high', 'k', 2);
    t.put('low', 'k', 1);
    await flush();
    t.run('high').end(finished);
    await flush();
    expect(t.started()).toEqual(['high']);
  });
});

describe('back-off', () => {
  it.each([
    { name: 'uncapped', maxBackoffMs: undefined, failures: 4 },
    { name: 'capped', maxBackoffMs: 3_000, failures: 4 },
  ])('transient failures wait the pool back-off ($name), a recheck resets it', async ({ maxBackoffMs, failures }) => {
    const t = setup({ maxBackoffMs });
    await t.runner.start();
    t.put('a', 'k');
    await flush();
    const id = 'uid-ns/a';
    for (let failure = 1; failure <= failures; failure += 1) {
      const expected = Math.min(backoffSeconds(failure, id) * 1000, maxBackoffMs ?? Number.POSITIVE_INFINITY);
      const current = t.runs.at(-1)!;
      expect(current.backoffMs).toBe(expected);
      current.end({ kind: 'retry', afterMs: current.backoffMs, failed: true });
      await flush();
      expect(t.runner.snapshot().waiting).toEqual(['a']);
      t.clock.advance(expected - 1);
      await flush();
      expect(t.runs).toHaveLength(failure);
      t.clock.advance(1);
      await flush();
      expect(t.runs).toHaveLength(failure + 1);
    }
    t.runs.at(-1)!.end({ kind: 'retry', afterMs: 10_000, failed: false });
    await flush();
    t.clock.advance(10_000);
    await flush();
    expect(t.runs.at(-1)!.backoffMs).toBe(Math.min(backoffSeconds(1, id) * 1000, maxBackoffMs ?? Number.POSITIVE_INFINITY));
  });

  it('a request waiting for its retry does not hold its key: the next one runs meanwhile', async () => {
    const t = setup();
    await t.runner.start();
    t.put('a', 'k');
    t.put('b', 'k');
    await flush();
    t.run('a').end({ kind: 'retry', afterMs: 5_000, failed: true });
    await flush();
    expect(t.started()).toEqual(['a', 'b']);
  });
});

describe('run once', () => {
  it.each([Phase.Succeeded, Phase.Failed])('never runs a request found %s', async (phase) => {
    const t = setup();
    await t.runner.start();
    t.put('a', 'k', 1, phase);
    await flush();
    expect(t.started()).toEqual([]);
  });

  type Setup = ReturnType<typeof setup>;
  // prettier-ignore
  const AGAIN: { name: string; end: (t: Setup) => void; then: (t: Setup) => void; crashes: string[] }[] = [
    { name: 'finished by its run, then replayed unfinished by the watch', end: (t) => { t.run('a').end(finished); }, then: (t) => { t.put('a', 'k'); }, crashes: [] },
    { name: 'its run threw (a bug): counts as finished, never loops', end: (t) => { t.run('a').end(Promise.reject(new Error('bug')) as never); }, then: (t) => { t.put('a', 'k'); }, crashes: ['a'] },
    { name: 'deleted while its retry timer runs', end: (t) => { t.run('a').end({ kind: 'retry', afterMs: 1_000, failed: true }); }, then: (t) => { t.kube.remove('objectpatches', 'ns', 'a'); t.clock.advance(60_000); }, crashes: [] },
  ];

  it.each(AGAIN)('never runs a request again: $name', async (row) => {
    const t = setup();
    await t.runner.start();
    t.put('a', 'k');
    await flush();
    row.end(t);
    await flush();
    row.then(t);
    await flush();
    expect(t.crashes).toEqual(row.crashes);
    expect(t.started()).toEqual(['a']);
  });
});

describe('not found', () => {
  it('a request deleted while it runs is cancelled, and its key frees once the run ends', async () => {
    const t = setup();
    await t.runner.start();
    t.put('a', 'k');
    t.put('b', 'k');
    await flush();
    t.kube.remove('objectpatches', 'ns', 'a');
    await flush();
    expect(String(t.run('a').signal.reason)).toContain('the request was deleted');
    expect(t.started()).toEqual(['a']);
    t.run('a').end({ kind: 'cancelled' });
    await flush();
    expect(t.started()).toEqual(['a', 'b']);
  });

  it('stop cancels what runs and takes no new work', async () => {
    const t = setup();
    await t.runner.start();
    t.put('a', 'k1');
    await flush();
    const stopped = t.runner.stop(5_000);
    expect(String(t.run('a').signal.reason)).toContain('shutting down');
    t.run('a').end({ kind: 'cancelled' });
    await stopped;
    t.put('b', 'k2');
    await flush();
    expect(t.started()).toEqual(['a']);
  });
});

describe('final status write', () => {
  const notFound = new KubeStatusError(404, 'NotFound', 'gone');
  // prettier-ignore
  const ROWS: { name: string; failures: Error[]; attempts: number; result: string; writes: number; pauses: number[] }[] = [
    { name: 'written at once', failures: [], attempts: 3, result: 'written', writes: 1, pauses: [] },
    { name: 'written after two failures, pausing between', failures: [new Error('a'), new Error('b')], attempts: 3, result: 'written', writes: 3, pauses: [500, 1000] },
    { name: 'every attempt fails', failures: [new Error('a'), new Error('b'), new Error('c')], attempts: 3, result: 'failed', writes: 3, pauses: [500, 1000, 2000] },
    { name: 'the request is gone (404): no retry', failures: [notFound], attempts: 3, result: 'gone', writes: 1, pauses: [] },
  ];

  it.each(ROWS)('$name → $result', async (row) => {
    const clock = new ManualClock(undefined, { autoAdvance: true });
    const failures = [...row.failures];
    let writes = 0;
    const pauses: number[] = [];
    const result = await writeFinalStatus(
      () => {
        writes += 1;
        const failure = failures.shift();
        return failure === undefined ? Promise.resolve() : Promise.reject(failure);
      },
      {
        attempts: row.attempts,
        clock,
        pauseMs: (attempt) => {
          pauses.push(500 * 2 ** attempt);
          return 500 * 2 ** attempt;
        },
        onFailure: () => undefined,
      },
    );
    expect({ result, writes, pauses }).toEqual({ result: row.result, writes: row.writes, pauses: row.pauses });
  });
});

// --- every request kind through the runner ---------------------------------------------------------

const CLUSTER_SETTINGS: ClusterRequestSettings = {
  enabled: true,
  namespaces: [],
  concurrency: 2,
  nodeRecheckMs: 10_000,
  apiTimeoutMs: 1_000,
  maxBackoffMs: 60_000,
  watchLivenessMs: 60_000,
  watchTimeoutSeconds: 60,
  shutdownTimeoutMs: 1_000,
};

function clusterRunner(kube: MemoryKube, clock: ManualClock, logs: LogCapture): ClusterRequestRunner {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:9' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const logger = createLogger({ level: 'debug', destination: logs });
  return new ClusterRequestRunner({
    kube,
    management: new KubeApi(config, 1_000),
    clock,
    logger,
    metrics: createClusterRequestMetrics(new Registry()),
    settings: CLUSTER_SETTINGS,
    events: new EventRecorder({ kube, clock, windowMs: 600_000, instance: 'pool-0', logger }),
  });
}

describe('each request kind through the runner', () => {
  it('HostOperation: runs the highest sequence of the host and writes its final status', async () => {
    const done: Executor = () => Promise.resolve({});
    const h = createHarness({}, { executors: Object.fromEntries(Object.values(Action).map((action) => [action, done])) as Record<Action, Executor> });
    await h.pool.start();
    h.kube.put('hostoperations', operation('PowerOn', 2));
    h.kube.put('hostoperations', operation('PowerOff', 1));
    await h.settle();
    const status = (name: string) => (h.kube.get('hostoperations', NAMESPACE, name) as HostOperation | undefined)?.status;
    expect(status('server-01-poweron-2')?.phase).toBe(Phase.Succeeded);
    expect(status('server-01-poweroff-1')?.phase).toBeUndefined();
  });

  it('ObjectPatch: a target outside the allowlist finishes Rejected without touching the cluster', async () => {
    const kube = new MemoryKube();
    const clock = new ManualClock();
    const logs = new LogCapture();
    const runner = clusterRunner(kube, clock, logs);
    await runner.start();
    const patch: ObjectPatch = {
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'ObjectPatch',
      metadata: {
        name: 'p-1',
        namespace: 'ns',
        labels: { 'ironhook.dev/purpose': 'claim' },
        ownerReferences: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', uid: 'm3m-uid', controller: true }],
      },
      spec: { target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' }, operations: [{ op: 'add', path: '/data/x', value: 'y' }] },
    };
    kube.put('objectpatches', patch);
    await runner.idle();
    expect((kube.get('objectpatches', 'ns', 'p-1') as ObjectPatch).status).toMatchObject({ phase: Phase.Failed, reason: 'Rejected' });
    expect(logs.text()).toMatch(/request finished/u);
    // The outcome is an Event on the Metal3Machine that asked, once the final status is written.
    expect(kube.events).toHaveLength(1);
    expect(kube.events[0]).toMatchObject({
      involvedObject: { kind: 'Metal3Machine', name: 'w-1', uid: 'm3m-uid', namespace: 'ns' },
      reason: 'ObjectPatchRejected',
      type: 'Warning',
      message: expect.stringMatching(/^ObjectPatch p-1 \(claim\) on ConfigMap c: ConfigMap v1 is not a kind/u) as unknown,
    });
    await runner.stop();
  });

  it('NodeOperation: without the kubeconfig Secret, Pending with a transient error, retried after the back-off', async () => {
    const kube = new MemoryKube();
    const clock = new ManualClock();
    const logs = new LogCapture();
    const runner = clusterRunner(kube, clock, logs);
    await runner.start();
    const op: NodeOperation = {
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'NodeOperation',
      metadata: { name: 'n-1', namespace: 'ns' },
      spec: { cluster: { name: 'workload' }, action: 'Fence', node: { name: 'node-1' } },
    };
    kube.put('nodeoperations', op);
    await runner.idle();
    const status = () => (kube.get('nodeoperations', 'ns', 'n-1') as NodeOperation).status;
    expect(status()).toMatchObject({ phase: Phase.Pending, error: { kind: 'Transient', reason: 'KubeconfigNotFound' } });
    const writes = kube.statusPatches.length;
    clock.advance(backoffSeconds(1, 'uid-ns/n-1') * 1000);
    await flush();
    await runner.idle();
    expect(kube.statusPatches.length).toBe(writes + 1);
    expect(logs.text()).toMatch(/transient failure; retrying/u);
    await runner.stop();
  });

  it('a request CRD that is not served is skipped with a warning', async () => {
    const kube = new MemoryKube();
    kube.served.delete('nodeoperations');
    const logs = new LogCapture();
    const runner = clusterRunner(kube, new ManualClock(), logs);
    await runner.start();
    expect(runner.ready).toBe(true);
    expect(logs.text()).toContain('nodeoperations.ironhook.dev');
    await runner.stop();
  });
});

// --- the error base ----------------------------------------------------------------------------------

describe('one error base: every classified failure is a DriverError', () => {
  const SECRET = 'hunter2-canary';
  // prettier-ignore
  const ROWS: { name: string; error: DriverError; kind: string; reason: string; retryAfterMs?: number }[] = [
    { name: 'BMCError', error: new BMCError('Permanent', 'CredentialsInvalid', `rejected ${SECRET}`), kind: 'Permanent', reason: 'CredentialsInvalid' },
    { name: 'RedfishHttpError', error: httpError(503, {}, 'GET /redfish/v1'), kind: 'Transient', reason: 'BMCBusy' },
    { name: 'AgentError', error: new AgentError('ImageChecksumMismatch', 'bad image'), kind: 'Permanent', reason: 'ImageChecksumMismatch' },
    { name: 'OperationFailure', error: transient('KubeconfigNotFound', `no Secret ${SECRET}`), kind: 'Transient', reason: 'KubeconfigNotFound' },
    { name: 'RequestTimeout', error: new RequestTimeout('GET Node n', 1_000), kind: 'Transient', reason: 'Timeout' },
    { name: 'TransientError with a delay', error: new TransientError('Busy', 'later', { retryAfterMs: 7_000 }), kind: 'Transient', reason: 'Busy', retryAfterMs: 7_000 },
    { name: 'a permanent error never has a delay', error: new DriverError('Permanent', 'Unsupported', 'no', { retryAfterMs: 7_000 }), kind: 'Permanent', reason: 'Unsupported' },
  ];

  it.each(ROWS)('$name → $kind $reason, credentials scrubbed', (row) => {
    expect(row.error).toBeInstanceOf(DriverError);
    const classified = classify(row.error, [SECRET]);
    expect(classified).toMatchObject({ kind: row.kind, reason: row.reason });
    expect(classified.message).not.toContain(SECRET);
    expect(row.error.retryAfterMs).toBe(row.retryAfterMs);
    expect(retryAfterMs(row.error)).toBe(row.retryAfterMs);
  });
});
