// The hosts-per-state gauges: counts, the age of the longest wait per state and error types,
// from the pool's BareMetalHost watch; dated from operationHistory where a pool takes over mid-state.
import { describe, expect, it } from 'vitest';
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import { identityOf } from '../../domain/k8s.js';
import { HostFleet, fleetView } from '../../drivers/pool/fleet.js';
import type { FleetSnapshot } from '../../drivers/pool/fleet.js';
import { createPoolMetrics } from '../../drivers/pool/metrics.js';
import { createHarness } from '../support/fake-driver.js';

const T0 = Date.parse('2026-11-29T15:00:00Z');

interface HostFixture {
  name: string;
  state?: string;
  errorType?: string;
  /** operationHistory.<operation> = { start, end } */
  history?: Record<string, { start: string | null; end: string | null }>;
}

function host(fixture: HostFixture): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: fixture.name, namespace: 'metal3' },
    spec: {},
    status: {
      ...(fixture.state === undefined ? {} : { provisioning: { state: fixture.state } }),
      ...(fixture.errorType === undefined ? {} : { errorType: fixture.errorType }),
      ...(fixture.history === undefined ? {} : { operationHistory: fixture.history }),
    },
  } as unknown as BareMetalHost;
}

function plain(snapshot: FleetSnapshot): Record<string, Record<string, number>> {
  return {
    hostsByState: Object.fromEntries(snapshot.hostsByState),
    oldestSecondsByState: Object.fromEntries(snapshot.oldestSecondsByState),
    errorsByType: Object.fromEntries(snapshot.errorsByType),
  };
}

interface Step {
  /** Seconds after T0 at which the event arrives. */
  at: number;
  type: 'added' | 'modified' | 'deleted';
  host: HostFixture;
}

const scenarios: { name: string; steps: Step[]; at: number; want: ReturnType<typeof plain> }[] = [
  {
    name: 'a host that has never been reconciled counts as none',
    steps: [{ at: 0, type: 'added', host: { name: 'a' } }],
    at: 30,
    want: { hostsByState: { none: 1 }, oldestSecondsByState: { none: 30 }, errorsByType: {} },
  },
  {
    name: 'the oldest host per state sets the age; a state change restarts the clock',
    steps: [
      { at: 0, type: 'added', host: { name: 'a', state: 'inspecting' } },
      { at: 100, type: 'added', host: { name: 'b', state: 'inspecting' } },
      { at: 200, type: 'modified', host: { name: 'a', state: 'available' } },
      { at: 250, type: 'modified', host: { name: 'a', state: 'available', errorType: '' } },
    ],
    at: 300,
    want: { hostsByState: { available: 1, inspecting: 1 }, oldestSecondsByState: { available: 100, inspecting: 200 }, errorsByType: {} },
  },
  {
    name: 'a pool that starts mid-provisioning dates the state from operationHistory',
    steps: [{ at: 0, type: 'added', host: { name: 'a', state: 'provisioning', history: { provision: { start: '2026-11-29T14:00:00Z', end: null } } } }],
    at: 0,
    want: { hostsByState: { provisioning: 1 }, oldestSecondsByState: { provisioning: 3600 }, errorsByType: {} },
  },
  {
    name: 'a finished operation in history does not date the current state',
    steps: [
      {
        at: 0,
        type: 'added',
        host: { name: 'a', state: 'registering', history: { register: { start: '2026-11-29T14:00:00Z', end: '2026-11-29T14:01:00Z' } } },
      },
    ],
    at: 10,
    want: { hostsByState: { registering: 1 }, oldestSecondsByState: { registering: 10 }, errorsByType: {} },
  },
  {
    name: 'error types are counted, deleted hosts drop out',
    steps: [
      { at: 0, type: 'added', host: { name: 'a', state: 'registering', errorType: 'registration error' } },
      { at: 0, type: 'added', host: { name: 'b', state: 'provisioned', errorType: 'power management error' } },
      { at: 0, type: 'added', host: { name: 'c', state: 'provisioned' } },
      { at: 5, type: 'deleted', host: { name: 'b', state: 'provisioned', errorType: 'power management error' } },
    ],
    at: 5,
    want: {
      hostsByState: { provisioned: 1, registering: 1 },
      oldestSecondsByState: { provisioned: 5, registering: 5 },
      errorsByType: { 'registration error': 1 },
    },
  },
];

describe('HostFleet', () => {
  it.each(scenarios)('$name', ({ steps, at, want }) => {
    let now = T0;
    const fleet = new HostFleet(() => now);
    for (const step of steps) {
      now = T0 + step.at * 1000;
      fleet.onEvent({ type: step.type, object: host(step.host) });
    }
    now = T0 + at * 1000;
    expect(plain(fleet.snapshot())).toEqual(want);
  });
});

describe('ironhook_hosts gauges', () => {
  it('show nothing while no fleet is attached (a standby replica)', async () => {
    const metrics = createPoolMetrics({ defaultMetrics: false });
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE ironhook_hosts gauge');
    expect(text).not.toMatch(/^ironhook_hosts\{/m);
  });

  it('are fed by the leading pool from its BareMetalHost watch and emptied when it stops', async () => {
    const harness = createHarness();
    harness.kube.put('baremetalhosts', host({ name: 'a', state: 'provisioned' }));
    harness.kube.put('baremetalhosts', host({ name: 'b', state: 'registering', errorType: 'registration error' }));
    await harness.pool.start();
    harness.kube.put('baremetalhosts', host({ name: 'c', state: 'provisioned' }));
    harness.clock.advance(90_000);
    const text = await harness.metrics.registry.metrics();
    expect(text).toContain('ironhook_hosts{state="provisioned"} 2');
    expect(text).toContain('ironhook_hosts{state="registering"} 1');
    expect(text).toContain('ironhook_hosts_oldest_in_state_seconds{state="registering"} 90');
    expect(text).toContain('ironhook_hosts_errors{error_type="registration error"} 1');
    await harness.pool.stop();
    expect(await harness.metrics.registry.metrics()).not.toMatch(/^ironhook_hosts\{/m);
  });
});

describe('what the pool keeps of watched objects', () => {
  const big: BareMetalHost = {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: 'rf-0',
      namespace: 'metal3',
      uid: 'u-1',
      resourceVersion: '7',
      labels: { 'controller-uid': 'p-1' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'p', uid: 'p-1', controller: true }],
      annotations: { huge: 'x'.repeat(10_000) },
      managedFields: [{ manager: 'kubectl' }],
    },
    spec: { online: true },
    status: {
      provisioning: { state: 'provisioned' },
      errorType: 'provisioning error',
      operationHistory: { provision: { start: '2026-11-29T15:00:00Z', end: null } },
      hardware: { nics: Array.from({ length: 64 }, (_, i) => ({ mac: `52:54:00:00:00:${String(i)}` })) },
    },
  } as unknown as BareMetalHost;

  it.each([
    { name: 'identityOf: name, namespace, uid, version, labels and owners only', project: identityOf, keeps: ['apiVersion', 'kind', 'metadata'] },
    { name: 'fleetView: identity and the gauges’ status fields', project: fleetView, keeps: ['apiVersion', 'kind', 'metadata', 'status'] },
  ])('$name', ({ project, keeps }) => {
    const kept = project(big) as BareMetalHost;
    expect(Object.keys(kept).sort()).toEqual(keeps);
    expect(Object.keys(kept.metadata).sort()).toEqual(['labels', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'uid']);
    expect(JSON.stringify(kept).length).toBeLessThan(1_000);
  });

  it('the fleet counts a projected host as it counts the whole one', () => {
    const whole = new HostFleet(() => T0);
    const projected = new HostFleet(() => T0);
    whole.onEvent({ type: 'added', object: big });
    projected.onEvent({ type: 'added', object: fleetView(big) });
    expect(projected.snapshot()).toEqual(whole.snapshot());
  });
});
