// The Kubernetes-facing parts on virtual time: the reflector's relists and watch liveness, Lease
// leader election, Event de-duplication, the per-BMC gate, and the in-memory API's merge patch.
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { BMCGate } from '../../drivers/pool/bmc-gate.js';
import { ManualClock } from '../../drivers/pool/clock.js';
import type { LeaderElectionConfig } from '../../drivers/pool/config.js';
import { EventRecorder } from '../../drivers/pool/events.js';
import { LeaderElector } from '../../drivers/pool/leader.js';
import { silentLogger } from '../../drivers/pool/logging.js';
import { MemoryKube, mergePatch } from '../support/memory-kube.js';
import { Reflector } from '../../drivers/kube/reflector.js';
import type { ReflectorTransport, RestartReason } from '../../drivers/kube/reflector.js';
import type { WatchEvent } from '../../drivers/kube/port.js';

function obj(name: string, resourceVersion: string): KObject {
  return { apiVersion: 'v1', kind: 'X', metadata: { name, namespace: 'ns', resourceVersion } };
}

/** A scripted apiserver: the test sets what list returns and pushes watch events by hand. */
class FakeTransport implements ReflectorTransport {
  items: KObject[] = [];
  resourceVersion = '1';
  lists = 0;
  watches: { from: string; onEvent: (type: string, object: KObject) => void; onDone: (error?: unknown) => void; aborted: boolean }[] = [];
  listError: Error | undefined;

  list(): Promise<{ items: KObject[]; resourceVersion: string }> {
    this.lists += 1;
    if (this.listError !== undefined) {
      const error = this.listError;
      this.listError = undefined;
      return Promise.reject(error);
    }
    return Promise.resolve({ items: [...this.items], resourceVersion: this.resourceVersion });
  }

  watch(from: string, onEvent: (type: string, object: KObject) => void, onDone: (error?: unknown) => void): Promise<{ abort(): void }> {
    const entry = { from, onEvent, onDone, aborted: false };
    this.watches.push(entry);
    return Promise.resolve({
      abort: () => {
        entry.aborted = true;
      },
    });
  }

  get current(): FakeTransport['watches'][number] {
    const last = this.watches.at(-1);
    if (last === undefined) {
      throw new Error('no watch');
    }
    return last;
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function reflector(
  livenessMs = 150_000,
): Promise<{ transport: FakeTransport; clock: ManualClock; events: string[]; restarts: RestartReason[]; r: Reflector }> {
  const transport = new FakeTransport();
  transport.items = [obj('a', '1')];
  const clock = new ManualClock();
  const events: string[] = [];
  const restarts: RestartReason[] = [];
  const r = new Reflector(transport, (event: WatchEvent) => events.push(`${event.type}:${event.object.metadata.name ?? ''}`), {
    clock,
    livenessMs,
    onRestart: (reason) => restarts.push(reason),
  });
  const started = r.start();
  clock.advance(0);
  await started;
  await flush();
  return { transport, clock, events, restarts, r };
}

describe('reflector', () => {
  it('lists, then watches from the list resourceVersion', async () => {
    const { transport, events } = await reflector();
    expect(events).toEqual(['added:a']);
    expect(transport.current.from).toBe('1');
    transport.current.onEvent('ADDED', obj('b', '2'));
    transport.current.onEvent('MODIFIED', obj('a', '3'));
    transport.current.onEvent('DELETED', obj('b', '4'));
    expect(events).toEqual(['added:a', 'added:b', 'modified:a', 'deleted:b']);
  });

  it('relists when the watch has been silent for longer than the liveness window (client-node informers stop silently)', async () => {
    const { transport, clock, events, restarts } = await reflector(150_000);
    clock.advance(100_000);
    transport.current.onEvent('BOOKMARK', obj('', '5'));
    clock.advance(100_000);
    await flush();
    expect(transport.lists).toBe(1);
    transport.items = [obj('c', '9')];
    transport.resourceVersion = '9';
    clock.advance(150_000);
    await flush();
    expect(restarts).toEqual(['stale']);
    expect(transport.lists).toBe(2);
    expect(transport.watches[0]?.aborted).toBe(true);
    expect(transport.current.from).toBe('9');
    expect(events).toEqual(['added:a', 'deleted:a', 'added:c']);
  });

  it('re-watches from the last resourceVersion when the server closes the watch normally', async () => {
    const { transport, restarts } = await reflector();
    transport.current.onEvent('MODIFIED', obj('a', '7'));
    transport.current.onDone();
    await flush();
    expect(restarts).toEqual(['closed']);
    expect(transport.lists).toBe(1);
    expect(transport.current.from).toBe('7');
  });

  it('relists after 410 Gone', async () => {
    const { transport, clock, restarts } = await reflector();
    transport.current.onEvent('ERROR', { code: 410 } as unknown as KObject);
    transport.current.onDone();
    clock.advance(0);
    await flush();
    expect(restarts).toEqual(['expired']);
    expect(transport.lists).toBe(2);
  });

  it('backs off and relists after a watch error, and ignores callbacks of superseded watches', async () => {
    const { transport, clock, events, restarts } = await reflector();
    const old = transport.current;
    old.onDone(new Error('connection reset'));
    transport.listError = new Error('apiserver down');
    clock.advance(1_000);
    await flush();
    expect(restarts).toEqual(['error', 'error']);
    clock.advance(2_000);
    await flush();
    expect(transport.lists).toBe(3);
    old.onEvent('ADDED', obj('ghost', '99'));
    expect(events).not.toContain('added:ghost');
  });

  it('start() resolves only after the first successful list', async () => {
    const transport = new FakeTransport();
    transport.listError = new Error('not yet');
    const clock = new ManualClock();
    const r = new Reflector(transport, () => undefined, { clock, livenessMs: 1000 });
    let synced = false;
    void r.start().then(() => {
      synced = true;
    });
    clock.advance(0);
    await flush();
    expect(synced).toBe(false);
    clock.advance(1_000);
    await flush();
    expect(synced).toBe(true);
    r.stop();
  });
});

const LEASE: LeaderElectionConfig = {
  enabled: true,
  namespace: 'ironhook',
  name: 'ironhook-driver-pool',
  identity: 'a',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

function elector(kube: MemoryKube, clock: ManualClock, identity: string, pod?: LeaderElectionConfig['pod']): { e: LeaderElector; log: string[] } {
  const log: string[] = [];
  const callbacks = { onStartedLeading: () => log.push('started'), onStoppedLeading: () => log.push('stopped') };
  return {
    e: new LeaderElector({ kube, clock, config: { ...LEASE, identity, ...(pod === undefined ? {} : { pod }) }, callbacks, logger: silentLogger() }),
    log,
  };
}

/** Replicas `a` and `b` on one in-memory API server and one clock, neither started yet. */
function twoReplicas(): { kube: MemoryKube; clock: ManualClock; a: ReturnType<typeof elector>; b: ReturnType<typeof elector> } {
  const kube = new MemoryKube();
  const clock = new ManualClock();
  return { kube, clock, a: elector(kube, clock, 'a'), b: elector(kube, clock, 'b') };
}

describe('leader election', () => {
  it('the first replica takes the lease; a second stands by until the lease expires on its own clock', async () => {
    const { kube, clock, a, b } = twoReplicas();
    await a.e.attempt();
    await b.e.attempt();
    expect(a.log).toEqual(['started']);
    expect(b.log).toEqual([]);
    expect(kube.leases.get('ironhook/ironhook-driver-pool')?.spec.holderIdentity).toBe('a');
    clock.advance(14_000);
    await b.e.attempt();
    expect(b.log).toEqual([]);
    clock.advance(1_000);
    await b.e.attempt();
    expect(b.log).toEqual(['started']);
    expect(kube.leases.get('ironhook/ironhook-driver-pool')?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('a renewing leader keeps the lease', async () => {
    const { clock, a, b } = twoReplicas();
    for (let i = 0; i < 20; i += 1) {
      await a.e.attempt();
      await b.e.attempt();
      clock.advance(2_000);
    }
    expect(b.log).toEqual([]);
    expect(a.e.isLeader).toBe(true);
  });

  it('stops leading when it cannot renew within the renew deadline', async () => {
    const kube = new MemoryKube();
    const clock = new ManualClock();
    const a = elector(kube, clock, 'a');
    await a.e.attempt();
    for (let i = 0; i < 6; i += 1) {
      clock.advance(2_000);
      kube.failures.set('getLease', new Error('apiserver unreachable'));
      await a.e.attempt();
    }
    expect(a.log).toEqual(['started', 'stopped']);
  });

  it('releases the lease on stop (deletes it, so nothing is left after uninstall) and a standby takes over at once', async () => {
    const { kube, a, b } = twoReplicas();
    await a.e.attempt();
    await b.e.attempt();
    await a.e.stop();
    expect(kube.leases.has('ironhook/ironhook-driver-pool')).toBe(false);
    await b.e.attempt();
    expect(b.log).toEqual(['started']);
    expect(kube.leases.get('ironhook/ironhook-driver-pool')?.spec.holderIdentity).toBe('b');
  });

  it("is owned by the leader's pod, so it goes with the last leader's pod; a new leader takes the ownership over", async () => {
    const kube = new MemoryKube();
    const clock = new ManualClock();
    const a = elector(kube, clock, 'pool-a', { name: 'pool-a', uid: 'uid-a' });
    const b = elector(kube, clock, 'pool-b', { name: 'pool-b', uid: 'uid-b' });
    await a.e.attempt();
    const owners = (): unknown => kube.leases.get('ironhook/ironhook-driver-pool')?.metadata.ownerReferences;
    expect(owners()).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'pool-a', uid: 'uid-a' }]);
    await b.e.attempt(); // b starts its own clock on the lease a no longer renews
    clock.advance(15_000);
    await b.e.attempt();
    expect(owners()).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'pool-b', uid: 'uid-b' }]);
  });

  it('leaves a lease another replica took meanwhile', async () => {
    const { kube, a } = twoReplicas();
    await a.e.attempt();
    const key = 'ironhook/ironhook-driver-pool';
    const taken = kube.leases.get(key);
    if (taken === undefined) throw new Error('no lease');
    kube.leases.set(key, { ...taken, metadata: { ...taken.metadata, resourceVersion: '999' }, spec: { ...taken.spec, holderIdentity: 'c' } });
    await a.e.stop();
    expect(kube.leases.get(key)?.spec.holderIdentity).toBe('c');
  });
});

describe('events', () => {
  it('de-duplicates the same reason and message within the window by bumping count', async () => {
    const kube = new MemoryKube();
    const clock = new ManualClock();
    const recorder = new EventRecorder({ kube, clock, windowMs: 600_000, instance: 'pool-0', logger: silentLogger() });
    const host = { namespace: 'ns', name: 'server-01', uid: 'u1' };
    for (let i = 0; i < 30; i += 1) {
      await recorder.record(host, 'PowerOn', 'Host powered on');
      clock.advance(10_000);
    }
    await recorder.record(host, 'PowerOff', 'Host powered off');
    expect(kube.events).toHaveLength(2);
    expect(kube.events[0]).toMatchObject({
      reason: 'PowerOn',
      count: 30,
      type: 'Normal',
      reportingComponent: 'ironhook.dev/driver-pool',
      reportingInstance: 'pool-0',
      involvedObject: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'server-01', uid: 'u1' },
      metadata: { name: 'PowerOn-1' },
    });
    clock.advance(600_001);
    await recorder.record(host, 'PowerOn', 'Host powered on');
    expect(kube.events).toHaveLength(3);
  });

  it('never throws when the apiserver refuses an Event', async () => {
    const kube = new MemoryKube();
    kube.failures.set('createEvent', new Error('forbidden'));
    const recorder = new EventRecorder({ kube, clock: new ManualClock(), windowMs: 1000, instance: 'p', logger: silentLogger() });
    await expect(recorder.record({ namespace: 'n', name: 'h', uid: 'u' }, 'PowerOn', 'x')).resolves.toBeUndefined();
  });
});

describe('BMC gate', () => {
  it('serialises calls per BMC (host:port) and runs different BMCs in parallel', async () => {
    const gate = new BMCGate(new ManualClock());
    const order: string[] = [];
    const releases: (() => void)[] = [];
    const call = (key: string, name: string): Promise<void> =>
      gate.run({
        key,
        family: 'redfish',
        op: name,
        timeoutMs: 10_000,
        spacingMs: 0,
        fn: () =>
          new Promise<void>((resolve) => {
            order.push(`start ${name}`);
            releases.push(() => {
              order.push(`end ${name}`);
              resolve();
            });
          }),
      });
    const all = Promise.all([call('10.0.0.1:443', 'a1'), call('10.0.0.1:443', 'a2'), call('10.0.0.2:443', 'b1')]);
    await flush();
    expect(order).toEqual(['start a1', 'start b1']);
    releases.shift()?.();
    await flush();
    expect(order).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    releases.splice(0).forEach((release) => {
      release();
    });
    await all;
    expect(gate.busy('10.0.0.1:443')).toBe(0);
  });

  it('spaces commands to one BMC (IPMI min_command_interval) on the pool clock', async () => {
    const clock = new ManualClock(Date.parse('2026-11-29T15:00:00Z'), { autoAdvance: true });
    const gate = new BMCGate(clock);
    const times: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      await gate.run({ key: 'ipmi:623', family: 'ipmi', op: 'getPower', timeoutMs: 1000, spacingMs: 5000, fn: () => Promise.resolve(times.push(clock.now())) });
    }
    expect(times.map((time) => time - (times[0] ?? 0))).toEqual([0, 5000, 10000]);
  });

  it('times out a call that hangs and frees the line', async () => {
    const clock = new ManualClock();
    const gate = new BMCGate(clock);
    const hung = gate.run({ key: 'k', family: 'redfish', op: 'getPower', timeoutMs: 30_000, spacingMs: 0, fn: () => new Promise<never>(() => undefined) });
    const expectation = expect(hung).rejects.toMatchObject({ kind: 'Transient', reason: 'Timeout' });
    await flush();
    clock.advance(30_000);
    await expectation;
    await expect(gate.run({ key: 'k', family: 'redfish', op: 'getPower', timeoutMs: 1, spacingMs: 0, fn: () => Promise.resolve('on') })).resolves.toBe('on');
  });

  it('rejects at once when the request is aborted', async () => {
    const gate = new BMCGate(new ManualClock());
    const controller = new AbortController();
    const pending = gate.run({
      key: 'k',
      family: 'redfish',
      op: 'setPower',
      timeoutMs: 30_000,
      spacingMs: 0,
      signal: controller.signal,
      fn: () => new Promise<never>(() => undefined),
    });
    controller.abort(new Error('superseded'));
    await expect(pending).rejects.toThrow('superseded');
  });
});

describe('merge patch (RFC 7386)', () => {
  it.each([
    { name: 'set', target: { a: 1 }, patch: { b: 2 }, result: { a: 1, b: 2 } },
    { name: 'remove with null', target: { a: 1, b: 2 }, patch: { b: null }, result: { a: 1 } },
    { name: 'nested', target: { s: { x: 1, y: 2 } }, patch: { s: { y: null, z: 3 } }, result: { s: { x: 1, z: 3 } } },
    { name: 'arrays replace', target: { l: [1, 2] }, patch: { l: [3] }, result: { l: [3] } },
  ])('$name', ({ target, patch, result }) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });
});
