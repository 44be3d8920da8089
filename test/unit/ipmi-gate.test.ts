// Per-BMC serialisation and Ironic's minimum command spacing (drivers/ipmi/gate.ts), on a
// virtual clock: the tests assert the waits the driver asked for instead of sleeping.
import { describe, expect, it } from 'vitest';
import { createIPMIDriver } from '../../drivers/ipmi/driver.js';
import { FakeClock, FakeIpmitool, connection } from '../support/fake-ipmi.js';
import { CommandGate, GateRegistry } from '../../drivers/ipmi/gate.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Lets queued promise callbacks run (one macrotask turn; not a timed wait). */
async function flush(): Promise<void> {
  await new Promise((resolve) => {
    setImmediate(resolve);
  });
}

describe('CommandGate', () => {
  const rows = [
    { name: 'first command never waits', interval: 5000, idle: 0, commands: 1, sleeps: [] },
    { name: 'back-to-back commands wait the full interval', interval: 5000, idle: 0, commands: 3, sleeps: [5000, 5000] },
    { name: 'an idle gap counts towards the interval', interval: 5000, idle: 2000, commands: 2, sleeps: [3000] },
    { name: 'an idle gap longer than the interval: no wait', interval: 5000, idle: 9000, commands: 2, sleeps: [] },
    { name: 'interval 0 (tests): never waits', interval: 0, idle: 0, commands: 3, sleeps: [] },
  ];
  it.each(rows)('$name', async ({ interval, idle, commands, sleeps }) => {
    const clock = new FakeClock();
    const gate = new CommandGate();
    for (let index = 0; index < commands; index += 1) {
      await gate.run(clock, interval, () => {
        clock.time += 50;
        return Promise.resolve();
      });
      clock.time += idle;
    }
    expect(clock.sleeps).toEqual(sleeps);
  });

  it('measures the interval from the end of the previous command, also when it failed', async () => {
    const clock = new FakeClock();
    const gate = new CommandGate();
    await expect(
      gate.run(clock, 5000, () => {
        clock.time += 400;
        return Promise.reject(new Error('BMC said no'));
      }),
    ).rejects.toThrow('BMC said no');
    const endOfFirst = clock.now();
    let startOfSecond = 0;
    await gate.run(clock, 5000, () => {
      startOfSecond = clock.now();
      return Promise.resolve();
    });
    expect(startOfSecond - endOfFirst).toBe(5000);
  });

  it('runs one task at a time, in arrival order', async () => {
    const clock = new FakeClock();
    const gate = new CommandGate();
    const order: string[] = [];
    const first = deferred();
    const a = gate.run(clock, 0, async () => {
      order.push('a start');
      await first.promise;
      order.push('a end');
    });
    const b = gate.run(clock, 0, () => {
      order.push('b');
      return Promise.resolve();
    });
    await flush();
    expect(order).toEqual(['a start']);
    first.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(['a start', 'a end', 'b']);
  });

  it('the registry hands out one gate per key', () => {
    const registry = new GateRegistry();
    expect(registry.gate('127.0.0.1:623')).toBe(registry.gate('127.0.0.1:623'));
    expect(registry.gate('127.0.0.1:623')).not.toBe(registry.gate('127.0.0.1:624'));
  });
});

describe('the driver through the gate', () => {
  function rig(interval: number) {
    const clock = new FakeClock();
    const ipmitool = new FakeIpmitool(clock, 60);
    const gates = new GateRegistry();
    const settings = { clock, exec: ipmitool.exec, gates, minCommandIntervalMs: interval };
    return { clock, ipmitool, settings };
  }

  it('concurrent calls to one BMC run one at a time, spaced by the interval (Ironic default 5 s)', async () => {
    const { clock, ipmitool, settings } = rig(5000);
    const driver = createIPMIDriver(connection(), settings);
    await Promise.all([driver.getPower(), driver.getPower(), driver.getPower()]);
    expect(ipmitool.maxInFlight).toBe(1);
    const [a, b, c] = ipmitool.calls;
    expect(b!.startedAt - a!.endedAt).toBe(5000);
    expect(c!.startedAt - b!.endedAt).toBe(5000);
    expect(clock.sleeps).toEqual([5000, 5000]);
  });

  it('two driver instances for the same BMC share its gate', async () => {
    const { ipmitool, settings } = rig(5000);
    const first = createIPMIDriver(connection('ipmi://127.0.0.1:6230'), settings);
    const second = createIPMIDriver(connection('ipmi://127.0.0.1:6230'), settings);
    await Promise.all([first.getPower(), second.getPower()]);
    expect(ipmitool.maxInFlight).toBe(1);
    expect(ipmitool.calls[1]!.startedAt - ipmitool.calls[0]!.endedAt).toBe(5000);
  });

  it('different BMCs do not wait for each other', async () => {
    const { clock, ipmitool, settings } = rig(5000);
    const block = deferred();
    ipmitool.responder = async (call) => {
      if (call.args.includes('6230')) {
        await block.promise;
      }
      return undefined;
    };
    const slow = createIPMIDriver(connection('ipmi://127.0.0.1:6230'), settings).getPower();
    await createIPMIDriver(connection('ipmi://127.0.0.1:6231'), settings).getPower();
    expect(ipmitool.maxInFlight).toBe(2);
    block.resolve();
    await slow;
    expect(clock.sleeps).toEqual([]);
  });

  it('a reboot spaces every command it sends', async () => {
    const { clock, ipmitool, settings } = rig(5000);
    ipmitool.power = 'on';
    await createIPMIDriver(connection(), settings).setPower('reboot');
    expect(ipmitool.commands).toEqual(['chassis power status', 'chassis power off', 'chassis power status', 'chassis power on']);
    expect(clock.sleeps).toEqual([5000, 5000, 5000]);
  });

  it('cipher fallback attempts are spaced too', async () => {
    const { clock, ipmitool, settings } = rig(1000);
    ipmitool.responder = (call) => (call.suite === 3 ? { exitCode: 1, stderr: 'Unsupported cipher suite ID : 3\n' } : undefined);
    await createIPMIDriver(connection(), settings).getPower();
    expect(clock.sleeps).toEqual([1000]);
  });
});
