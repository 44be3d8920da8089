// BMCMonitor refresh: a reading written when a value changed, after a request, and as a heartbeat
// every ten intervals (nothing written otherwise), changedTime only when a value changed, the
// interval on the pool's clock, credential rotation through the Secret watch, unreachable BMCs
// and missing Secrets, and Detach stopping the polling.
import { describe, expect, it } from 'vitest';
import type { BMCMonitor, BMCMonitorStatus } from '../../domain/operations.js';
import { nextStatus, observationChanged, shouldWrite } from '../../drivers/pool/monitor.js';
import type { Secret } from '../../drivers/kube/port.js';
import { createHarness, credentialsSecret, monitor, operation, NAMESPACE } from '../support/fake-driver.js';
import type { FakeBMC, Harness } from '../support/fake-driver.js';

const ADDRESS = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1';
const T0 = '2026-11-29T15:00:00Z';

async function setup(configure: (bmc: FakeBMC, h: Harness) => void = () => undefined): Promise<{ h: Harness; bmc: FakeBMC }> {
  const h = createHarness();
  h.clock.autoAdvance = false;
  const bmc = h.fleet.add(ADDRESS);
  const secret = credentialsSecret('server-01-bmc', 'admin', 'password');
  secret.metadata.labels = { 'environment.metal3.io': 'baremetal' };
  h.kube.put('secrets', secret);
  h.kube.put('bmcmonitors', monitor('server-01'));
  configure(bmc, h);
  await h.pool.start();
  await h.settle();
  return { h, bmc };
}

function statusOf(h: Harness): BMCMonitorStatus {
  return (h.kube.get('bmcmonitors', NAMESPACE, 'server-01') as BMCMonitor).status ?? {};
}

async function tick(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.settle();
}

describe('observationChanged / nextStatus', () => {
  const base: BMCMonitorStatus = {
    observedTime: T0,
    changedTime: T0,
    poweredOn: true,
    reachable: true,
    credentials: { name: 's', namespace: 'n', credentialsVersion: '1' },
  };
  it.each([
    { name: 'same values', next: { poweredOn: true, reachable: true, credentials: base.credentials }, changed: false },
    { name: 'power changed', next: { poweredOn: false, reachable: true, credentials: base.credentials }, changed: true },
    { name: 'reachability changed', next: { poweredOn: true, reachable: false, credentials: base.credentials }, changed: true },
    {
      name: 'credentials version changed',
      next: { poweredOn: true, reachable: true, credentials: { ...base.credentials, credentialsVersion: '2' } as BMCMonitorStatus['credentials'] },
      changed: true,
    },
    {
      name: 'an error appeared',
      next: { poweredOn: true, reachable: true, credentials: base.credentials, error: { kind: 'Transient' as const, reason: 'Timeout', message: 'slow' } },
      changed: true,
    },
  ])('$name → changed: $changed', ({ next, changed }) => {
    expect(observationChanged(base, next)).toBe(changed);
    expect(nextStatus(base, next, '2026-11-29T15:01:00Z').changedTime).toBe(changed ? '2026-11-29T15:01:00Z' : T0);
  });

  it.each([
    { name: 'nothing changed, one interval later: not written', readAt: '2026-11-29T15:01:00Z', forced: false, write: false },
    { name: 'nothing changed, nine intervals later: not written', readAt: '2026-11-29T15:09:59Z', forced: false, write: false },
    { name: 'nothing changed, ten intervals later: the heartbeat', readAt: '2026-11-29T15:10:00Z', forced: false, write: true },
    { name: 'nothing changed, after a request: written (newer than its result)', readAt: '2026-11-29T15:01:00Z', forced: true, write: true },
  ])('shouldWrite: $name', ({ readAt, forced, write }) => {
    const same = { poweredOn: true, reachable: true, credentials: base.credentials };
    expect(shouldWrite(base, same, Date.parse(readAt), { forced, intervalSeconds: 60 })).toBe(write);
  });

  it('shouldWrite: a changed value or a first reading is always written', () => {
    expect(
      shouldWrite(base, { poweredOn: false, reachable: true, credentials: base.credentials }, Date.parse(T0), { forced: false, intervalSeconds: 60 }),
    ).toBe(true);
    expect(shouldWrite({}, { poweredOn: true }, Date.parse(T0), { forced: false, intervalSeconds: 60 })).toBe(true);
  });

  it('a first observation always sets changedTime', () => {
    expect(nextStatus({}, { poweredOn: false }, T0)).toEqual({ observedTime: T0, changedTime: T0, poweredOn: false });
  });
});

describe('monitor refresh', () => {
  it('stamps a reading with the time it was taken, not when its status was written', async () => {
    const { h, bmc } = await setup((b) => {
      b.power = 'on';
    });
    const readAt = h.clock.now() + 60_000;
    bmc.power = 'off';
    // The read itself takes 5 s (a BMC gate queue, a slow BMC): the status must say when it began.
    bmc.onPowerRead = () => {
      h.clock.advance(5_000);
    };
    await tick(h, 60_000);
    expect(statusOf(h).observedTime).toBe(new Date(readAt).toISOString().replace(/\.\d{3}Z$/u, 'Z'));
  });

  it('reads the BMC as soon as the monitor appears', async () => {
    const { h } = await setup((bmc) => {
      bmc.power = 'on';
    });
    const status = statusOf(h);
    expect(status).toMatchObject({ observedTime: T0, changedTime: T0, poweredOn: true, reachable: true });
    expect(status.credentials).toMatchObject({ name: 'server-01-bmc', namespace: NAMESPACE });
    expect(status.error).toBeUndefined();
  });

  it('reads every intervalSeconds; an unchanged reading writes nothing, a changed one is written', async () => {
    const { h, bmc } = await setup();
    const reads = bmc.calls.length;
    await tick(h, 59_000);
    expect(bmc.calls.length).toBe(reads);
    await tick(h, 1_000);
    expect(bmc.calls.length).toBeGreaterThan(reads);
    expect(statusOf(h)).toMatchObject({ observedTime: T0, changedTime: T0, poweredOn: false });
    expect(await h.metrics.registry.metrics()).toContain('ironhook_pool_monitor_refreshes_total{result="unchanged"} 1');
    bmc.power = 'on';
    await tick(h, 60_000);
    expect(statusOf(h)).toMatchObject({ observedTime: '2026-11-29T15:02:00Z', changedTime: '2026-11-29T15:02:00Z', poweredOn: true });
  });

  it('writes an unchanged reading once the last written one is ten intervals old (the heartbeat)', async () => {
    const { h } = await setup();
    for (let minute = 1; minute < 10; minute += 1) await tick(h, 60_000);
    expect(statusOf(h).observedTime).toBe(T0);
    await tick(h, 60_000);
    expect(statusOf(h)).toMatchObject({ observedTime: '2026-11-29T15:10:00Z', changedTime: T0 });
  });

  it('an unreachable BMC: reachable false, a Transient error, the last known power kept', async () => {
    const { h, bmc } = await setup((b) => {
      b.power = 'on';
    });
    bmc.reachable = false;
    await tick(h, 60_000);
    expect(statusOf(h)).toMatchObject({
      reachable: false,
      poweredOn: true,
      changedTime: '2026-11-29T15:01:00Z',
      error: { kind: 'Transient', reason: 'BMCUnreachable' },
    });
    bmc.reachable = true;
    await tick(h, 60_000);
    expect(statusOf(h).error).toBeUndefined();
    expect(statusOf(h).reachable).toBe(true);
  });

  it('wrong credentials: the BMC answered, so reachable stays true, with a Permanent error', async () => {
    const { h } = await setup((bmc) => {
      bmc.password = 'rotated-on-the-bmc';
    });
    expect(statusOf(h)).toMatchObject({ reachable: true, error: { kind: 'Permanent', reason: 'AuthenticationFailed' } });
  });

  it('a missing Secret: error CredentialsNotFound, no credentials reported, the BMC not contacted', async () => {
    const { h, bmc } = await setup((_bmc, harness) => {
      harness.kube.remove('secrets', NAMESPACE, 'server-01-bmc');
    });
    const status = statusOf(h);
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'CredentialsNotFound' });
    expect(status.credentials).toBeUndefined();
    expect(bmc.calls).toEqual([]);
  });

  it('a credentialsName naming another namespace: Permanent CredentialsInvalid, no Secret read, the BMC not contacted', async () => {
    const { h, bmc } = await setup((_bmc, harness) => {
      harness.kube.put('bmcmonitors', monitor('server-01', { credentialsName: 'kube-system/bmc-secret' }));
      harness.kube.failures.set('getSecret', new Error('the pool must not ask for this Secret'));
    });
    const status = statusOf(h);
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'CredentialsInvalid' });
    expect(status.error?.message).toContain('cross-namespace Secret references are not allowed');
    expect(h.kube.failures.has('getSecret')).toBe(true);
    expect(bmc.calls).toEqual([]);
  });

  it('refreshes at once when the claimed Secret changes and reports the new version', async () => {
    const { h } = await setup();
    const before = statusOf(h).credentials?.credentialsVersion;
    const rotated = credentialsSecret('server-01-bmc', 'admin', 'password');
    rotated.metadata.labels = { 'environment.metal3.io': 'baremetal' };
    h.kube.put('secrets', rotated);
    await h.settle();
    const after = (h.kube.get('secrets', NAMESPACE, 'server-01-bmc') as Secret).metadata.resourceVersion;
    expect(statusOf(h).credentials?.credentialsVersion).toBe(after);
    expect(after).not.toBe(before);
    expect(await h.metrics.registry.metrics()).toContain('metal3_credentials_updated_total 1');
  });

  it('refreshes right after a request for the host completes', async () => {
    const { h, bmc } = await setup();
    h.kube.put('hostoperations', operation('PowerOn', 1, { bmc: { address: ADDRESS, credentialsName: 'server-01-bmc' } }));
    h.clock.autoAdvance = true;
    await h.settle();
    expect(bmc.power).toBe('on');
    expect(statusOf(h).poweredOn).toBe(true);
    expect(statusOf(h).observedTime).not.toBe(T0);
  });

  it('a changed spec is read at once; a status-only update is not', async () => {
    const { h, bmc } = await setup();
    const reads = bmc.calls.length;
    const current = h.kube.get('bmcmonitors', NAMESPACE, 'server-01') as BMCMonitor;
    h.kube.put('bmcmonitors', { ...current, status: { ...current.status, poweredOn: true } });
    await h.settle();
    expect(bmc.calls.length).toBe(reads);
    h.kube.put('bmcmonitors', { ...current, spec: { ...current.spec, intervalSeconds: 30 } });
    await h.settle();
    expect(bmc.calls.length).toBe(reads + 1);
    await tick(h, 30_000);
    expect(bmc.calls.length).toBe(reads + 2);
  });

  it('Detach stops polling until the monitor is recreated', async () => {
    const { h, bmc } = await setup();
    h.kube.put('hostoperations', operation('Detach', 1));
    await h.settle();
    const reads = bmc.calls.length;
    await tick(h, 600_000);
    expect(bmc.calls.length).toBe(reads);
    h.kube.remove('bmcmonitors', NAMESPACE, 'server-01');
    h.kube.put('bmcmonitors', monitor('server-01'));
    await h.settle();
    expect(bmc.calls.length).toBe(reads + 1);
  });

  it('a monitor its host no longer owns (moved by clusterctl: the controller-uid label names the old host) is deleted and not read again', async () => {
    const { h, bmc } = await setup();
    const moved = monitor('server-01');
    moved.metadata.labels = { 'controller-uid': 'uid-on-the-source' };
    moved.metadata.ownerReferences = [
      { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'server-01', uid: 'uid-on-the-target', controller: true },
    ];
    h.kube.put('bmcmonitors', moved);
    const reads = bmc.calls.length;
    await tick(h, 600_000);
    expect(bmc.calls.length).toBe(reads);
    expect(h.kube.get('bmcmonitors', NAMESPACE, 'server-01')).toBeUndefined();
    expect(h.kube.deletedRequests).toEqual([{ resource: 'bmcmonitors', key: `${NAMESPACE}/server-01` }]);
  });

  it('a deleted monitor is not read again', async () => {
    const { h, bmc } = await setup();
    h.kube.remove('bmcmonitors', NAMESPACE, 'server-01');
    const reads = bmc.calls.length;
    await tick(h, 600_000);
    expect(bmc.calls.length).toBe(reads);
  });
});
