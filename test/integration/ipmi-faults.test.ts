// Faults against a real ipmi_sim on 127.0.0.1: wrong credentials then fixed, a failing chassis,
// the simulator stopped (unreachable within the timeout) and restarted, real spacing, and a
// canary password that must not appear in anything captured, including ipmitool's real argv.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPMISimulator } from '../../emulators/ipmi/simulator.js';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { BMCError } from '../../drivers/bmc/types.js';
import { createIPMIDriver } from '../../drivers/ipmi/driver.js';
import type { IPMIDriver } from '../../drivers/ipmi/driver.js';
import { GateRegistry } from '../../drivers/ipmi/gate.js';
import type { IPMICommandEvent, IPMISettings } from '../../drivers/ipmi/settings.js';

const CANARY = 'Cnry-7f3a91c2-Pw';
const USERNAME = 'opsadmin';

let sim: IPMISimulator;
const observed: IPMICommandEvent[] = [];
const errors: unknown[] = [];
const results: unknown[] = [];

function driverFor(options: { password?: string; username?: string; timeoutMs?: number; settings?: Partial<IPMISettings> } = {}): IPMIDriver {
  const parsed = parseBMCAddress(sim.address);
  if (parsed.kind !== 'parsed') {
    throw new Error('bad simulator address');
  }
  const credentials = { username: options.username ?? USERNAME, password: options.password ?? CANARY };
  const connection = { address: parsed.bmc, credentials, disableCertificateVerification: false, timeoutMs: options.timeoutMs ?? 30_000 };
  const settings: Partial<IPMISettings> = {
    minCommandIntervalMs: 0,
    retries: 1,
    retryIntervalSeconds: 1,
    gates: new GateRegistry(),
    observer: (event) => observed.push(event),
    ...options.settings,
  };
  return createIPMIDriver(connection, settings);
}

/** Runs `operation`, keeps what it returned or threw for the canary check, returns the error. */
async function capture(operation: Promise<unknown>): Promise<BMCError | undefined> {
  try {
    results.push(await operation);
    return undefined;
  } catch (error) {
    errors.push(error);
    if (error instanceof BMCError) {
      return error;
    }
    throw error;
  }
}

beforeAll(async () => {
  sim = await IPMISimulator.start({ credentials: { username: USERNAME, password: CANARY } });
});

afterAll(async () => {
  await sim.stop();
});

describe('credentials', () => {
  it('wrong password: a permanent CredentialsInvalid; check says reachable but not authenticated; the right one works', async () => {
    const wrong = driverFor({ password: `${CANARY}-x`.slice(0, 20) });
    expect(await capture(wrong.getPower())).toMatchObject({ kind: 'Permanent', reason: 'CredentialsInvalid' });
    const check = await wrong.check();
    results.push(check);
    expect(check).toMatchObject({ reachable: true, authenticated: false });
    expect(await capture(driverFor().getPower())).toBeUndefined();
  });

  it('unknown user: CredentialsInvalid', async () => {
    expect(await capture(driverFor({ username: 'nobody' }).getPower())).toMatchObject({ kind: 'Permanent', reason: 'CredentialsInvalid' });
  });

  it('password over the IPMI limit of 20 bytes: CredentialsInvalid', async () => {
    expect(await capture(driverFor({ password: `${CANARY}${CANARY}` }).getPower())).toMatchObject({ kind: 'Permanent', reason: 'CredentialsInvalid' });
  });
});

describe('a failing chassis', () => {
  it('ipmitool reports "Unspecified error": transient, and fine again once the chassis recovers', async () => {
    const driver = driverFor();
    await sim.setFailing(true);
    try {
      expect(await capture(driver.getPower())).toMatchObject({ kind: 'Transient', reason: 'BMCCommandFailed' });
      expect(await capture(driver.setPower('on'))).toMatchObject({ kind: 'Transient', reason: 'BMCCommandFailed' });
    } finally {
      await sim.setFailing(false);
    }
    expect(await capture(driver.getPower())).toBeUndefined();
  });
});

describe('simulator stopped and restarted', () => {
  it('stopped: BMCUnreachable from ipmitool itself, well within the derived timeout; restarted: works, state kept', async () => {
    const driver = driverFor();
    await driver.setPower('on');
    await sim.kill();
    expect(sim.isRunning).toBe(false);

    const started = Date.now();
    const error = await capture(driver.getPower());
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ kind: 'Transient', reason: 'BMCUnreachable' });
    expect(elapsed).toBeGreaterThan(1500);
    expect(elapsed).toBeLessThan(5000);

    const check = await driver.check();
    results.push(check);
    expect(check).toMatchObject({ reachable: false, authenticated: false });

    await sim.restart();
    expect(await driver.getPower()).toBe('on');
    expect((await sim.state()).power).toBe('on');
  });

  it('a per-call timeout shorter than ipmitool needs kills it: Timeout', async () => {
    await sim.kill();
    try {
      const started = Date.now();
      const error = await capture(driverFor({ timeoutMs: 800 }).getPower());
      expect(error).toMatchObject({ kind: 'Transient', reason: 'Timeout' });
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await sim.restart();
    }
  });
});

describe('spacing on the real clock', () => {
  it('two commands to one BMC are at least minCommandIntervalMs apart', async () => {
    const driver = driverFor({ settings: { minCommandIntervalMs: 400 } });
    await driver.getPower();
    const started = Date.now();
    await driver.getPower();
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });
});

describe('the canary password', () => {
  it('never reaches ipmitool argv (recorded by a wrapper around the real binary)', async () => {
    const wrapper = join(sim.files.dir, 'ipmitool-wrapper.sh');
    const argvLog = join(sim.files.dir, 'argv.log');
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec ipmitool "$@"\n`);
    await chmod(wrapper, 0o700);
    for (const passwordMode of ['env', 'file'] as const) {
      const driver = driverFor({ settings: { ipmitoolPath: wrapper, passwordMode } });
      expect(await capture(driver.getPower())).toBeUndefined();
      await capture(driver.setBootDevice({ device: 'pxe', persistent: true, mode: 'UEFI' }));
    }
    const argv = await readFile(argvLog, 'utf8');
    expect(argv.split('\n').filter(Boolean)).toHaveLength(6);
    expect(argv).toContain(' -E ');
    expect(argv).toContain(' -f ');
    expect(argv).not.toContain(CANARY);
  });

  it('appears in no error, result, observer event, simulator log or chassis event log', async () => {
    await capture(driverFor().inventory());
    await capture(driverFor({ password: 'wrong-password' }).inventory());
    const captured = [
      JSON.stringify(
        errors.map((error) =>
          error instanceof Error ? { message: error.message, stack: error.stack, text: String(error), cause: String(error.cause) } : error,
        ),
      ),
      JSON.stringify(results),
      JSON.stringify(observed),
      await readFile(sim.files.log, 'utf8'),
      await readFile(join(sim.files.stateDir, 'events.log'), 'utf8').catch(() => ''),
    ].join('\n');
    expect(errors.length).toBeGreaterThanOrEqual(6);
    expect(observed.length).toBeGreaterThan(10);
    expect(captured).not.toContain(CANARY);
  });
});
