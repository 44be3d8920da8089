// One request runner for every request kind the pool executes (HostOperation, ObjectPatch,
// NodeOperation; docs/drivers.md, "Request runner"): it watches one request resource through the
// KubePort and runs each request through a worker queue shared with other runners. The kind
// says three things: the key (requests with the same key never run at the same time), the
// selection policy (which request of a key runs, or keeps running), and how to execute one. A
// request found finished (Succeeded or Failed), or finished by this runner, never runs again,
// even while the watch still shows an older phase. A running request the policy drops
// (superseded, deleted) is cancelled through its AbortSignal; one its controller no longer owns
// (moved by clusterctl) is deleted unrun (stale.ts). A run that asks to be retried waits
// on the injected clock: the pool's back-off (domain/backoff.ts, capped) after a transient
// failure, a fixed recheck otherwise.
import { backoffSeconds } from '../../domain/backoff.js';
import { isStaleChild, type KObject } from '../../domain/k8s.js';
import { isFinished } from '../../domain/operations.js';
import { objectKey, type KubeWatch, type WatchEvent } from '../kube/port.js';
import type { Timer } from '../pool/clock.js';
import { CancelledError } from '../errors.js';
import { discardStale } from './stale.js';
import type { Request, RequestKind, RequestState, RunnerDeps, RunOutcome } from './types.js';

export type { Admission, AdmissionPolicy, Candidate, Request, RequestKind, RequestState, RunContext, RunnerDeps, RunOutcome } from './types.js';

interface Entry<R extends Request> {
  id: string;
  key: string;
  request: R;
  state: RequestState;
  /** Finished by a run of this runner. */
  done: boolean;
  timer?: { timer: Timer; retry: boolean };
  failures: number;
  controller?: AbortController;
}

function idOf(object: KObject): string {
  return object.metadata.uid ?? objectKey(object);
}

export class RequestRunner<R extends Request> {
  private readonly keys = new Map<string, Map<string, Entry<R>>>();
  /** Runs per key, also of requests deleted meanwhile: a key stays busy until its run ends. */
  private readonly running = new Map<string, { entry: Entry<R>; done: Promise<void> }>();
  private watches: KubeWatch[] = [];
  private accepting = true;

  constructor(
    private readonly kind: RequestKind<R>,
    private readonly deps: RunnerDeps,
  ) {}

  /** Starts the watches; resolves once every initial list has been delivered. */
  async start(): Promise<void> {
    const scopes = this.deps.namespaces.length === 0 ? [undefined] : this.deps.namespaces;
    this.watches = scopes.map((namespace) =>
      this.deps.kube.watch(this.kind.resource, { namespace }, (event) => {
        this.onEvent(event);
      }),
    );
    await Promise.all(this.watches.map((watch) => watch.start()));
  }

  onEvent(event: WatchEvent): void {
    const object = event.object;
    if (!this.kind.wellFormed(object)) {
      return;
    }
    const known = this.find(idOf(object));
    if (this.dropped(event.type, object, known)) {
      return;
    }
    const entry = known ?? this.entryFor(object);
    entry.request = object;
    if (isFinished(object.status?.phase) && entry.timer?.retry === true) {
      this.disarm(entry);
    }
    this.reconcile(entry.key);
  }

  /** What the runner is doing (tests, debugging): names by state, sorted. */
  snapshot(): Record<RequestState, string[]> {
    const all = [...this.keys.values()].flatMap((entries) => [...entries.values()]);
    const named = (state: RequestState): string[] =>
      all
        .filter((entry) => entry.state === state)
        .map((entry) => entry.request.metadata.name ?? '')
        .sort();
    const running = [...this.running.values()].map(({ entry }) => entry.request.metadata.name ?? '').sort();
    return { idle: named('idle'), waiting: named('waiting'), held: named('held'), queued: named('queued'), running };
  }

  /** Resolves when nothing is queued or running (tests). */
  async settled(): Promise<void> {
    const { queue } = this.deps;
    for (;;) {
      const runs = [...this.running.values()].map((run) => run.done);
      if (runs.length === 0 && queue.size === 0 && queue.pending === 0) {
        return;
      }
      await Promise.all([queue.onIdle(), ...runs]);
    }
  }

  /** Stop taking work; cancel what runs when the kind says so, and wait at most `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.accepting = false;
    for (const watch of this.watches) {
      watch.stop();
    }
    this.deps.queue.clear();
    for (const entries of this.keys.values()) {
      for (const entry of entries.values()) {
        this.disarm(entry);
      }
    }
    const runs = [...this.running.values()];
    if (this.kind.cancelOnStop) {
      for (const { entry } of runs) {
        entry.controller?.abort(new CancelledError('the driver pool is shutting down'));
      }
    }
    await Promise.race([Promise.all(runs.map((run) => run.done)), this.deps.clock.sleep(graceMs)]);
  }

  /** Look at `key` again (a slot freed, a timer fired). */
  reconcile(key: string): void {
    const entries = this.keys.get(key);
    if (entries === undefined) {
      return;
    }
    const chosen = this.choose(entries);
    if (chosen !== undefined && this.isAdmissible(chosen)) {
      this.admit(chosen);
    }
    if (entries.size === 0 && !this.running.has(key)) {
      this.keys.delete(key);
    }
  }

  /** The policy's pick among the key's requests; every other one is deselected. */
  private choose(entries: Map<string, Entry<R>>): Entry<R> | undefined {
    const candidates = [...entries.values()].map((entry) => ({ request: entry.request, state: entry.state, finished: this.isDone(entry) }));
    const selected = this.kind.select(candidates);
    const chosen = selected === undefined ? undefined : entries.get(idOf(selected));
    for (const entry of entries.values()) {
      if (entry !== chosen) {
        this.deselect(entry, selected);
      }
    }
    return chosen;
  }

  private isAdmissible(entry: Entry<R>): boolean {
    return entry.state === 'idle' && !this.isDone(entry) && this.accepting && !this.busy(entry.key);
  }

  private find(id: string): Entry<R> | undefined {
    for (const entries of this.keys.values()) {
      const entry = entries.get(id);
      if (entry !== undefined) {
        return entry;
      }
    }
    return undefined;
  }

  private entryFor(request: R): Entry<R> {
    const entry: Entry<R> = { id: idOf(request), key: this.kind.key(request), request, state: 'idle', done: false, failures: 0 };
    const entries = this.keys.get(entry.key) ?? new Map<string, Entry<R>>();
    entries.set(entry.id, entry);
    this.keys.set(entry.key, entries);
    return entry;
  }

  private isDone(entry: Entry<R>): boolean {
    return entry.done || isFinished(entry.request.status?.phase);
  }

  private busy(key: string): boolean {
    return this.running.has(key) || [...(this.keys.get(key)?.values() ?? [])].some((entry) => entry.state === 'queued');
  }

  private heldCount(): number {
    return [...this.keys.values()].filter((entries) => [...entries.values()].some((entry) => entry.state === 'held')).length;
  }

  /** Deleted, or no longer owned by its controller (then deleted here, unrun): forgotten. */
  private dropped(type: WatchEvent['type'], request: R, known: Entry<R> | undefined): boolean {
    const stale = type !== 'deleted' && isStaleChild(request);
    if (type !== 'deleted' && !stale) {
      return false;
    }
    this.remove(known ?? this.entryFor(request));
    if (stale) {
      discardStale(this.deps.kube, this.kind, request);
    }
    return true;
  }

  private remove(entry: Entry<R>): void {
    this.keys.get(entry.key)?.delete(entry.id);
    this.disarm(entry);
    entry.controller?.abort(new CancelledError('the request was deleted'));
    if (entry.state === 'held') {
      this.unhold(entry);
    }
    this.kind.forget?.(entry.request);
    this.reconcile(entry.key);
  }

  /** Not (or no longer) the request of its key: cancel its run, drop its admission wait or hold. */
  private deselect(entry: Entry<R>, selected: R | undefined): void {
    if (entry.state === 'running') {
      entry.controller?.abort(new CancelledError(`superseded by ${selected?.metadata.name ?? 'a newer request'}`));
    } else if (entry.state === 'queued') {
      entry.state = 'idle';
    } else if (entry.state === 'waiting' && entry.timer?.retry === false) {
      this.disarm(entry);
    } else if (entry.state === 'held') {
      this.unhold(entry);
    }
  }

  private unhold(entry: Entry<R>): void {
    entry.state = 'idle';
    this.kind.admission?.unhold(entry.key);
    this.kind.admission?.heldChanged(this.heldCount());
  }

  private admit(entry: Entry<R>): void {
    const admission = this.kind.admission?.admit(entry.request, entry.key) ?? { kind: 'run' };
    if (admission.kind === 'wait') {
      this.arm(entry, admission.ms, false);
      return;
    }
    if (admission.kind === 'hold') {
      entry.state = 'held';
      this.kind.admission?.heldChanged(this.heldCount());
      return;
    }
    if (this.kind.admission !== undefined) {
      this.kind.admission.unhold(entry.key);
      this.kind.admission.heldChanged(this.heldCount());
    }
    this.enqueue(entry);
  }

  private enqueue(entry: Entry<R>): void {
    const { queue, metrics } = this.deps;
    entry.state = 'queued';
    metrics?.queueDepth?.set(queue.size + 1);
    void queue.add(async () => {
      metrics?.queueDepth?.set(queue.size);
      await this.dequeued(entry);
    });
  }

  private async dequeued(entry: Entry<R>): Promise<void> {
    if (entry.state !== 'queued' || this.find(entry.id) !== entry || this.isDone(entry) || !this.accepting) {
      if (entry.state === 'queued') {
        entry.state = 'idle';
      }
      this.released(entry);
      return;
    }
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.running.set(entry.key, { entry, done });
    try {
      this.after(entry, await this.run(entry));
    } finally {
      this.running.delete(entry.key);
      finish();
    }
    this.released(entry);
  }

  private async run(entry: Entry<R>): Promise<RunOutcome> {
    const controller = new AbortController();
    entry.controller = controller;
    entry.state = 'running';
    this.deps.metrics?.inFlight.inc();
    try {
      return await this.kind.execute(entry.request, { signal: controller.signal, backoffMs: this.backoffMs(entry, entry.failures + 1) });
    } catch (error) {
      this.kind.crashed(entry.request, error);
      return { kind: 'finished' };
    } finally {
      this.deps.metrics?.inFlight.dec();
      entry.controller = undefined;
    }
  }

  private after(entry: Entry<R>, outcome: RunOutcome): void {
    entry.state = 'idle';
    if (outcome.kind === 'finished') {
      entry.done = true;
    } else if (outcome.kind === 'retry') {
      entry.failures = outcome.failed ? entry.failures + 1 : 0;
      if (this.accepting) {
        this.arm(entry, outcome.afterMs, true);
      }
    }
  }

  private released(entry: Entry<R>): void {
    const woken = this.kind.admission?.release(entry.request) ?? [];
    for (const key of woken) {
      this.wake(key);
    }
    if (woken.length > 0) {
      this.kind.admission?.heldChanged(this.heldCount());
    }
    this.reconcile(entry.key);
  }

  /** A held request of `key` may be admitted again (it is held anew when still blocked). */
  private wake(key: string): void {
    for (const entry of this.keys.get(key)?.values() ?? []) {
      if (entry.state === 'held') {
        entry.state = 'idle';
      }
    }
    this.reconcile(key);
  }

  private backoffMs(entry: Entry<R>, failures: number): number {
    return Math.min(backoffSeconds(failures, entry.id) * 1000, this.deps.maxBackoffMs ?? Number.POSITIVE_INFINITY);
  }

  /** A retry timer stays when the policy selects another request; an admission wait does not. */
  private arm(entry: Entry<R>, ms: number, retry: boolean): void {
    this.disarm(entry);
    entry.state = 'waiting';
    const timer = this.deps.clock.setTimer(ms, () => {
      if (entry.timer?.timer === timer) {
        entry.timer = undefined;
        entry.state = 'idle';
        this.reconcile(entry.key);
      }
    });
    entry.timer = { timer, retry };
  }

  private disarm(entry: Entry<R>): void {
    entry.timer?.timer.cancel();
    entry.timer = undefined;
    if (entry.state === 'waiting') {
      entry.state = 'idle';
    }
  }
}
