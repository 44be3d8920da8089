// The pool's execution rules (docs/architecture.md, "Rules the pool follows"): highest sequence
// wins, deleted means cancelled, run once, resume after a restart, notBefore on the pool's
// clock, the provisioning limit with Delayed, and the global worker limit. Executors here are
// controllable stand-ins, so each row decides when a request finishes; no test sleeps.
import { describe, expect, it } from 'vitest';
import { Action, Phase } from '../../domain/operations.js';
import type { HostOperation } from '../../domain/operations.js';
import type { ExecutionContext, Executor } from '../../drivers/pool/executors/index.js';
import { isCapacityGated } from '../../drivers/pool/host-operations.js';
import { createHarness, operation, NAMESPACE } from '../support/fake-driver.js';
import type { Harness } from '../support/fake-driver.js';

interface Gate {
  release(): void;
  fail(error: Error): void;
  signal: AbortSignal;
}

/** Executors that block until the test releases them, and record what started and what was aborted. */
function controllable(): { executors: Record<Action, Executor>; started: string[]; aborted: string[]; gates: Map<string, Gate> } {
  const started: string[] = [];
  const aborted: string[] = [];
  const gates = new Map<string, Gate>();
  const executor: Executor = (ctx: ExecutionContext) =>
    new Promise((resolve, reject) => {
      const name = ctx.op.metadata.name ?? '';
      started.push(name);
      ctx.signal.addEventListener('abort', () => {
        aborted.push(name);
        reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('aborted'));
      });
      gates.set(name, {
        release: () => {
          resolve({ poweredOn: true });
        },
        fail: reject,
        signal: ctx.signal,
      });
    });
  const executors = Object.fromEntries(Object.values(Action).map((action) => [action, executor])) as Record<Action, Executor>;
  return { executors, started, aborted, gates };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function statusOf(h: Harness, name: string): HostOperation['status'] {
  return (h.kube.get('hostoperations', NAMESPACE, name) as HostOperation | undefined)?.status;
}

async function started(overrides: Parameters<typeof createHarness>[0] = {}): Promise<{ h: Harness; c: ReturnType<typeof controllable> }> {
  const c = controllable();
  const h = createHarness(overrides, { executors: c.executors });
  await h.pool.start();
  return { h, c };
}

describe('highest sequence wins', () => {
  it('runs only the highest sequence of a host and ignores lower ones that appear later', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('PowerOn', 3));
    h.kube.put('hostoperations', operation('PowerOff', 2));
    await flush();
    expect(c.started).toEqual(['server-01-poweron-3']);
  });

  it('cancels a running lower sequence when a higher one appears, leaving its status as it was', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('Provision', 4));
    await flush();
    expect(statusOf(h, 'server-01-provision-4')?.phase).toBe(Phase.Running);
    h.kube.put('hostoperations', operation('Deprovision', 5));
    await flush();
    expect(c.aborted).toEqual(['server-01-provision-4']);
    expect(c.started).toEqual(['server-01-provision-4', 'server-01-deprovision-5']);
    expect(statusOf(h, 'server-01-provision-4')?.phase).toBe(Phase.Running);
    c.gates.get('server-01-deprovision-5')?.release();
    await h.settle();
    expect(statusOf(h, 'server-01-deprovision-5')?.phase).toBe(Phase.Succeeded);
  });

  it('keeps hosts independent: one request per host, several hosts at once', async () => {
    const { h, c } = await started();
    for (const host of ['a', 'b', 'c']) {
      h.kube.put('hostoperations', operation('PowerOn', 1, { host: { name: host, uid: `uid-${host}` } }));
    }
    await flush();
    expect(c.started.sort()).toEqual(['a-poweron-1', 'b-poweron-1', 'c-poweron-1']);
  });
});

describe('deleted means cancelled', () => {
  it('aborts the run of a deleted request and writes nothing more for it', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('Inspect', 1));
    await flush();
    const patches = h.kube.statusPatches.length;
    h.kube.remove('hostoperations', NAMESPACE, 'server-01-inspect-1');
    await h.settle();
    expect(c.aborted).toEqual(['server-01-inspect-1']);
    expect(h.kube.statusPatches.length).toBe(patches);
    expect(h.pool.operations.snapshot().running).toEqual([]);
  });

  it('treats a request with a deletionTimestamp as gone', async () => {
    const { h, c } = await started();
    const op = operation('PowerOn', 1);
    op.metadata.deletionTimestamp = '2026-11-29T14:00:00Z';
    h.kube.put('hostoperations', op);
    await flush();
    expect(c.started).toEqual([]);
  });
});

describe('run once', () => {
  it.each([
    { name: 'Succeeded', phase: Phase.Succeeded },
    { name: 'Failed', phase: Phase.Failed },
  ])('never runs a request found $name', async ({ phase }) => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('PowerOn', 1, { status: { phase } }));
    await flush();
    expect(c.started).toEqual([]);
  });

  it('does not run a finished request again while the watch still shows it Running', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('PowerOn', 1));
    await flush();
    c.gates.get('server-01-poweron-1')?.release();
    await h.settle();
    // The cache replays an older copy (status Running), as a lagging watch would.
    h.pool.operations.onEvent({ type: 'modified', object: operation('PowerOn', 1, { status: { phase: Phase.Running } }) });
    await flush();
    expect(c.started).toEqual(['server-01-poweron-1']);
  });

  it('does not restart a request whose run crashed in this process', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('PowerOn', 1));
    await flush();
    h.kube.failures.set('patchStatus', new Error('apiserver down'));
    c.gates.get('server-01-poweron-1')?.fail(new Error('boom'));
    await h.settle();
    h.kube.put('hostoperations', operation('PowerOn', 1, { status: { phase: Phase.Running } }));
    await flush();
    expect(c.started).toEqual(['server-01-poweron-1']);
  });
});

describe('resume after a restart', () => {
  it('resumes a request found Running, keeping its startTime and adding a Resume step', async () => {
    const h = createHarness();
    h.fleet.add('redfish+http://127.0.0.1:8000/redfish/v1/Systems/1', (bmc) => {
      bmc.power = 'on';
    });
    h.kube.put('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'server-01-bmc', namespace: NAMESPACE },
      data: { username: Buffer.from('admin').toString('base64'), password: Buffer.from('password').toString('base64') },
    });
    const running = {
      phase: Phase.Running,
      startTime: '2026-11-29T14:59:00Z',
      steps: [{ name: 'PowerOn', state: Phase.Running, time: '2026-11-29T14:59:00Z' }],
    };
    h.kube.put('hostoperations', operation('PowerOn', 1, { status: running }));
    await h.pool.start();
    await h.settle();
    const status = statusOf(h, 'server-01-poweron-1');
    expect(status?.phase).toBe(Phase.Succeeded);
    expect(status?.startTime).toBe('2026-11-29T14:59:00Z');
    expect(status?.steps?.map((step) => step.name)).toEqual(['PowerOn', 'Resume', 'PowerOn']);
    expect(status?.steps?.at(-1)?.message).toContain('no command sent');
    expect(h.fleet.get('redfish+http://127.0.0.1:8000/redfish/v1/Systems/1').commands).toEqual([]);
  });
});

describe('notBefore', () => {
  it('waits on the pool clock, writes Pending once, then runs at the time', async () => {
    const { h, c } = await started();
    h.clock.autoAdvance = false;
    const notBefore = new Date(h.clock.now() + 90_000).toISOString().replace('.000Z', 'Z');
    h.kube.put('hostoperations', operation('Register', 2, { notBefore }));
    await flush();
    expect(c.started).toEqual([]);
    expect(statusOf(h, 'server-01-register-2')?.phase).toBe(Phase.Pending);
    expect(h.pool.operations.snapshot().waiting).toEqual(['server-01-register-2']);
    h.clock.advance(89_000);
    await flush();
    expect(c.started).toEqual([]);
    h.clock.advance(1_000);
    await flush();
    expect(c.started).toEqual(['server-01-register-2']);
  });

  it('drops the timer of a request superseded while it waits', async () => {
    const { h, c } = await started();
    h.clock.autoAdvance = false;
    const notBefore = new Date(h.clock.now() + 60_000).toISOString();
    h.kube.put('hostoperations', operation('Register', 2, { notBefore }));
    await flush();
    h.kube.put('hostoperations', operation('Register', 3));
    await flush();
    h.clock.advance(60_000);
    await flush();
    expect(c.started).toEqual(['server-01-register-3']);
  });

  it('runs a request whose notBefore has passed at once', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('Register', 2, { notBefore: '2026-11-29T14:00:00Z' }));
    await flush();
    expect(c.started).toEqual(['server-01-register-2']);
  });
});

const IPMI = 'ipmi://127.0.0.1:6230';
const VMEDIA = 'redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/1';

describe('provisioning limit', () => {
  it.each([
    { name: 'Provision over IPMI is gated', action: Action.Provision, address: IPMI, gated: true },
    { name: 'Inspect over Redfish (PXE) is gated', action: Action.Inspect, address: 'redfish://127.0.0.1/redfish/v1/Systems/1', gated: true },
    { name: 'Deprovision over IPMI is gated', action: Action.Deprovision, address: IPMI, gated: true },
    { name: 'Provision over virtual media is not gated', action: Action.Provision, address: VMEDIA, gated: false },
    { name: 'PowerOn is never gated', action: Action.PowerOn, address: IPMI, gated: false },
    { name: 'Register is never gated', action: Action.Register, address: IPMI, gated: false },
  ])('$name', ({ action, address, gated }) => {
    expect(isCapacityGated(operation(action, 1, { bmc: { address, credentialsName: 'x' } }))).toBe(gated);
  });

  it('sets Delayed with a delayReason when the limit is reached and starts the request when a slot frees', async () => {
    const { h, c } = await started({ provisioningLimit: 2 });
    for (const host of ['a', 'b', 'c']) {
      h.kube.put('hostoperations', operation('Provision', 1, { host: { name: host, uid: `uid-${host}` }, bmc: { address: IPMI, credentialsName: 'x' } }));
    }
    await flush();
    expect(c.started.sort()).toEqual(['a-provision-1', 'b-provision-1']);
    const delayed = statusOf(h, 'c-provision-1');
    expect(delayed?.phase).toBe(Phase.Delayed);
    expect(delayed?.delayReason).toContain('provisioning limit of 2');
    expect(h.pool.operations.snapshot().delayed).toEqual(['c-provision-1']);
    expect(await h.metrics.registry.getSingleMetricAsString('ironhook_pool_delayed')).toContain('ironhook_pool_delayed 1');
    c.gates.get('a-provision-1')?.release();
    await flush();
    expect(c.started).toContain('c-provision-1');
    expect(statusOf(h, 'c-provision-1')?.phase).toBe(Phase.Running);
    expect(statusOf(h, 'c-provision-1')?.delayReason).toBeUndefined();
    expect(await h.metrics.registry.getSingleMetricAsString('metal3_delayed__provisioning_total')).toContain('host="c"');
  });

  it('does not count virtual-media hosts against the limit', async () => {
    const { h, c } = await started({ provisioningLimit: 1 });
    h.kube.put('hostoperations', operation('Provision', 1, { host: { name: 'a', uid: 'uid-a' }, bmc: { address: IPMI, credentialsName: 'x' } }));
    h.kube.put('hostoperations', operation('Provision', 1, { host: { name: 'b', uid: 'uid-b' }, bmc: { address: VMEDIA, credentialsName: 'x' } }));
    await flush();
    expect(c.started.sort()).toEqual(['a-provision-1', 'b-provision-1']);
  });

  it('gives a request found Running after a restart its slot even when the limit is full', async () => {
    const c = controllable();
    const h = createHarness({ provisioningLimit: 1 }, { executors: c.executors });
    h.kube.put(
      'hostoperations',
      operation('Provision', 1, { host: { name: 'a', uid: 'uid-a' }, bmc: { address: IPMI, credentialsName: 'x' }, status: { phase: Phase.Running } }),
    );
    h.kube.put(
      'hostoperations',
      operation('Provision', 1, { host: { name: 'b', uid: 'uid-b' }, bmc: { address: IPMI, credentialsName: 'x' }, status: { phase: Phase.Running } }),
    );
    await h.pool.start();
    await flush();
    expect(c.started.sort()).toEqual(['a-provision-1', 'b-provision-1']);
  });

  it('frees the slot of a delayed request that is deleted', async () => {
    const { h, c } = await started({ provisioningLimit: 1 });
    h.kube.put('hostoperations', operation('Provision', 1, { host: { name: 'a', uid: 'uid-a' }, bmc: { address: IPMI, credentialsName: 'x' } }));
    h.kube.put('hostoperations', operation('Provision', 1, { host: { name: 'b', uid: 'uid-b' }, bmc: { address: IPMI, credentialsName: 'x' } }));
    await flush();
    h.kube.remove('hostoperations', NAMESPACE, 'b-provision-1');
    await flush();
    expect(h.pool.operations.snapshot().delayed).toEqual([]);
    expect(h.pool.operations.capacity.waiters()).toEqual([]);
    c.gates.get('a-provision-1')?.release();
    await h.settle();
    expect(c.started).toEqual(['a-provision-1']);
  });
});

describe('global concurrency', () => {
  it('runs at most POOL_CONCURRENCY requests and queues the rest', async () => {
    const { h, c } = await started({ concurrency: 2 });
    for (const host of ['a', 'b', 'c', 'd']) {
      h.kube.put('hostoperations', operation('PowerOn', 1, { host: { name: host, uid: `uid-${host}` } }));
    }
    await flush();
    expect(c.started).toHaveLength(2);
    expect(h.pool.operations.snapshot().queued).toHaveLength(2);
    expect(await h.metrics.registry.getSingleMetricAsString('ironhook_pool_in_flight')).toContain('ironhook_pool_in_flight 2');
    for (const name of [...c.started]) {
      c.gates.get(name)?.release();
    }
    await flush();
    expect(c.started).toHaveLength(4);
  });
});

describe('graceful stop', () => {
  it('aborts in-flight requests, leaves their status Running (resumable) and takes no new work', async () => {
    const { h, c } = await started();
    h.kube.put('hostoperations', operation('Provision', 1, { bmc: { address: VMEDIA, credentialsName: 'x' } }));
    await flush();
    await h.pool.stop();
    expect(c.aborted).toEqual(['server-01-provision-1']);
    expect(statusOf(h, 'server-01-provision-1')?.phase).toBe(Phase.Running);
    h.kube.put('hostoperations', operation('PowerOn', 2, { host: { name: 'other', uid: 'uid-other' } }));
    await flush();
    expect(c.started).toEqual(['server-01-provision-1']);
    expect(h.pool.ready).toBe(false);
  });
});
