// How the pool runs a request, beyond what each action does (pool-executors.test.ts):
// - a power command that a cancelled request left in flight: the next request's power step waits
//   for it to land (bounded by the settle timeout) before it reads the state and decides. Without
//   that, a PowerOn cancelled by a host's deletion came on behind the PowerOff that followed it;
// - how many status writes a request costs: a step's Running entry only once it lasts a second.
import { describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import type { HostOperation, HostOperationSpec } from '../../domain/operations.js';
import { createHarness, credentialsSecret, NAMESPACE, operation } from '../support/fake-driver.js';
import type { FakeBMC, Harness } from '../support/fake-driver.js';

const REDFISH = 'redfish://127.0.0.1:8000/redfish/v1/Systems/1';
const BMC = { bmc: { address: REDFISH, credentialsName: 'server-01-bmc' } };

async function ticks(count = 20): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** A PowerOn whose command the BMC took, cancelled (its HostOperation deleted) before the host came on. */
async function cancelledPowerOn(configure: (bmc: FakeBMC) => void): Promise<{ h: Harness; bmc: FakeBMC }> {
  const h = createHarness();
  const bmc = h.fleet.add(REDFISH);
  h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', 'password'));
  configure(bmc);
  await h.pool.start();
  h.clock.autoAdvance = false;
  h.kube.put('hostoperations', operation('PowerOn', 1, BMC));
  await ticks();
  expect(bmc.commands).toEqual(['power:on']);
  h.kube.remove('hostoperations', NAMESPACE, 'server-01-poweron-1');
  await ticks();
  expect(h.pool.operations.snapshot().running).toEqual([]);
  h.clock.autoAdvance = true;
  return { h, bmc };
}

async function run(h: Harness, action: HostOperationSpec['action'], sequence: number): Promise<NonNullable<HostOperation['status']>> {
  const op = operation(action, sequence, BMC);
  h.kube.put('hostoperations', op);
  await h.settle();
  return (h.kube.get('hostoperations', NAMESPACE, op.metadata.name ?? '') as HostOperation).status ?? {};
}

describe('a power command a cancelled request left in flight', () => {
  const rows = [
    {
      name: 'lands: the PowerOff that follows waits for the host to come on, then powers it off',
      configure: (bmc: FakeBMC) => {
        bmc.settlePolls = 2;
      },
      commands: ['power:on', 'power:off'],
      message: 'powered off (hard)',
      power: 'off',
      // Two polls of the in-flight command (1 s, then 1.5 s), then the PowerOff's own.
      waitedMs: [2_500, 60_000],
    },
    {
      name: 'never lands: the PowerOff waits out the settle timeout, then finds the host off and sends nothing',
      configure: (bmc: FakeBMC) => {
        bmc.stuck = true;
      },
      commands: ['power:on'],
      message: 'already off; no command sent',
      power: 'off',
      // The whole settle timeout the PowerOn had left, and not a moment more.
      waitedMs: [60_000, 60_000],
    },
  ];

  it.each(rows)('$name', async ({ configure, commands, message, power, waitedMs }) => {
    const { h, bmc } = await cancelledPowerOn(configure);
    const started = h.clock.now();
    const status = await run(h, 'PowerOff', 2);
    expect(status.phase).toBe(Phase.Succeeded);
    expect(status.steps?.at(-1)?.message).toBe(message);
    expect(bmc.commands).toEqual(commands);
    expect(bmc.readPower()).toBe(power);
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(waitedMs[0] ?? 0);
    expect(h.clock.now() - started).toBeLessThanOrEqual(waitedMs[1] ?? 0);
  });

  it('a request after one that finished does not wait', async () => {
    const h = createHarness();
    const bmc = h.fleet.add(REDFISH);
    h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', 'password'));
    await h.pool.start();
    await run(h, 'PowerOn', 1);
    const started = h.clock.now();
    const status = await run(h, 'PowerOn', 2);
    expect(status.steps?.at(-1)?.message).toBe('already on; no command sent');
    expect(bmc.commands).toEqual(['power:on']);
    expect(h.clock.now()).toBe(started);
  });
});

describe('request status writes', () => {
  const rows = [
    // begin, the step's outcome, the final status: a step over within a second writes no Running entry.
    { name: 'a step over at once writes only its outcome', before: 'on' as const, settlePolls: 0, writes: 3, running: 0 },
    // The power poll's first look is after 1 s: the Running entry is written, then the outcome.
    { name: 'a step that lasts a second writes its Running entry too', before: 'off' as const, settlePolls: 3, writes: 4, running: 1 },
  ];

  it.each(rows)('$name', async ({ before, settlePolls, writes, running }) => {
    const h = createHarness();
    const bmc = h.fleet.add(REDFISH);
    h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', 'password'));
    bmc.power = before;
    bmc.settlePolls = settlePolls;
    await h.pool.start();
    const status = await run(h, 'PowerOn', 1);
    expect(status.phase).toBe(Phase.Succeeded);
    const patches = h.kube.statusPatches.filter((patch) => patch.resource === 'hostoperations').map((patch) => patch.status);
    expect(patches).toHaveLength(writes);
    const runningEntries = patches.filter((patch) => (patch.steps as { state: string }[] | undefined)?.some((step) => step.state === Phase.Running));
    expect(runningEntries).toHaveLength(running);
    expect(status.steps?.map((step) => step.state)).toEqual([Phase.Succeeded]);
  });
});
