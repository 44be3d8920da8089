// The Redfish driver's UEFI secure boot against the in-process emulator: read, enable, disable
// (each verified by reading back, a value already set not written again), refused in Legacy boot
// mode before any PATCH, a BMC that applies the change only at the next boot, a BMC without a
// SecureBoot resource, and check() reporting that resource missing only when the host needs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import { ManualClock, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { Reason, createRedfishDriver } from '../../drivers/redfish/index.js';
import type { RedfishDriver } from '../../drivers/redfish/index.js';
import { rejectionOf } from '../support/rejection.js';

const PASSWORD = 'secureboot-test-password';
const clock = new ManualClock();
let emulator: RedfishEmulator;

const host = (id: string, extra: Partial<SystemConfig> = {}): SystemConfig => ({ id, username: 'admin', password: PASSWORD, powerDelayMs: 0, ...extra });

beforeAll(async () => {
  emulator = await startRedfishEmulator({
    http: true,
    scheduler: clock,
    systems: [
      host('enable'),
      host('disable', { secureBootEnabled: true }),
      host('legacy'),
      host('staged', { secureBootAppliesAtBoot: true }),
      host('absent', { secureBoot: false }),
      host('check-sb'),
      host('check-none', { secureBoot: false }),
      host('weak', { etag: 'weak', requireIfMatch: true }),
    ],
  });
});

afterAll(async () => {
  await emulator.stop();
});

function driverFor(id: string, scheme = 'redfish'): RedfishDriver {
  return createRedfishDriver({ ...emulatedConnection(emulator, id, { scheme, username: 'admin', password: PASSWORD }), clock });
}

const secureBootActions = (id: string): string[] =>
  emulator
    .system(id)
    .actions.filter((entry) => entry.action === 'SetSecureBoot')
    .map((entry) => entry.detail ?? '');

describe('secure boot', () => {
  it.each([
    { name: 'enable from disabled', id: 'enable', wanted: true, before: false, actions: ['Enabled'] },
    { name: 'disable from enabled', id: 'disable', wanted: false, before: true, actions: ['Disabled'] },
    { name: 'If-Match required, weak ETag: the strong form is sent', id: 'weak', wanted: true, before: false, actions: ['Enabled'] },
  ])('$name: read, PATCH, read back; the same value again writes nothing', async ({ id, wanted, before, actions }) => {
    const driver = driverFor(id);
    expect(await driver.getSecureBoot()).toBe(before);
    expect(await driver.setSecureBoot(wanted)).toBe(wanted);
    expect(await driver.getSecureBoot()).toBe(wanted);
    expect(await driver.setSecureBoot(wanted)).toBe(wanted);
    expect(secureBootActions(id)).toEqual(actions);
    await driver.close();
  });

  it('enabling needs UEFI boot mode: a Legacy System is refused before any PATCH', async () => {
    const driver = driverFor('legacy');
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'legacy' });
    const error = await rejectionOf(driver.setSecureBoot(true), BMCError);
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.Unsupported]);
    expect(error.message).toContain('requires UEFI boot mode');
    expect(secureBootActions('legacy')).toEqual([]);
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    expect(await driver.setSecureBoot(true)).toBe(true);
    await driver.close();
  });

  it('a BMC that applies the change at boot: the read-back shows the old value until a power-on', async () => {
    const driver = driverFor('staged');
    expect(await driver.setSecureBoot(true)).toBe(false);
    await driver.setPower('on');
    expect(await driver.getSecureBoot()).toBe(true);
    expect(secureBootActions('staged')).toEqual(['Enabled at next boot']);
    await driver.close();
  });

  it('a BMC without a SecureBoot resource: undefined on read, Unsupported on change', async () => {
    const driver = driverFor('absent');
    expect(await driver.getSecureBoot()).toBeUndefined();
    const error = await rejectionOf(driver.setSecureBoot(true), BMCError);
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.Unsupported]);
    expect(error.message).toContain('has no SecureBoot resource');
    await driver.close();
  });
});

describe('check() and secure boot', () => {
  it.each([
    { name: 'needed, present', id: 'check-sb', needs: { secureBoot: true }, missing: [] },
    { name: 'needed, absent', id: 'check-none', needs: { secureBoot: true }, missing: ['SecureBoot (spec.bootMode is UEFISecureBoot)'] },
    { name: 'not needed, absent', id: 'check-none', needs: { secureBoot: false }, missing: [] },
    { name: 'no needs given, absent', id: 'check-none', needs: undefined, missing: [] },
  ])('$name', async ({ id, needs, missing }) => {
    const driver = driverFor(id);
    const check = await driver.check(needs);
    expect([check.reachable, check.authenticated, check.missing]).toEqual([true, true, missing]);
    await driver.close();
  });
});
