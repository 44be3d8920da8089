// Each vendor personality of the emulator against the driver, which picks its quirk row from the
// Manufacturer: power (Supermicro through ActionInfo), the CD boot target (Supermicro's UsbCd and
// boot-mode resync), virtual media in the vendor's place (HPE's `{}` eject, Lenovo's PATCH).
// Then the same vendor behaviour behind an unknown Manufacturer, to show which quirks the
// generic fallbacks cover and which need the row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import { ManualClock, startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { PersonalityName, RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { Reason, createRedfishDriver } from '../../drivers/redfish/index.js';
import type { RedfishDriver } from '../../drivers/redfish/index.js';
import { rejectionOf } from '../support/rejection.js';

const PASSWORD = 'personality-password';
const IMAGE = 'https://127.0.0.1:9/images/agent.iso';
const clock = new ManualClock();
let emulator: RedfishEmulator;

const ROWS: readonly { personality: PersonalityName; vendor: string; cdTarget: string; device: string; under: 'Systems' | 'Managers' }[] = [
  { personality: 'generic', vendor: 'generic', cdTarget: 'Cd', device: 'Cd', under: 'Systems' },
  { personality: 'dell', vendor: 'dell', cdTarget: 'Cd', device: 'CD', under: 'Managers' },
  { personality: 'hpe', vendor: 'hpe', cdTarget: 'Cd', device: '2', under: 'Managers' },
  { personality: 'supermicro', vendor: 'supermicro', cdTarget: 'UsbCd', device: 'CD1', under: 'Managers' },
  { personality: 'lenovo', vendor: 'lenovo', cdTarget: 'Cd', device: 'EXT1', under: 'Managers' },
];

const host = (id: string, extra: Partial<SystemConfig>): SystemConfig => ({ id, username: 'admin', password: PASSWORD, ...extra });

beforeAll(async () => {
  emulator = await startRedfishEmulator({
    http: true,
    scheduler: clock,
    systems: [
      ...ROWS.map((row) => host(row.personality, { personality: row.personality })),
      host('acme-supermicro', { personality: 'supermicro', manufacturer: 'Acme' }),
      host('acme-hpe', { personality: 'hpe', manufacturer: 'Acme' }),
      host('acme-lenovo', { personality: 'lenovo', manufacturer: 'Acme' }),
    ],
  });
});

afterAll(async () => {
  await emulator.stop();
});

function driverFor(id: string): RedfishDriver {
  return createRedfishDriver({ ...emulatedConnection(emulator, id, { scheme: 'redfish-virtualmedia', username: 'admin', password: PASSWORD }), clock });
}

const failure = (promise: Promise<unknown>): Promise<BMCError> => rejectionOf(promise, BMCError);

const requestsTo = (fragment: string, method?: string): { method: string; status: number | 'closed'; hasBody: boolean }[] =>
  emulator.requests().filter((request) => request.path.includes(fragment) && (method === undefined || request.method === method));

describe.each(ROWS)('$personality personality', (row) => {
  it('check(): quirk row from the Manufacturer, nothing missing for a virtual-media scheme', async () => {
    const driver = driverFor(row.personality);
    const check = await driver.check();
    expect([check.reachable, check.authenticated, check.missing, check.identity.vendorQuirks]).toEqual([true, true, [], row.vendor]);
    await driver.close();
  });

  it('power on and off', async () => {
    emulator.clearRequests();
    const driver = driverFor(row.personality);
    await driver.setPower('on');
    expect(await driver.getPower()).toBe('on');
    await driver.setPower('off');
    expect(await driver.getPower()).toBe('off');
    const usedActionInfo = requestsTo('ResetActionInfo', 'GET').length > 0;
    expect(usedActionInfo).toBe(row.personality === 'supermicro');
    await driver.close();
  });

  it(`boots the virtual CD as ${row.cdTarget}, UEFI`, async () => {
    const driver = driverFor(row.personality);
    await driver.setBootDevice({ device: 'cdrom', persistent: false, mode: 'UEFI' });
    expect(emulator.system(row.personality).boot).toMatchObject({ target: row.cdTarget, enabled: 'Once', mode: 'UEFI' });
    await driver.close();
  });

  it(`inserts and ejects media on ${row.under}/…/VirtualMedia/${row.device}`, async () => {
    emulator.clearRequests();
    const driver = driverFor(row.personality);
    await driver.insertVirtualMedia(IMAGE);
    expect(emulator.system(row.personality).media.get(row.device)).toMatchObject({ inserted: true, image: IMAGE });
    expect(await driver.getVirtualMedia()).toEqual({ inserted: true, image: IMAGE });
    await driver.ejectVirtualMedia();
    expect(emulator.system(row.personality).virtualMedia).toEqual({ inserted: false });
    const failed = emulator.requests().filter((request) => typeof request.status === 'number' && request.status >= 400);
    expect(failed).toEqual([]);
    expect(requestsTo(`/${row.under}/${row.personality}/VirtualMedia`).length).toBeGreaterThan(0);
    await driver.close();
  });
});

describe('vendor behaviour behind an unknown Manufacturer (generic quirks)', () => {
  it('Supermicro InsertMedia: TransferProtocolType is added after the BMC asks for it', async () => {
    emulator.clearRequests();
    const driver = driverFor('acme-supermicro');
    expect((await driver.check()).identity.vendorQuirks).toBe('generic');
    await driver.insertVirtualMedia(IMAGE);
    expect(requestsTo('InsertMedia', 'POST').map((request) => request.status)).toEqual([400, 204]);
    expect(emulator.system('acme-supermicro').virtualMedia).toEqual({ inserted: true, image: IMAGE });
    await driver.close();
  });

  it('Supermicro boot targets: without the UsbCd alias the CD is Unsupported', async () => {
    const driver = driverFor('acme-supermicro');
    const error = await failure(driver.setBootDevice({ device: 'cdrom', persistent: false, mode: 'UEFI' }));
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.Unsupported]);
    await driver.close();
  });

  it('Supermicro Boot PATCH: without "always send Enabled" a repeated Once is rejected', async () => {
    const driver = driverFor('acme-supermicro');
    await driver.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' });
    const error = await failure(driver.setBootDevice({ device: 'disk', persistent: false, mode: 'UEFI' }));
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.Rejected]);
    await driver.close();
  });

  it('HPE EjectMedia: an empty POST is refused, the `{}` retry works', async () => {
    const driver = driverFor('acme-hpe');
    await driver.insertVirtualMedia(IMAGE);
    emulator.clearRequests();
    await driver.ejectVirtualMedia();
    expect(requestsTo('EjectMedia', 'POST').map((request) => [request.status, request.hasBody])).toEqual([
      [400, false],
      [204, true],
    ]);
    await driver.close();
  });

  it('Lenovo: no InsertMedia action, so media goes in and out by PATCH', async () => {
    emulator.clearRequests();
    const driver = driverFor('acme-lenovo');
    await driver.insertVirtualMedia(IMAGE);
    await driver.ejectVirtualMedia();
    expect(requestsTo('VirtualMedia/EXT1', 'PATCH').map((request) => request.status)).toEqual([204, 204]);
    expect(requestsTo('Actions/VirtualMedia', 'POST')).toEqual([]);
    await driver.close();
  });
});
