// The Redfish driver against the in-process emulator: power (each action, delayed transitions,
// PoweringOn/Off), waitForPower on a virtual clock, boot override (Once consumed, Continuous kept,
// the Continuous → Once fallback re-applied before power on), virtual media, inventory, check(),
// system selection and TLS verification. One emulated system per row; nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type { BootOptions } from '../../drivers/bmc/types.js';
import { ManualClock, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator, StateChangeEvent, SystemConfig } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { Reason, createRedfishDriver, waitForPower } from '../../drivers/redfish/index.js';
import type { RedfishDriver, RedfishDriverOptions } from '../../drivers/redfish/index.js';
import { rejectionOf } from '../support/rejection.js';

const PASSWORD = 'driver-test-password';
const clock = new ManualClock();
const events: StateChangeEvent[] = [];
let emulator: RedfishEmulator;

const host = (id: string, extra: Partial<SystemConfig> = {}): SystemConfig => ({ id, username: 'admin', password: PASSWORD, ...extra });

const POWER_ROWS = [
  { name: 'on from off', start: 'Off', action: 'on', resets: ['On'], end: 'on' },
  { name: 'on when already on sends nothing', start: 'On', action: 'on', resets: [], end: 'on' },
  { name: 'off (hard) from on', start: 'On', action: 'off', resets: ['ForceOff'], end: 'off' },
  { name: 'off when already off sends nothing', start: 'Off', action: 'off', resets: [], end: 'off' },
  { name: 'soft off', start: 'On', action: 'soft-off', resets: ['GracefulShutdown'], end: 'off' },
  { name: 'reboot from on: ForceOff, wait, On', start: 'On', action: 'reboot', resets: ['ForceOff', 'On'], end: 'on' },
  { name: 'reboot from off: On', start: 'Off', action: 'reboot', resets: ['On'], end: 'on' },
  { name: 'soft reboot from on', start: 'On', action: 'soft-reboot', resets: ['GracefulRestart'], end: 'on' },
  { name: 'soft reboot from off powers on', start: 'Off', action: 'soft-reboot', resets: ['On'], end: 'on' },
] as const;

const powerId = (index: number): string => `power-${index}`;

beforeAll(async () => {
  emulator = await startRedfishEmulator({
    http: true,
    scheduler: clock,
    random: () => 0.5,
    systems: [
      ...POWER_ROWS.map((row, index) => host(powerId(index), { powerState: row.start, powerDelayMs: 3_000 })),
      host('delayed', { powerDelayMs: [2_000, 8_000] }),
      host('transitional', { powerDelayMs: 5_000, transitionalStates: true }),
      host('stuck', { faults: { powerNeverSettles: true } }),
      host('boot'),
      host('no-continuous', { continuousBoot: false }),
      host('vmedia'),
      host('no-vmedia', { virtualMedia: false }),
      host('old-idrac', { personality: 'dell', firmwareVersion: '5.10.50.00' }),
      host('inventory', {
        nics: [{ mac: '00:5C:52:31:3A:9C', ip: '192.0.2.10', speedMbps: 10_000 }],
        macs: ['00:5c:52:31:3a:9d'],
        cpu: { sockets: 2, coresPerSocket: 8, threadsPerSocket: 16, model: 'Test CPU', maxSpeedMHz: 2600 },
        memoryGiB: 96,
        disks: [
          { sizeGiB: 100, type: 'SSD', serialNumber: 'S1', model: 'M1', vendor: 'V1' },
          { sizeGiB: 200, type: 'HDD', serialNumber: 'S2', model: 'M2', vendor: 'V2' },
          { sizeGiB: 300, type: 'NVME', serialNumber: 'S3', model: 'M3', vendor: 'V3' },
        ],
      }),
      host('check'),
      host('session'),
    ],
  });
  emulator.onStateChange((_system, event) => {
    events.push(event);
  });
});

afterAll(async () => {
  await emulator.stop();
});

function driverFor(id: string, extra: Partial<RedfishDriverOptions> & { scheme?: string; password?: string } = {}): RedfishDriver {
  const { scheme, password, ...rest } = extra;
  const connection = emulatedConnection(emulator, id, { scheme: scheme ?? 'redfish', username: 'admin', password: password ?? PASSWORD });
  return createRedfishDriver({ ...connection, clock, ...rest });
}

const failure = (promise: Promise<unknown>): Promise<BMCError> => rejectionOf(promise, BMCError);

const resetsOf = (id: string): string[] =>
  emulator
    .system(id)
    .actions.filter((action) => action.action === 'Reset')
    .map((action) => action.detail ?? '');

describe('power', () => {
  it.each(POWER_ROWS.map((row, index) => ({ ...row, id: powerId(index) })))('$name', async (row) => {
    const driver = driverFor(row.id);
    await driver.setPower(row.action);
    await waitForPower(driver, row.end, { clock, random: () => 0.5 });
    expect(await driver.getPower()).toBe(row.end);
    expect(resetsOf(row.id)).toEqual(row.resets);
    await driver.close();
  });

  it('waits with back-off until a delayed transition lands (2–8 s)', async () => {
    const driver = driverFor('delayed');
    await driver.setPower('on');
    expect(await driver.getPower()).toBe('off');
    const start = clock.now();
    await waitForPower(driver, 'on', { clock, random: () => 0.5 });
    const waited = clock.now() - start;
    expect(waited).toBeGreaterThanOrEqual(5_000);
    expect(waited).toBeLessThan(12_000);
    await driver.close();
  });

  it('reads PoweringOn as on and PoweringOff as off', async () => {
    const driver = driverFor('transitional');
    await driver.setPower('on');
    expect(emulator.system('transitional').powerState).toBe('PoweringOn');
    expect(await driver.getPower()).toBe('on');
    clock.advance(5_000);
    await driver.setPower('off');
    expect(emulator.system('transitional').powerState).toBe('PoweringOff');
    expect(await driver.getPower()).toBe('off');
    clock.advance(5_000);
    await driver.close();
  });

  it('power that never settles ends in a transient PowerStateTimeout after the timeout', async () => {
    const driver = driverFor('stuck');
    await driver.setPower('on');
    const start = clock.now();
    const error = await failure(waitForPower(driver, 'on', { clock, timeoutMs: 60_000, random: () => 0.5 }));
    expect([error.kind, error.reason]).toEqual(['Transient', Reason.PowerStateTimeout]);
    expect(clock.now() - start).toBeLessThanOrEqual(60_000);
    expect(clock.now() - start).toBeGreaterThan(40_000);
    await driver.close();
  });

  it('the back-off gaps grow about 1.5 times, capped at maxDelayMs', async () => {
    const gaps: number[] = [];
    const recording = {
      now: () => clock.now(),
      sleep: async (ms: number) => {
        gaps.push(ms);
        await clock.sleep(ms);
      },
    };
    const never = { getPower: async () => Promise.resolve('off' as const) };
    await failure(waitForPower(never, 'on', { clock: recording, timeoutMs: 30_000, random: () => 0.5, maxDelayMs: 5_000 }));
    expect(gaps.slice(0, 5)).toEqual([1_000, 1_500, 2_250, 3_375, 5_000]);
  });
});

const BOOT_ROWS: readonly { name: string; options: BootOptions; target: string; enabled: string; mode: string; uri?: string }[] = [
  { name: 'pxe once UEFI', options: { device: 'pxe', persistent: false, mode: 'UEFI' }, target: 'Pxe', enabled: 'Once', mode: 'UEFI' },
  { name: 'disk continuous UEFI', options: { device: 'disk', persistent: true, mode: 'UEFI' }, target: 'Hdd', enabled: 'Continuous', mode: 'UEFI' },
  { name: 'cdrom once legacy', options: { device: 'cdrom', persistent: false, mode: 'legacy' }, target: 'Cd', enabled: 'Once', mode: 'Legacy' },
  { name: 'bios setup once', options: { device: 'bios', persistent: false, mode: 'UEFI' }, target: 'BiosSetup', enabled: 'Once', mode: 'UEFI' },
  {
    name: 'UEFI HTTP with a boot URI',
    options: { device: 'uefi-http', persistent: false, mode: 'UEFI', httpBootURI: 'http://127.0.0.1:9/boot.efi' },
    target: 'UefiHttp',
    enabled: 'Once',
    mode: 'UEFI',
    uri: 'http://127.0.0.1:9/boot.efi',
  },
];

describe('boot override', () => {
  it.each(BOOT_ROWS)('$name', async (row) => {
    const driver = driverFor('boot');
    await driver.setBootDevice(row.options);
    const boot = emulator.system('boot').boot;
    expect([boot.target, boot.enabled, boot.mode]).toEqual([row.target, row.enabled, row.mode]);
    if (row.uri !== undefined) {
      expect(boot.httpBootUri).toBe(row.uri);
    }
    await driver.close();
  });

  it('Once is consumed at the next power-on, Continuous is kept across boots', async () => {
    const driver = driverFor('boot');
    await driver.setPower('off');
    await driver.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' });
    events.length = 0;
    await driver.setPower('on');
    expect(events.find((event) => event.type === 'power-on')).toMatchObject({ system: 'boot', bootSourceTarget: 'Pxe', bootSourceEnabled: 'Once' });
    expect(emulator.system('boot').boot.enabled).toBe('Disabled');
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    await driver.setPower('reboot');
    await driver.setPower('reboot');
    expect(events.filter((event) => event.type === 'power-on').map((event) => event.bootSourceTarget)).toEqual(['Pxe', 'Hdd', 'Hdd']);
    expect(emulator.system('boot').boot.enabled).toBe('Continuous');
    await driver.close();
  });

  it('a refused Continuous falls back to Once and is re-applied before every power-on', async () => {
    const driver = driverFor('no-continuous');
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    expect(emulator.system('no-continuous').boot).toMatchObject({ target: 'Hdd', enabled: 'Once' });
    events.length = 0;
    await driver.setPower('on');
    await driver.setPower('reboot');
    const boots = events.filter((event) => event.type === 'power-on' && event.system === 'no-continuous');
    expect(boots.map((event) => `${event.bootSourceTarget} ${event.bootSourceEnabled}`)).toEqual(['Hdd Once', 'Hdd Once']);
    await driver.close();
  });
});

describe('virtual media', () => {
  const image = 'http://127.0.0.1:9/images/live.iso';

  it('insert, insert the same URL again (no-op), replace, eject', async () => {
    const driver = driverFor('vmedia', { scheme: 'redfish-virtualmedia' });
    expect(await driver.getVirtualMedia()).toEqual({ inserted: false });
    await driver.insertVirtualMedia(image);
    await driver.insertVirtualMedia(image);
    expect(await driver.getVirtualMedia()).toEqual({ inserted: true, image });
    await driver.insertVirtualMedia(`${image}?v=2`);
    expect(emulator.system('vmedia').virtualMedia).toEqual({ inserted: true, image: `${image}?v=2` });
    await driver.ejectVirtualMedia();
    await driver.ejectVirtualMedia();
    expect(await driver.getVirtualMedia()).toEqual({ inserted: false });
    const actions = emulator.system('vmedia').actions.map((action) => action.action);
    expect(actions).toEqual(['InsertMedia', 'EjectMedia', 'InsertMedia', 'EjectMedia']);
    await driver.close();
  });

  it('a BMC without virtual media refuses an insert as Unsupported', async () => {
    const driver = driverFor('no-vmedia', { scheme: 'redfish-virtualmedia' });
    const error = await failure(driver.insertVirtualMedia(image));
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.Unsupported]);
    expect(await driver.getVirtualMedia()).toEqual({ inserted: false });
    await driver.close();
  });
});

describe('inventory', () => {
  it('maps Processors, Memory, EthernetInterfaces, Storage and the System to HardwareDetails', async () => {
    const driver = driverFor('inventory');
    const hardware = await driver.inventory();
    expect(hardware.cpu).toEqual({ arch: 'x86_64', model: 'Test CPU', clockMegahertz: 2600, count: 32 });
    expect(hardware.ramMebibytes).toBe(96 * 1024);
    expect(hardware.nics).toEqual([
      { name: 'NIC1', mac: '00:5c:52:31:3a:9c', ip: '192.0.2.10', speedGbps: 10, model: 'Emulated Ethernet adapter' },
      { name: 'NIC2', mac: '00:5c:52:31:3a:9d', speedGbps: 25, model: 'Emulated Ethernet adapter' },
    ]);
    expect(hardware.storage).toEqual([
      { name: 'Disk 1', sizeBytes: 100 * 1024 ** 3, type: 'SSD', rotational: false, serialNumber: 'S1', model: 'M1', vendor: 'V1' },
      { name: 'Disk 2', sizeBytes: 200 * 1024 ** 3, type: 'HDD', rotational: true, serialNumber: 'S2', model: 'M2', vendor: 'V2' },
      { name: 'Disk 3', sizeBytes: 300 * 1024 ** 3, type: 'NVME', rotational: false, serialNumber: 'S3', model: 'M3', vendor: 'V3' },
    ]);
    expect(hardware.systemVendor).toMatchObject({ manufacturer: 'Ironhook', productName: 'Emulated Redfish System' });
    expect(hardware.firmware).toEqual({ bios: { version: '1.0.0' } });
    await driver.close();
  });
});

describe('check()', () => {
  const rows = [
    { name: 'a usable BMC', id: 'check', scheme: 'redfish', password: PASSWORD, reachable: true, authenticated: true, missing: [], reason: undefined },
    {
      name: 'a wrong password',
      id: 'check',
      scheme: 'redfish',
      password: 'wrong',
      reachable: true,
      authenticated: false,
      missing: [],
      reason: Reason.CredentialsInvalid,
    },
    {
      name: 'virtual media scheme, BMC with virtual media',
      id: 'vmedia',
      scheme: 'redfish-virtualmedia',
      password: PASSWORD,
      reachable: true,
      authenticated: true,
      missing: [],
      reason: undefined,
    },
    {
      name: 'virtual media scheme, BMC without',
      id: 'no-vmedia',
      scheme: 'redfish-virtualmedia',
      password: PASSWORD,
      reachable: true,
      authenticated: true,
      missing: ['VirtualMedia'],
      reason: undefined,
    },
    {
      name: 'iDRAC older than 6.00 with idrac-virtualmedia',
      id: 'old-idrac',
      scheme: 'idrac-virtualmedia',
      password: PASSWORD,
      reachable: true,
      authenticated: true,
      missing: ['VirtualMedia (BMC firmware 5.10.50.00 is older than 6.00.00.00)'],
      reason: undefined,
    },
  ] as const;

  it.each(rows)('$name', async (row) => {
    const driver = driverFor(row.id, { scheme: row.scheme, password: row.password });
    const check = await driver.check();
    expect({ reachable: check.reachable, authenticated: check.authenticated, missing: check.missing, reason: check.problem?.reason }).toEqual({
      reachable: row.reachable,
      authenticated: row.authenticated,
      missing: row.missing,
      reason: row.reason,
    });
    await driver.close();
  });

  it('reports identity and power for a usable BMC', async () => {
    const driver = driverFor('old-idrac', { scheme: 'idrac-redfish' });
    expect(driver.family).toBe('idrac');
    const check = await driver.check();
    expect(check.powerState).toBe('off');
    expect(check.identity).toMatchObject({
      manufacturer: 'Dell Inc.',
      vendorQuirks: 'dell',
      managerFirmware: '5.10.50.00',
      auth: 'session',
      system: '/redfish/v1/Systems/old-idrac',
    });
    await driver.close();
  });

  it('an unknown system id: authenticated, System missing', async () => {
    const parsed = parseBMCAddress(emulator.address('check').replace('/check', '/nope'));
    if (parsed.kind !== 'parsed') {
      throw new Error('address');
    }
    const driver = createRedfishDriver({ ...emulatedConnection(emulator, 'check', { username: 'admin', password: PASSWORD }), address: parsed.bmc, clock });
    const check = await driver.check();
    expect([check.reachable, check.authenticated, check.missing, check.problem?.reason]).toEqual([true, true, ['System'], Reason.SystemNotFound]);
    await driver.close();
  });

  it('an unknown system id with a wrong password: not authenticated (credentials are checked first)', async () => {
    const parsed = parseBMCAddress(emulator.address('check').replace('/check', '/nope'));
    if (parsed.kind !== 'parsed') {
      throw new Error('address');
    }
    const driver = createRedfishDriver({ ...emulatedConnection(emulator, 'check', { username: 'admin', password: 'wrong' }), address: parsed.bmc, clock });
    const check = await driver.check();
    expect([check.reachable, check.authenticated, check.missing, check.problem?.reason]).toEqual([true, false, [], Reason.CredentialsInvalid]);
    await driver.close();
  });

  it('without a system path on a BMC with many systems: SystemNotFound', async () => {
    const parsed = parseBMCAddress(`redfish+http://127.0.0.1:${emulator.port}`);
    if (parsed.kind !== 'parsed') {
      throw new Error('address');
    }
    const driver = createRedfishDriver({ ...emulatedConnection(emulator, 'check', { username: 'admin', password: PASSWORD }), address: parsed.bmc, clock });
    const error = await failure(driver.getPower());
    expect(error.reason).toBe(Reason.SystemNotFound);
    expect(error.message).toContain('put the system path in the BMC address');
    await driver.close();
  });
});

describe('sessions and the registry', () => {
  it('the registry hands out the Redfish driver, and close() deletes its session', async () => {
    emulator.expireSessions();
    const driver = createBMCDriver(emulatedConnection(emulator, 'session', { username: 'admin', password: PASSWORD }));
    expect(driver.family).toBe('redfish');
    await driver.getPower();
    expect(emulator.sessionCount()).toBe(1);
    await driver.close();
    expect(emulator.sessionCount()).toBe(0);
  });
});

describe('TLS', () => {
  let tls: RedfishEmulator;

  beforeAll(async () => {
    tls = await startRedfishEmulator({ systems: [host('tls')] });
  });

  afterAll(async () => {
    await tls.stop();
  });

  const rows = [
    { name: 'verification on, system trust store: refused', tls: 'system-store', ok: false },
    { name: 'the BMC CA bundle: accepted', tls: 'trust-ca', ok: true },
    { name: 'disableCertificateVerification: accepted', tls: 'insecure', ok: true },
  ] as const;

  it.each(rows)('$name', async (row) => {
    const driver = createRedfishDriver({ ...emulatedConnection(tls, 'tls', { username: 'admin', password: PASSWORD, tls: row.tls }), clock });
    if (row.ok) {
      expect(await driver.getPower()).toBe('off');
    } else {
      const error = await failure(driver.getPower());
      expect([error.kind, error.reason]).toEqual(['Permanent', Reason.TLSVerificationFailed]);
      const check = await driver.check();
      expect([check.reachable, check.problem?.reason]).toEqual([false, Reason.TLSVerificationFailed]);
    }
    await driver.close();
  });
});
