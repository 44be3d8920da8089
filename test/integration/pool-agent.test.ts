// The pool's executors with the real parts of the stack on loopback: the Redfish driver from the
// registry, Ironhook's Redfish emulator, the agent side (agent API + AgentService) and the fake
// agent booted by the emulator's power events, and a loopback file server for images. The
// Kubernetes side is the in-memory port. Covers agent inspection over virtual media, disk
// image provisioning over PXE with a verified download, metadata cleaning, live-iso, and UEFI
// secure boot on for the provisioned OS and off again on deprovision.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import type { HostOperation, HostOperationSpec } from '../../domain/operations.js';
import { startAgentSide } from '../../drivers/agent/server.js';
import type { AgentSide } from '../../drivers/agent/server.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import { hostFromRedfishConfig, redfishBootEvents } from '../../emulators/agent/boot-events.js';
import { startFakeAgent } from '../../emulators/agent/fleet.js';
import type { FakeAgentFleet } from '../../emulators/agent/fleet.js';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator } from '../../emulators/redfish/index.js';
import { systemClock } from '../../drivers/pool/clock.js';
import { MemoryKube } from '../support/memory-kube.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { createPoolMetrics } from '../../drivers/pool/metrics.js';
import { DriverPool } from '../../drivers/pool/pool.js';
import { waitFor } from '../../devenv/processes.js';
import { DEFAULT_SETTINGS, LogCapture, NAMESPACE, credentialsSecret, operation } from '../support/fake-driver.js';
import { serveOnLoopback, type LoopbackServer } from '../../devenv/loopback.js';

const PASSWORD = 'canary-Agent-Path-3e1d';
const MACS = ['52:54:00:aa:10:01', '52:54:00:aa:10:02'];
const IMAGE = randomBytes(2 * 1024 * 1024 + 5);
const SHA256 = createHash('sha256').update(IMAGE).digest('hex');
const SYSTEM = { id: 'host-0', username: 'admin', password: PASSWORD, macs: MACS, powerState: 'Off' as const };

let files: LoopbackServer;
let filesURL = '';

interface Rig {
  kube: MemoryKube;
  emulator: RedfishEmulator;
  side: AgentSide;
  fleet: FakeAgentFleet;
  pool: DriverPool;
  logs: LogCapture;
}
let rig: Rig | undefined;

beforeAll(async () => {
  files = await serveOnLoopback((request, response) => {
    if (request.url === '/images/disk.raw') {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': IMAGE.length }).end(IMAGE);
    } else {
      response.writeHead(404).end();
    }
  });
  filesURL = files.url;
});

afterAll(async () => {
  await files.close();
});

afterEach(async () => {
  await rig?.pool.stop();
  await rig?.fleet.close();
  await rig?.side.close();
  await rig?.emulator.stop();
  rig = undefined;
});

async function setup(): Promise<Rig> {
  const emulator = await startRedfishEmulator({ systems: [SYSTEM], http: true, powerDelayMs: 100 });
  const side = await startAgentSide({
    host: '127.0.0.1',
    port: 0,
    heartbeatTimeoutSeconds: 5,
    client: { pollIntervalMs: 50, commandTimeoutMs: 5_000 },
    timeouts: { inventoryMs: 20_000, writeImageMs: 20_000, commandWaitMs: 10_000, powerOffMs: 5_000 },
  });
  const powerOff = (): Promise<void> => {
    emulator.system('host-0').setPower('Off');
    return Promise.resolve();
  };
  const fleet = startFakeAgent({
    apiURL: side.url,
    hosts: [hostFromRedfishConfig(SYSTEM, powerOff)],
    sources: [redfishBootEvents(emulator)],
    heartbeatIntervalMs: 100,
    lookupIntervalMs: 50,
    commandDelayMs: 50,
  });
  const kube = new MemoryKube();
  kube.put('secrets', credentialsSecret('host-0-bmc', 'admin', PASSWORD));
  const logs = new LogCapture();
  const settings = {
    ...DEFAULT_SETTINGS,
    powerSettleTimeoutMs: 20_000,
    agentBootTimeoutMs: 30_000,
    agentCommandTimeoutMs: 30_000,
    deployISOURL: `${filesURL}/ipa.iso`,
    deployKernelURL: `${filesURL}/ipa.kernel`,
    deployRamdiskURL: `${filesURL}/ipa.initramfs`,
  };
  const pool = new DriverPool({
    kube,
    clock: systemClock,
    logger: createLogger({ level: 'debug', destination: logs }),
    metrics: createPoolMetrics({ defaultMetrics: false }),
    agent: side.service,
    factory: createBMCDriver,
    settings,
    instance: 'pool-agent-it',
  });
  await pool.start();
  rig = { kube, emulator, side, fleet, pool, logs };
  return rig;
}

async function run(
  r: Rig,
  action: HostOperationSpec['action'],
  sequence: number,
  options: Partial<HostOperationSpec> & { scheme: string },
): Promise<NonNullable<HostOperation['status']>> {
  const { scheme, ...extra } = options;
  const op = operation(action, sequence, {
    host: { name: 'host-0', uid: 'uid-host-0' },
    bmc: { address: r.emulator.address('host-0', scheme), credentialsName: 'host-0-bmc' },
    bootMACAddress: MACS[0],
    ...extra,
  });
  r.kube.put('hostoperations', op);
  let status: HostOperation['status'];
  await waitFor(
    `${op.metadata.name ?? ''} to finish`,
    () => {
      status = (r.kube.get('hostoperations', NAMESPACE, op.metadata.name ?? '') as HostOperation).status;
      return Promise.resolve(status?.phase === Phase.Succeeded || status?.phase === Phase.Failed);
    },
    90_000,
    100,
  );
  return status ?? {};
}

describe('executors on the real drivers, agent side and emulators', () => {
  it('inspects through the agent booted from the agent ISO over virtual media', async () => {
    const r = await setup();
    const status = await run(r, 'Inspect', 1, { scheme: 'redfish-virtualmedia', inspect: { mode: 'agent' } });
    expect(status.error).toBeUndefined();
    expect(status.phase).toBe(Phase.Succeeded);
    expect(status.result?.hardware?.nics?.map((nic) => nic.mac)).toEqual(MACS);
    expect(status.result?.poweredOn).toBe(false);
    const system = r.emulator.system('host-0');
    expect(system.powerState).toBe('Off');
    expect(system.virtualMedia.inserted).toBe(false);
    expect(r.fleet.record('host-0')).toMatchObject({ agentBoots: 1, poweredOff: 1 });
  });

  it('provisions a disk image over PXE (verified download), then cleans metadata on deprovision', async () => {
    const r = await setup();
    const image = { url: `${filesURL}/images/disk.raw`, checksum: SHA256, checksumType: 'sha256' as const, format: 'raw' as const };
    const provisioned = await run(r, 'Provision', 1, { scheme: 'redfish', provision: { image } });
    expect(provisioned.error).toBeUndefined();
    const system = r.emulator.system('host-0');
    expect(system.powerState).toBe('On');
    expect(system.boot).toMatchObject({ target: 'Hdd', enabled: 'Continuous' });
    expect(r.fleet.record('host-0').images).toEqual([expect.objectContaining({ digest: SHA256, bytes: IMAGE.length })]);
    expect(r.fleet.record('host-0').osBoots).toBe(1);

    const cleaned = await run(r, 'Deprovision', 2, { scheme: 'redfish', deprovision: { automatedCleaningMode: 'metadata' } });
    expect(cleaned.error).toBeUndefined();
    expect(r.fleet.record('host-0').metadataErased).toBe(1);
    expect(system.powerState).toBe('Off');
  });

  it('UEFISecureBoot: secure boot on after the image and boot device, before the OS boots; off before the agent cleans', async () => {
    const r = await setup();
    const image = { url: `${filesURL}/images/disk.raw`, checksum: SHA256, checksumType: 'sha256' as const, format: 'raw' as const };
    const provisioned = await run(r, 'Provision', 1, { scheme: 'redfish', bootMode: 'UEFISecureBoot', provision: { image } });
    expect(provisioned.error).toBeUndefined();
    const system = r.emulator.system('host-0');
    expect(system.secureBoot).toMatchObject({ enabled: true, currentBoot: 'Enabled' });
    const tail = (from: number): string[] => system.actions.slice(from).map((entry) => `${entry.action} ${entry.detail ?? ''}`);
    const provisionActions = tail(0);
    const secureAt = provisionActions.indexOf('SetSecureBoot Enabled');
    expect(provisionActions.slice(secureAt - 1, secureAt + 2)).toEqual(['SetBoot Hdd Continuous UEFI', 'SetSecureBoot Enabled', 'Reset On']);
    expect(r.fleet.record('host-0').osBoots).toBe(1);

    const before = system.actions.length;
    const cleaned = await run(r, 'Deprovision', 2, { scheme: 'redfish', bootMode: 'UEFISecureBoot', deprovision: { automatedCleaningMode: 'metadata' } });
    expect(cleaned.error).toBeUndefined();
    expect(tail(before)[0]).toBe('SetSecureBoot Disabled');
    expect(system.secureBoot.enabled).toBe(false);
    expect(r.fleet.record('host-0').metadataErased).toBe(1);
  });

  it('fails a disk image whose checksum does not match as Permanent', async () => {
    const r = await setup();
    const image = { url: `${filesURL}/images/disk.raw`, checksum: 'f'.repeat(64), checksumType: 'sha256' as const, format: 'raw' as const };
    const status = await run(r, 'Provision', 1, { scheme: 'redfish', provision: { image } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'ImageChecksumMismatch' });
  });

  it('boots a live ISO from virtual media without any agent', async () => {
    const r = await setup();
    const url = `${filesURL}/live.iso`;
    const status = await run(r, 'Provision', 1, { scheme: 'redfish-virtualmedia', provision: { image: { url, format: 'live-iso' } } });
    expect(status.error).toBeUndefined();
    const system = r.emulator.system('host-0');
    expect(system.powerState).toBe('On');
    expect(system.virtualMedia).toMatchObject({ inserted: true, image: url });
    expect(system.boot).toMatchObject({ target: 'Cd', enabled: 'Continuous' });
    expect(r.fleet.record('host-0').agentBoots).toBe(0);
    expect(r.logs.text()).not.toContain(PASSWORD);
  });
});
