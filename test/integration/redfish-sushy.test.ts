// The Redfish driver against a real peer: sushy-tools from PyPI (the emulator Metal3 uses) with
// its fake systems driver, over HTTPS with a pinned throwaway CA and basic auth from a bcrypt
// htpasswd file, started by PID on 127.0.0.1 and stopped by PID. Covers check(), power (its
// transitions land 1–11 s after the 204, so this waits in real time), boot override, virtual
// media (sushy downloads the image, so a loopback image server serves one), inventory and UEFI
// secure boot (the fake driver's SecureBoot resource).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type { BMCConnectionOptions } from '../../drivers/bmc/types.js';
import { Reason, RedfishClient, createRedfishDriver, waitForPower } from '../../drivers/redfish/index.js';
import type { RedfishDriver } from '../../drivers/redfish/index.js';
import { startSushy, SUSHY_PEER } from '../support/sushy.js';
import type { RunningSushy, SushySystem } from '../support/sushy.js';
import { rejectionOf } from '../support/rejection.js';
import { missingPeer } from '../support/peers.js';

const PASSWORD = 'sushy-integration-Pa55';
const NODE_0: SushySystem = {
  uuid: '27946b59-9e44-4fa7-8e91-f3527a1ef094',
  name: 'node-0',
  powerState: 'Off',
  nics: [{ mac: '00:5c:52:31:3a:9c', ip: '127.0.0.1' }],
};
const NODE_1: SushySystem = {
  uuid: '0e3a8c57-6c5e-4b4a-9f0b-3f0d0b7a2c11',
  name: 'node-1',
  powerState: 'On',
  nics: [{ mac: '00:5c:52:31:3a:9d', ip: '127.0.0.2' }],
};
const POWER_WAIT = { timeoutMs: 60_000 };

let sushy: RunningSushy;
let images: Server;
let imageURL = '';

async function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

beforeAll(async () => {
  images = createServer((req, res) => {
    const iso = Buffer.alloc(64 * 1024, 0x41);
    res.writeHead(req.url === '/agent.iso' ? 200 : 404, { 'content-type': 'application/octet-stream', 'content-length': String(iso.length) });
    res.end(req.method === 'HEAD' ? undefined : iso);
  });
  imageURL = `http://127.0.0.1:${await listen(images)}/agent.iso`;
  sushy = await startSushy({ username: 'admin', password: PASSWORD, systems: [NODE_0, NODE_1] });
}, 120_000);

afterAll(async () => {
  await sushy.stop();
  await new Promise<void>((resolve) =>
    images.close(() => {
      resolve();
    }),
  );
});

function connection(uuid: string, overrides: { scheme?: string; password?: string; trust?: boolean } = {}): BMCConnectionOptions {
  const parsed = parseBMCAddress(sushy.address(uuid, overrides.scheme ?? 'redfish'));
  if (parsed.kind !== 'parsed') {
    throw new Error('sushy address does not parse');
  }
  return {
    address: parsed.bmc,
    credentials: { username: 'admin', password: overrides.password ?? PASSWORD },
    disableCertificateVerification: false,
    ...(overrides.trust === false || sushy.ca === undefined ? {} : { caBundle: sushy.ca }),
    timeoutMs: 10_000,
  };
}

const driverFor = (uuid: string, overrides: Parameters<typeof connection>[1] = {}): RedfishDriver => createRedfishDriver(connection(uuid, overrides));

const failure = (promise: Promise<unknown>): Promise<BMCError> => rejectionOf(promise, BMCError);

async function systemBoot(uuid: string): Promise<Record<string, unknown>> {
  const client = new RedfishClient({
    origin: sushy.url,
    credentials: { username: 'admin', password: PASSWORD },
    timeoutMs: 10_000,
    insecure: false,
    caBundle: sushy.ca,
    authMode: 'basic',
  });
  const system = await client.load(`/redfish/v1/Systems/${uuid}`);
  await client.close();
  return system.resource.Boot as Record<string, unknown>;
}

describe.skipIf(missingPeer(SUSHY_PEER))('Redfish driver against sushy-tools (fake driver)', () => {
  it('check(): reachable, basic auth (no SessionService), identity, virtual media present', async () => {
    const driver = driverFor(NODE_0.uuid, { scheme: 'redfish-virtualmedia' });
    const check = await driver.check();
    expect([check.reachable, check.authenticated, check.missing, check.problem]).toEqual([true, true, [], undefined]);
    expect(check.identity).toMatchObject({ auth: 'basic', system: `/redfish/v1/Systems/${NODE_0.uuid}`, vendorQuirks: 'generic' });
    await driver.close();
  });

  it('a wrong password: authenticated false, CredentialsInvalid', async () => {
    const driver = driverFor(NODE_0.uuid, { password: 'wrong' });
    const check = await driver.check();
    expect([check.reachable, check.authenticated, check.problem?.reason]).toEqual([true, false, Reason.CredentialsInvalid]);
    expect(JSON.stringify(check)).not.toContain(PASSWORD);
    await driver.close();
  });

  it('TLS verification is on: without the CA the certificate is refused', async () => {
    const driver = driverFor(NODE_0.uuid, { trust: false });
    const error = await failure(driver.getPower());
    expect([error.kind, error.reason]).toEqual(['Permanent', Reason.TLSVerificationFailed]);
    await driver.close();
  });

  it('power on, hard off, and reboot land in sushy-tools after its delay', async () => {
    const driver = driverFor(NODE_0.uuid);
    await driver.setPower('on');
    await waitForPower(driver, 'on', POWER_WAIT);
    await driver.setPower('off');
    await waitForPower(driver, 'off', POWER_WAIT);
    await driver.setPower('reboot');
    await waitForPower(driver, 'on', POWER_WAIT);
    expect(await driver.getPower()).toBe('on');
    await driver.close();
  }, 240_000);

  it('soft off of a running system', async () => {
    const driver = driverFor(NODE_1.uuid);
    expect(await driver.getPower()).toBe('on');
    await driver.setPower('soft-off');
    await waitForPower(driver, 'off', POWER_WAIT);
    await driver.close();
  }, 120_000);

  it.each([
    { name: 'pxe once', options: { device: 'pxe', persistent: false, mode: 'UEFI' }, target: 'Pxe' },
    { name: 'disk persistent', options: { device: 'disk', persistent: true, mode: 'UEFI' }, target: 'Hdd' },
    { name: 'cdrom once', options: { device: 'cdrom', persistent: false, mode: 'UEFI' }, target: 'Cd' },
  ] as const)('boot override: $name', async ({ options, target }) => {
    const driver = driverFor(NODE_0.uuid);
    await driver.setBootDevice(options);
    const boot = await systemBoot(NODE_0.uuid);
    expect([boot.BootSourceOverrideTarget, boot.BootSourceOverrideMode]).toEqual([target, 'UEFI']);
    await driver.close();
  });

  it('virtual media: insert (sushy fetches the image), read back, eject', async () => {
    const driver = driverFor(NODE_0.uuid, { scheme: 'redfish-virtualmedia' });
    await driver.insertVirtualMedia(imageURL);
    expect(await driver.getVirtualMedia()).toEqual({ inserted: true, image: imageURL });
    await driver.insertVirtualMedia(imageURL);
    await driver.ejectVirtualMedia();
    expect(await driver.getVirtualMedia()).toEqual({ inserted: false });
    await driver.close();
  });

  it('inventory: what the fake driver serves (vendor, NIC MACs); the parts it links but fails are skipped', async () => {
    const driver = driverFor(NODE_0.uuid);
    const hardware = await driver.inventory();
    // The fake driver has no Processors, Memory or Storage behind its links and no NIC addresses.
    expect(hardware).toEqual({
      systemVendor: { manufacturer: 'Sushy Emulator' },
      nics: NODE_0.nics.map((nic) => ({ name: nic.mac, mac: nic.mac })),
      storage: [],
    });
    expect(JSON.stringify(hardware)).not.toContain(PASSWORD);
    await driver.close();
  });

  it('secure boot: the fake driver serves SecureBoot (disabled); enable and disable, each read back; check() finds it when needed', async () => {
    const driver = driverFor(NODE_1.uuid);
    expect((await driver.check({ secureBoot: true })).missing).toEqual([]);
    expect(await driver.getSecureBoot()).toBe(false);
    expect(await driver.setSecureBoot(true)).toBe(true);
    expect(await driver.getSecureBoot()).toBe(true);
    expect(await driver.setSecureBoot(false)).toBe(false);
    expect(await driver.getSecureBoot()).toBe(false);
    await driver.close();
  });
});
