// Each emulator fault against the driver, and the error class the driver reports for it:
// unreachable, slow (client timeout), 5xx, busy, dropped requests, power that never settles,
// and the wrong-password lockout. Time is virtual except for "slow", which exercises the real
// client timeout (a few hundred milliseconds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import { ManualClock, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { FaultConfig, RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { Reason, createRedfishDriver, waitForPower } from '../../drivers/redfish/index.js';
import type { AuthMode, RedfishDriver } from '../../drivers/redfish/index.js';
import { rejectionOf } from '../support/rejection.js';

const PASSWORD = 'faults-password';
const clock = new ManualClock();
let emulator: RedfishEmulator;

const host = (id: string, faults?: FaultConfig): SystemConfig => ({ id, username: 'admin', password: PASSWORD, ...(faults === undefined ? {} : { faults }) });

beforeAll(async () => {
  emulator = await startRedfishEmulator({
    http: true,
    scheduler: clock,
    systems: [host('down'), host('slow'), host('broken'), host('busy'), host('drop'), host('stuck'), host('lockout'), host('lockout-timed'), host('healthy')],
  });
});

afterAll(async () => {
  await emulator.stop();
});

function driverFor(id: string, options: { password?: string; timeoutMs?: number; authMode?: AuthMode } = {}): RedfishDriver {
  const connection = emulatedConnection(emulator, id, { username: 'admin', password: options.password ?? PASSWORD, timeoutMs: options.timeoutMs ?? 2_000 });
  return createRedfishDriver({ ...connection, clock, ...(options.authMode === undefined ? {} : { authMode: options.authMode }) });
}

const failure = (promise: Promise<unknown>): Promise<BMCError> => rejectionOf(promise, BMCError);

describe('request faults → error classes', () => {
  const rows = [
    { name: 'unreachable (sockets closed)', id: 'down', faults: { unreachable: true }, timeoutMs: 2_000, kind: 'Transient', reason: Reason.Unreachable },
    { name: 'slow beyond the client timeout', id: 'slow', faults: { slowMs: 1_500 }, timeoutMs: 300, kind: 'Transient', reason: Reason.Timeout },
    { name: 'HTTP 500 on every request', id: 'broken', faults: { serverError: {} }, timeoutMs: 2_000, kind: 'Transient', reason: Reason.ServerError },
    {
      name: 'HTTP 503 busy with Retry-After',
      id: 'busy',
      faults: { serverError: { status: 503, retryAfterSeconds: 2 } },
      timeoutMs: 2_000,
      kind: 'Transient',
      reason: Reason.Busy,
    },
    {
      name: 'more dropped requests than GET retries',
      id: 'drop',
      faults: { dropRequests: 3 },
      timeoutMs: 2_000,
      kind: 'Transient',
      reason: Reason.Unreachable,
    },
  ] as const;

  it.each(rows)('$name', async (row) => {
    const driver = driverFor(row.id, { timeoutMs: row.timeoutMs });
    await driver.getPower();
    emulator.system(row.id).setFaults(row.faults);
    const error = await failure(driver.getPower());
    expect([error.kind, error.reason]).toEqual([row.kind, row.reason]);
    emulator.system(row.id).setFaults({});
    expect(await driver.getPower()).toBe('off');
    await driver.close();
  });

  it('dropped requests within the GET retry budget are absorbed', async () => {
    const driver = driverFor('drop');
    await driver.getPower();
    emulator.system('drop').setFaults({ dropRequests: 2 });
    emulator.clearRequests();
    expect(await driver.getPower()).toBe('off');
    expect(emulator.requests().map((request) => request.status)).toEqual(['closed', 'closed', 200]);
    await driver.close();
  });

  it('a BMC down then back: unreachable in check(), usable again afterwards', async () => {
    emulator.setFaults({ unreachable: true });
    const driver = driverFor('healthy');
    const down = await driver.check();
    expect([down.reachable, down.authenticated, down.problem?.reason]).toEqual([false, false, Reason.Unreachable]);
    emulator.setFaults({});
    const up = await driver.check();
    expect([up.reachable, up.authenticated, up.problem]).toEqual([true, true, undefined]);
    await driver.close();
  });

  it('a stopped BMC (connection refused) is unreachable', async () => {
    const gone = await startRedfishEmulator({ http: true, systems: [host('gone')] });
    const connection = emulatedConnection(gone, 'gone', { username: 'admin', password: PASSWORD });
    await gone.stop();
    const driver = createRedfishDriver({ ...connection, clock });
    const error = await failure(driver.getPower());
    expect([error.kind, error.reason]).toEqual(['Transient', Reason.Unreachable]);
    expect(error.message).toContain('ECONNREFUSED');
    await driver.close();
  });
});

describe('power that never settles', () => {
  it('the reset is accepted, waiting ends in PowerStateTimeout', async () => {
    emulator.system('stuck').setFaults({ powerNeverSettles: true });
    const driver = driverFor('stuck');
    await driver.setPower('on');
    const error = await failure(waitForPower(driver, 'on', { clock, timeoutMs: 30_000, random: () => 0.5 }));
    expect([error.kind, error.reason]).toEqual(['Transient', Reason.PowerStateTimeout]);
    expect(emulator.system('stuck').actions.map((action) => action.detail)).toEqual(['On']);
    emulator.system('stuck').setFaults({});
    await driver.setPower('on');
    await waitForPower(driver, 'on', { clock, random: () => 0.5 });
    await driver.close();
  });
});

describe('wrong-password lockout', () => {
  it.each([
    { name: 'basic auth', authMode: 'basic' },
    { name: 'session auth', authMode: 'session' },
  ] as const)('locks after the configured failures, even for the right password, until unlocked ($name)', async ({ authMode }) => {
    const system = emulator.system('lockout');
    system.unlock();
    system.setFaults({ lockoutAfter: 2 });
    for (const attempt of [1, 2]) {
      const wrong = driverFor('lockout', { password: `wrong-${attempt}`, authMode });
      expect((await failure(wrong.getPower())).reason).toBe(Reason.CredentialsInvalid);
      await wrong.close();
    }
    expect([system.failedLogins, system.locked]).toEqual([2, true]);
    const right = driverFor('lockout', { authMode });
    const locked = await failure(right.getPower());
    expect([locked.kind, locked.reason]).toEqual(['Permanent', Reason.CredentialsInvalid]);
    system.unlock();
    expect(await right.getPower()).toBe('off');
    await right.close();
  });

  it('a timed lockout ends on the emulator clock', async () => {
    const system = emulator.system('lockout-timed');
    system.setFaults({ lockoutAfter: 1, lockoutMs: 60_000 });
    await failure(driverFor('lockout-timed', { password: 'nope', authMode: 'basic' }).getPower());
    expect(system.locked).toBe(true);
    clock.advance(60_000);
    expect(system.locked).toBe(false);
    const driver = driverFor('lockout-timed', { authMode: 'basic' });
    expect(await driver.getPower()).toBe('off');
    await driver.close();
  });

  it('a wrong password in auto mode costs one attempt, not two', async () => {
    const system = emulator.system('lockout');
    system.unlock();
    system.setFaults({ lockoutAfter: 5 });
    const driver = driverFor('lockout', { password: 'wrong' });
    await failure(driver.getPower());
    expect(system.failedLogins).toBe(1);
    await driver.close();
    system.unlock();
  });
});

describe('canary password through the driver', () => {
  const CANARY = 'canary-Driver-Secret-42';
  const BASIC = Buffer.from(`admin:${CANARY}`).toString('base64');

  it('appears in no error, check() result or log line, whatever goes wrong', async () => {
    const lines: string[] = [];
    const logger = {
      debug: (fields: Record<string, unknown>, message: string) => lines.push(`${message} ${JSON.stringify(fields)}`),
      warn: (fields: Record<string, unknown>, message: string) => lines.push(`${message} ${JSON.stringify(fields)}`),
    };
    const canaryHost = await startRedfishEmulator({
      http: true,
      scheduler: clock,
      systems: [{ id: 'c', username: 'admin', password: CANARY, continuousBoot: false }],
    });
    const drive = (password: string, authMode: AuthMode): RedfishDriver =>
      createRedfishDriver({ ...emulatedConnection(canaryHost, 'c', { username: 'admin', password, timeoutMs: 300 }), clock, logger, authMode });
    const outcomes: unknown[] = [];
    const attempt = async (work: () => Promise<unknown>): Promise<void> => {
      try {
        outcomes.push(await work());
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? `${error.cause.message} ${error.cause.stack ?? ''}` : '';
        outcomes.push(error instanceof Error ? { message: error.message, stack: error.stack, own: JSON.stringify(error), cause } : error);
      }
    };
    for (const authMode of ['basic', 'session', 'auto'] as const) {
      const wrong = drive(`${CANARY}-wrong`, authMode);
      await attempt(async () => wrong.check());
      await attempt(async () => wrong.getPower());
      await wrong.close();
      const right = drive(CANARY, authMode);
      await attempt(async () => right.check());
      await attempt(async () => right.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' }));
      canaryHost.expireSessions();
      await attempt(async () => right.inventory());
      for (const faults of [{ serverError: { status: 500 } }, { dropRequests: 5 }, { slowMs: 1_000 }, { unreachable: true }]) {
        canaryHost.system('c').setFaults(faults);
        await attempt(async () => right.setPower('on'));
        await attempt(async () => right.check());
      }
      canaryHost.system('c').setFaults({});
      await right.close();
    }
    await canaryHost.stop();
    const text = [...lines, ...outcomes.map((outcome) => JSON.stringify(outcome))].join('\n');
    expect(lines.length).toBeGreaterThan(10);
    expect(text).toContain('CredentialsInvalid');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(BASIC);
  });
});
