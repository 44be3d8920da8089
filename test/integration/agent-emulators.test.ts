// The fake agent driven by the emulators' own hooks, through the real BMC drivers: a Redfish
// emulator power-on from PXE or from the agent ISO boots the agent (a disk boot does not), the
// HTTP notifier path works like the in-process listener, in-band inventory matches what the BMC
// reports out of band, and standby.power_off powers the emulated system off. The same against
// ipmi_sim's boot hook (PXE only: IPMI has no virtual media).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { startAgentSide, type AgentSide } from '../../drivers/agent/server.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import type { BMCDriver } from '../../drivers/bmc/types.js';
import { hostFromRedfishConfig, ipmiBootEvents, redfishBootEvents } from '../../emulators/agent/boot-events.js';
import { startControlServer, type ControlServer } from '../../emulators/agent/control.js';
import { startFakeAgent, type FakeAgentFleet } from '../../emulators/agent/fleet.js';
import { IPMISimulator } from '../../emulators/ipmi/simulator.js';
import { startRedfishEmulator, type RedfishEmulator, type SystemConfig } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { GateRegistry } from '../../drivers/ipmi/gate.js';
import { createIPMIDriver } from '../../drivers/ipmi/driver.js';
import { serveOnLoopback, type LoopbackServer } from '../../devenv/loopback.js';

const PASSWORD = 'emulator-agent-Pa55';
const wait = (): { signal: AbortSignal; timeoutMs: number } => ({ signal: new AbortController().signal, timeoutMs: 15_000 });
const ref = (name: string) => ({ namespace: 'metal3', name, uid: `uid-${name}` });

const SYSTEMS: SystemConfig[] = [
  {
    id: 'rf-0',
    username: 'admin',
    password: PASSWORD,
    nics: [{ mac: '52:54:00:10:00:01', ip: '192.0.2.21', speedMbps: 25_000 }],
    macs: ['52:54:00:10:00:02'],
    cpu: { sockets: 1, coresPerSocket: 4, threadsPerSocket: 8, model: 'Test CPU', maxSpeedMHz: 2400 },
    memoryGiB: 48,
    disks: [
      { sizeGiB: 240, type: 'SSD', model: 'M1', vendor: 'V1', serialNumber: 'SER-1' },
      { sizeGiB: 960, type: 'NVME' },
    ],
    manufacturer: 'Dell Inc.',
    model: 'PowerEdge R650',
  },
  { id: 'rf-1', username: 'admin', password: PASSWORD },
];

let files: LoopbackServer;
let filesURL = '';
let side: AgentSide;

beforeAll(async () => {
  files = await serveOnLoopback((req, res) => {
    const ok = req.url?.startsWith('/agent.iso') === true || req.url?.startsWith('/live.iso') === true;
    res.writeHead(ok ? 200 : 404, { 'content-length': '4096' }).end(req.method === 'HEAD' || !ok ? undefined : Buffer.alloc(4096));
  });
  filesURL = files.url;
  side = await startAgentSide({
    host: '127.0.0.1',
    port: 0,
    heartbeatTimeoutSeconds: 5,
    client: { pollIntervalMs: 50 },
    timeouts: { powerOffMs: 5_000, commandWaitMs: 10_000, inventoryMs: 10_000 },
  });
});

afterAll(async () => {
  await side.close();
  await files.close();
});

describe('Redfish emulator state changes boot the fake agent', () => {
  let emulator: RedfishEmulator;
  let fleet: FakeAgentFleet;
  let driver: BMCDriver;

  beforeAll(async () => {
    emulator = await startRedfishEmulator({ http: true, systems: SYSTEMS });
    const hosts = SYSTEMS.map((config) =>
      hostFromRedfishConfig(config, () => {
        emulator.system(config.id).setPower('Off');
        return Promise.resolve();
      }),
    );
    fleet = startFakeAgent({
      apiURL: side.url,
      hosts,
      sources: [redfishBootEvents(emulator)],
      heartbeatIntervalMs: 100,
      lookupIntervalMs: 50,
      commandDelayMs: 50,
    });
    driver = createBMCDriver(emulatedConnection(emulator, 'rf-0', { scheme: 'redfish-virtualmedia', username: 'admin', password: PASSWORD }));
  });

  afterAll(async () => {
    await driver.close();
    await fleet.close();
    await emulator.stop();
  });

  async function powerCycle(): Promise<void> {
    await driver.setPower('off');
    await fleet.waitFor('rf-0', () => fleet.callbackURL('rf-0') === undefined);
    await driver.setPower('on');
  }

  it('PXE once + power on: the agent boots; in-band inventory matches the BMC; power_off turns the system off', async () => {
    const host = ref('rf-0');
    await side.service.expect(host, ['52:54:00:10:00:01']);
    await driver.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' });
    await powerCycle();
    const handle = await side.service.waitForAgent(host, wait());

    const inBand = await side.service.inventory(handle);
    const outOfBand = await driver.inventory();
    expect(inBand.nics?.map((nic) => nic.mac).sort()).toEqual(outOfBand.nics?.map((nic) => nic.mac).sort());
    expect(inBand.ramMebibytes).toBe(outOfBand.ramMebibytes);
    expect(inBand.cpu?.count).toBe(outOfBand.cpu?.count);
    expect(inBand.storage?.map((disk) => [disk.sizeBytes, disk.serialNumber])).toEqual(outOfBand.storage?.map((disk) => [disk.sizeBytes, disk.serialNumber]));
    expect(inBand.systemVendor?.manufacturer).toBe(outOfBand.systemVendor?.manufacturer);

    await side.service.powerOff(handle);
    await fleet.waitFor('rf-0', (record) => record.poweredOff === 1);
    expect(await driver.getPower()).toBe('off');
  });

  it('a disk boot runs the OS: no agent', async () => {
    const before = fleet.record('rf-0');
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    await powerCycle();
    const after = await fleet.waitFor('rf-0', (record) => record.osBoots === before.osBoots + 1);
    expect(after.agentBoots).toBe(before.agentBoots);
  });

  it('the agent ISO on the virtual CD boots the agent (ipa-api-url taken from the ISO URL); a live ISO does not', async () => {
    const host = ref('rf-0');
    await side.service.expect(host, ['52:54:00:10:00:02']);
    await driver.setPower('off');
    await driver.insertVirtualMedia(`${filesURL}/live.iso`);
    await driver.setBootDevice({ device: 'cdrom', persistent: false, mode: 'UEFI' });
    const osBoots = fleet.record('rf-0').osBoots;
    await driver.setPower('on');
    await fleet.waitFor('rf-0', (record) => record.osBoots === osBoots + 1);

    await driver.setPower('off');
    await driver.ejectVirtualMedia();
    await driver.insertVirtualMedia(`${filesURL}/agent.iso?ipa-api-url=${encodeURIComponent(side.url)}&BOOTIF=52:54:00:10:00:02`);
    await driver.setBootDevice({ device: 'cdrom', persistent: false, mode: 'UEFI' });
    await driver.setPower('on');
    const handle = await side.service.waitForAgent(host, wait());
    await side.service.eraseDevicesMetadata(handle);
    expect(fleet.record('rf-0').metadataErased).toBe(1);
  });

  it('the HTTP notifier path: the emulator posts power-ons to the control endpoint', async () => {
    const notified = startFakeAgent({ apiURL: side.url, hosts: [], heartbeatIntervalMs: 100, lookupIntervalMs: 50 });
    const control: ControlServer = await startControlServer(notified, { host: '127.0.0.1', port: 0 });
    const second = await startRedfishEmulator({
      http: true,
      systems: [{ id: 'rf-n', username: 'admin', password: PASSWORD, macs: ['52:54:00:10:00:77'] }],
      notifyURL: `${control.url}/events`,
    });
    const bmc = createBMCDriver(emulatedConnection(second, 'rf-n', { username: 'admin', password: PASSWORD }));
    try {
      await side.service.expect(ref('rf-n'), ['52:54:00:10:00:77']);
      await bmc.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' });
      await bmc.setPower('on');
      await second.flushNotifications();
      await expect(side.service.waitForAgent(ref('rf-n'), wait())).resolves.toMatchObject({ name: 'rf-n' });
      const hosts = (await (await fetch(`${control.url}/hosts`)).json()) as { hostId: string; agentBoots: number }[];
      expect(hosts).toEqual([expect.objectContaining({ hostId: 'rf-n', agentBoots: 1 })]);
    } finally {
      await bmc.close();
      await notified.close();
      await control.close();
      await second.stop();
    }
  });
});

describe('ipmi_sim boots the fake agent on PXE', () => {
  const CREDENTIALS = { username: 'admin', password: PASSWORD };
  let sim: IPMISimulator;
  let fleet: FakeAgentFleet;
  let ipmi: BMCDriver;

  beforeAll(async () => {
    sim = await IPMISimulator.start({ credentials: CREDENTIALS, pollIntervalMs: 25 });
    const parsed = parseBMCAddress(sim.address);
    if (parsed.kind !== 'parsed') throw new Error('bad simulator address');
    ipmi = createIPMIDriver(
      { address: parsed.bmc, credentials: CREDENTIALS, disableCertificateVerification: false, timeoutMs: 30_000 },
      { minCommandIntervalMs: 0, retries: 1, retryIntervalSeconds: 1, powerPollIntervalMs: 100, gates: new GateRegistry() },
    );
    const spec = { id: 'ipmi-0', nics: [{ mac: '52:54:00:20:00:01' }], powerOff: () => ipmi.setPower('off') };
    fleet = startFakeAgent({
      apiURL: side.url,
      hosts: [spec],
      sources: [ipmiBootEvents(sim, 'ipmi-0')],
      heartbeatIntervalMs: 100,
      lookupIntervalMs: 50,
      commandDelayMs: 50,
    });
  }, 60_000);

  afterAll(async () => {
    await fleet.close();
    await ipmi.close();
    await sim.stop();
  });

  it('bootdev pxe + power on: lookup, heartbeat, erase, in-band power off seen by the simulator', async () => {
    const host = ref('ipmi-0');
    await side.service.expect(host, ['52:54:00:20:00:01']);
    await ipmi.setPower('off');
    await ipmi.setBootDevice({ device: 'pxe', persistent: false, mode: 'legacy' });
    await ipmi.setPower('on');
    const handle = await side.service.waitForAgent(host, wait());
    await side.service.eraseDevicesMetadata(handle);
    await side.service.powerOff(handle);
    await sim.waitForState((state) => state.power === 'off');
    expect(fleet.record('ipmi-0')).toMatchObject({ agentBoots: 1, metadataErased: 1, poweredOff: 1 });
  });

  it('bootdev disk: the OS runs, no agent', async () => {
    await ipmi.setBootDevice({ device: 'disk', persistent: true, mode: 'legacy' });
    await ipmi.setPower('on');
    await fleet.waitFor('ipmi-0', (record) => record.osBoots === 1);
    expect(fleet.record('ipmi-0').agentBoots).toBe(1);
    await ipmi.setPower('off');
  });
});
