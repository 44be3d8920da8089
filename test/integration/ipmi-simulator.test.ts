// The IPMI driver against a real OpenIPMI ipmi_sim on 127.0.0.1 (Debian openipmi + ipmitool;
// bash scripts/setup-system-deps.sh). Every change is asserted in the simulator's own state:
// the files and event log its chassis-control script writes. Started and stopped by PID.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IPMISimulator } from '../../emulators/ipmi/simulator.js';
import type { BootEvent, SimulatedBootDevice } from '../../emulators/ipmi/state.js';
import type { BootOptions } from '../../drivers/bmc/types.js';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { createIPMIDriver } from '../../drivers/ipmi/driver.js';
import type { IPMIDriver } from '../../drivers/ipmi/driver.js';
import { GateRegistry } from '../../drivers/ipmi/gate.js';
import type { IPMISettings } from '../../drivers/ipmi/settings.js';

const CREDENTIALS = { username: 'admin', password: 'Sim-Pw-4417' };
/** Tests drop Ironic's 5 s spacing and use -R 1 -N 1 (a dead BMC is noticed in about 2 s). */
const FAST: Partial<IPMISettings> = { minCommandIntervalMs: 0, retries: 1, retryIntervalSeconds: 1, powerPollIntervalMs: 100 };

let sim: IPMISimulator;

function driverFor(address: string, settings: Partial<IPMISettings> = {}, password = CREDENTIALS.password): IPMIDriver {
  const parsed = parseBMCAddress(address);
  if (parsed.kind !== 'parsed') {
    throw new Error(`bad test address ${address}`);
  }
  const connection = { address: parsed.bmc, credentials: { ...CREDENTIALS, password }, disableCertificateVerification: false, timeoutMs: 30_000 };
  return createIPMIDriver(connection, { ...FAST, gates: new GateRegistry(), ...settings });
}

async function itemsSince(count: number): Promise<string[]> {
  return (await sim.events()).slice(count).map((event) => `${event.item} ${event.value}`);
}

beforeAll(async () => {
  sim = await IPMISimulator.start({ credentials: CREDENTIALS, extraUsers: [{ username: 'viewer', password: 'Viewer-Pw-1', privilege: 'user' }] });
});

afterAll(async () => {
  await sim.stop();
});

describe('ipmi_sim: power', () => {
  let driver: IPMIDriver;
  beforeEach(async () => {
    driver = driverFor(sim.address);
    await driver.setPower('off');
    await sim.waitForState((state) => state.power === 'off');
  });

  it('status reads the chassis script state', async () => {
    expect(await driver.getPower()).toBe('off');
  });

  it('on and off change the simulated host', async () => {
    await driver.setPower('on');
    expect((await sim.state()).power).toBe('on');
    expect(await driver.getPower()).toBe('on');
    await driver.setPower('off');
    expect((await sim.state()).power).toBe('off');
  });

  it('soft off reaches the script as "set shutdown"', async () => {
    await driver.setPower('on');
    const before = (await sim.events()).length;
    await driver.setPower('soft-off');
    expect(await itemsSince(before)).toEqual(['shutdown 1']);
    expect((await sim.state()).power).toBe('off');
  });

  it('reboot from on: off, then on, as two power events', async () => {
    await driver.setPower('on');
    const before = (await sim.events()).length;
    await driver.setPower('reboot');
    expect(await itemsSince(before)).toEqual(['power 0', 'power 1']);
    expect((await sim.state()).power).toBe('on');
  });

  it('soft reboot from on: shutdown, then on', async () => {
    await driver.setPower('on');
    const before = (await sim.events()).length;
    await driver.setPower('soft-reboot');
    expect(await itemsSince(before)).toEqual(['shutdown 1', 'power 1']);
  });

  it('power cycle: ipmi_sim powers off, then on again about a second later', async () => {
    await driver.setPower('on');
    const before = (await sim.events()).length;
    await driver.control('cycle');
    await expect.poll(async () => (await sim.events()).length, { timeout: 5000 }).toBe(before + 2);
    const events = (await sim.events()).slice(before);
    expect(events.map((event) => `${event.item} ${event.value}`)).toEqual(['power 0', 'power 1']);
    expect(events[1]!.at - events[0]!.at).toBeGreaterThanOrEqual(800);
    expect((await sim.state()).power).toBe('on');
  });

  it('power reset reaches the script and leaves the host on', async () => {
    await driver.setPower('on');
    const before = (await sim.events()).length;
    await driver.control('reset');
    expect(await itemsSince(before)).toEqual(['reset 1']);
    expect(await driver.getPower()).toBe('on');
  });
});

describe('ipmi_sim: boot device', () => {
  // prettier-ignore
  const rows: { name: string; options: BootOptions; expected: SimulatedBootDevice; settings?: Partial<IPMISettings> }[] = [
    { name: 'legacy pxe once', options: { device: 'pxe', persistent: false, mode: 'legacy' }, expected: 'pxe' },
    { name: 'legacy disk persistent', options: { device: 'disk', persistent: true, mode: 'legacy' }, expected: 'disk' },
    { name: 'legacy cdrom persistent', options: { device: 'cdrom', persistent: true, mode: 'legacy' }, expected: 'cdrom' },
    { name: 'legacy bios once', options: { device: 'bios', persistent: false, mode: 'legacy' }, expected: 'bios' },
    { name: 'UEFI pxe persistent (raw 0xe0 0x04)', options: { device: 'pxe', persistent: true, mode: 'UEFI' }, expected: 'pxe' },
    { name: 'UEFI disk once (raw 0xa0 0x08)', options: { device: 'disk', persistent: false, mode: 'UEFI' }, expected: 'disk' },
    { name: 'UEFI cdrom persistent (raw 0xe0 0x14)', options: { device: 'cdrom', persistent: true, mode: 'UEFI' }, expected: 'cdrom' },
    { name: 'UEFI pxe persistent (efiboot)', options: { device: 'pxe', persistent: true, mode: 'UEFI' }, expected: 'pxe', settings: { uefiBootMethod: 'efiboot' } },
    { name: 'UEFI disk persistent (efiboot)', options: { device: 'disk', persistent: true, mode: 'UEFI' }, expected: 'disk', settings: { uefiBootMethod: 'efiboot' } },
    { name: 'UEFI cdrom once (efiboot)', options: { device: 'cdrom', persistent: false, mode: 'UEFI' }, expected: 'cdrom', settings: { uefiBootMethod: 'efiboot' } },
  ];
  it.each(rows)('$name → the script holds $expected', async ({ options, expected, settings }) => {
    const driver = driverFor(sim.address, settings);
    await driver.setBootDevice({ device: 'bios', persistent: false, mode: 'legacy' });
    await driver.setBootDevice(options);
    expect((await sim.state()).bootDevice).toBe(expected);
  });

  it('bootparam get 5 agrees on the device; ipmi_sim keeps neither persistence nor EFI (documented limit)', async () => {
    const driver = driverFor(sim.address);
    await driver.setBootDevice({ device: 'pxe', persistent: true, mode: 'UEFI' });
    expect(await driver.getBootParameters()).toEqual({ selector: 'Force PXE', persistent: false, efi: false, valid: false });
    await driver.setBootDevice({ device: 'cdrom', persistent: true, mode: 'legacy' });
    expect((await driver.getBootParameters()).selector).toBe('Force Boot from CD/DVD');
  });
});

describe('ipmi_sim: the boot hook a fake agent uses', () => {
  it('reports power on from off and reset while on, with the boot device', async () => {
    const driver = driverFor(sim.address);
    await driver.setPower('off');
    const boots: BootEvent[] = [];
    const unsubscribe = sim.onBoot((event) => boots.push(event));
    await driver.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' });
    await driver.setPower('on');
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    await driver.control('reset');
    await expect.poll(() => boots.length, { timeout: 5000 }).toBe(2);
    unsubscribe();
    expect(boots.map(({ cause, bootDevice }) => ({ cause, bootDevice }))).toEqual([
      { cause: 'power-on', bootDevice: 'pxe' },
      { cause: 'reset', bootDevice: 'disk' },
    ]);
  });
});

describe('ipmi_sim: check, inventory, cipher suites, privilege', () => {
  it('check: reachable, authenticated, power and mc info identity', async () => {
    const check = await driverFor(sim.address).check();
    expect(check).toMatchObject({ reachable: true, authenticated: true, missing: [] });
    expect(check.powerState).toMatch(/^(on|off)$/);
    expect(check.identity).toMatchObject({
      manufacturer: 'MontaVista Software, Inc.',
      manufacturerId: '4753',
      firmwareRevision: '9.08',
      ipmiVersion: '2.0',
      cipherSuite: '3',
    });
  });

  it('inventory: vendor, product and serial from the simulated FRU, nothing else', async () => {
    expect(await driverFor(sim.address).inventory()).toEqual({
      systemVendor: { manufacturer: 'Ironhook Simulated Systems', productName: 'IPMI-SIM-1', serialNumber: 'SIM0000001' },
    });
  });

  it('suite 17 fails on ipmi_sim ("invalid authentication algorithm"), the driver falls back to 3', async () => {
    const events: { cipherSuite: number; ok: boolean; reason?: string }[] = [];
    const driver = driverFor(sim.address, { cipherSuites: [17, 3], observer: (event) => events.push(event) });
    expect(await driver.getPower()).toMatch(/^(on|off)$/);
    await driver.getPower();
    expect(events.map(({ cipherSuite, ok, reason }) => ({ cipherSuite, ok, reason }))).toEqual([
      { cipherSuite: 17, ok: false, reason: 'CipherSuiteUnsupported' },
      { cipherSuite: 3, ok: true, reason: undefined },
      { cipherSuite: 3, ok: true, reason: undefined },
    ]);
  });

  it('suite 17 alone: a permanent CipherSuiteUnsupported', async () => {
    await expect(driverFor(sim.address, { cipherSuites: [17] }).getPower()).rejects.toMatchObject({ kind: 'Permanent', reason: 'CipherSuiteUnsupported' });
  });

  it('privilege level USER may read power but not change it: CredentialsInvalid', async () => {
    const driver = driverFor(`${sim.address}?privilegelevel=USER`);
    expect(await driver.getPower()).toMatch(/^(on|off)$/);
    await expect(driver.setPower('on')).rejects.toMatchObject({ kind: 'Permanent', reason: 'CredentialsInvalid' });
  });

  it('password file mode works against the real ipmitool', async () => {
    expect(await driverFor(sim.address, { passwordMode: 'file' }).getPower()).toMatch(/^(on|off)$/);
  });
});
