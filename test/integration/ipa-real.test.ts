// The real ironic-python-agent 13 (PyPI) against the pool's agent API and AgentService, on
// loopback: IPA runs in a network namespace whose NIC has the host's MAC, with a loop-device
// disk, behind the sandbox's hardware manager and write guard (emulators/ipa). It inspects,
// looks up, takes its token, heartbeats over auto TLS; the pool writes a raw image with a config-2
// config drive and a qcow2 image (read back off the loop device the root device hints name),
// erases the metadata and powers it off. A missing IPA is a failure, never a skip.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAgentSide, type AgentSide } from '../../drivers/agent/server.js';
import { MemoryAgentStateStore } from '../../drivers/agent/store.js';
import type { AgentConfigDrive } from '../../drivers/agent/port.js';
import { serveOnLoopback, type LoopbackServer } from '../../devenv/loopback.js';
import type { BootEventSource } from '../../emulators/agent/types.js';
import { buildDiskImage, PAYLOAD_OFFSET, partitionTableOf, readConfigDrive, sha256Of, type DiskImage } from '../../emulators/ipa/disk-image.js';
import { startIPAFleet, type IPAFleet } from '../../emulators/ipa/fleet.js';
import { ipaPython, requireIPA } from '../../emulators/ipa/install.js';
import { capturedLogger } from '../support/captured-logger.js';

const HOST = { namespace: 'metal3', name: 'ipa-0', uid: '6f1c2a4e-9b7d-4c3a-8e5f-0a1b2c3d4e5f' };
const MAC = '52:54:00:1c:00:01';
const SERIAL = 'S6IPA0000001';
const OTHER_SERIAL = 'S6IPA0000000';
const wait = { signal: new AbortController().signal, timeoutMs: 120_000 };

let dir = '';
let files: LoopbackServer;
let side: AgentSide;
let fleet: IPAFleet;
let image: DiskImage;
let token = '';
const powerOffs: string[] = [];
const { logger, lines: logLines } = capturedLogger('debug');
// The test is the BMC here: it "boots" the host by PXE and takes IPA's power off.
const listeners: Parameters<BootEventSource['subscribe']>[0][] = [];
const bootSource: BootEventSource = {
  subscribe: (listener) => {
    listeners.push(listener);
    return () => undefined;
  },
};

beforeAll(async () => {
  // npm test installs IPA (scripts/setup-ipa.sh); a machine that still cannot run it fails here
  // with the reason, never skips.
  await requireIPA();
  dir = mkdtempSync(join(tmpdir(), 'ironhook-ipa-'));
  image = await buildDiskImage(dir);
  files = await serveOnLoopback((req, res) => {
    const body = req.url === '/disk.raw' ? image.raw : req.url === '/disk.qcow2' ? image.qcow2 : undefined;
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  side = await startAgentSide({
    host: '127.0.0.1',
    port: 0,
    logger,
    heartbeatTimeoutSeconds: 6,
    store: new MemoryAgentStateStore(),
    client: { pollIntervalMs: 500, commandTimeoutMs: 60_000 },
    timeouts: { inventoryMs: 120_000, writeImageMs: 180_000, commandWaitMs: 120_000, powerOffMs: 60_000 },
  });
  fleet = await startIPAFleet({
    python: ipaPython(),
    apiURL: side.url,
    dir: join(dir, 'hosts'),
    forwardPorts: [Number(new URL(files.url).port)],
    sources: [bootSource],
    hosts: [
      {
        id: 'ipa-0',
        nics: [{ mac: MAC, ip: '192.0.2.20' }],
        // Two disks alike but for the serial: IPA alone would take the first, the hints name the second.
        disks: [
          { sizeBytes: 8 * 1024 ** 3, serialNumber: OTHER_SERIAL, model: 'MZ7L3480HCHQ', vendor: 'Samsung' },
          { sizeBytes: 8 * 1024 ** 3, serialNumber: SERIAL, model: 'MZ7L3480HCHQ', vendor: 'Samsung' },
        ],
        systemVendor: { manufacturer: 'Ironhook', productName: 'Emulated R650', serialNumber: 'SN-IPA-0' },
        powerOff: () => {
          powerOffs.push('ipa-0');
          for (const listener of listeners) listener.powerOff('ipa-0');
          return Promise.resolve();
        },
      },
    ],
  });
}, 300_000);

afterAll(async () => {
  await (fleet as IPAFleet | undefined)?.close();
  await (side as AgentSide | undefined)?.close();
  await (files as LoopbackServer | undefined)?.close();
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

type Handle = Awaited<ReturnType<AgentSide['service']['waitForAgent']>>;
let handle: Handle;

/** The digest of the image's partition as it is on the disk (a digest: a failed diff of 8 MiB would take minutes). */
async function payloadOnDisk(): Promise<string> {
  return sha256Of(await fleet.sandbox('ipa-0').read(1, PAYLOAD_OFFSET, image.payload.length));
}

/** The disk the root device hints name. */
function disk(): string {
  return fleet.sandbox('ipa-0').devices[1]?.path ?? '';
}

function otherDisk(): string {
  return fleet.sandbox('ipa-0').devices[0]?.path ?? '';
}

/** Writes the test image in `format` (checked by sha256) onto the disk the serial-number hint names. */
async function writeImageByHints(format: 'raw' | 'qcow2', configDrive?: AgentConfigDrive): Promise<void> {
  const url = `${files.url}/disk.${format}`;
  const spec = { url, checksum: image.sha256[format], checksumType: 'sha256', format, rootDeviceHints: { serialNumber: SERIAL } };
  await side.service.writeImage(handle, spec, configDrive);
}

async function bootIPA(): Promise<Handle> {
  ({ token } = await side.service.expect(HOST, [MAC]));
  for (const listener of listeners) listener.boot({ hostId: 'ipa-0', device: 'pxe' });
  return side.service.waitForAgent(HOST, wait);
}

describe('the real ironic-python-agent', () => {
  it('inspects the sandbox host: its NIC, its loop-device disk as the BMC reports it', async () => {
    handle = await bootIPA();
    // IPA's default auto TLS: the pool pins the certificate IPA heartbeats as agent_verify_ca.
    expect(handle.callbackURL).toBe(`https://127.0.0.1:${String(fleet.sandbox('ipa-0').commandPort)}`);
    expect(side.state.get(HOST)?.agentVerifyCA).toMatch(/^-----BEGIN CERTIFICATE-----/u);
    const hardware = await side.service.inventory(handle);
    expect(hardware.nics).toContainEqual(expect.objectContaining({ name: 'eth0', mac: MAC, ip: '192.0.2.20', pxe: true }));
    expect(hardware.storage).toEqual([
      expect.objectContaining({ name: otherDisk(), serialNumber: OTHER_SERIAL, sizeBytes: 8 * 1024 ** 3, model: 'MZ7L3480HCHQ' }),
      expect.objectContaining({ name: disk(), serialNumber: SERIAL, sizeBytes: 8 * 1024 ** 3, model: 'MZ7L3480HCHQ' }),
    ]);
    expect(hardware).toMatchObject({ hostname: 'ipa-0', systemVendor: { manufacturer: 'Ironhook', serialNumber: 'SN-IPA-0' } });
    expect(hardware.cpu?.count).toBeGreaterThanOrEqual(1);
  });

  it('writes a raw image onto the disk the root device hints select, with a config-2 config drive', async () => {
    await writeImageByHints('raw', {
      userData: '#cloud-config\nhostname: ipa-0\n',
      networkData: '{"links": [], "networks": [], "services": []}',
      metaData: 'uuid: 6f1c2a4e\nname: ipa-0\n',
    });
    expect(await payloadOnDisk()).toBe(sha256Of(image.payload));
    expect(await partitionTableOf(disk())).toBe('gpt');
    expect(await partitionTableOf(otherDisk())).toBe('');
    const drive = await readConfigDrive(disk());
    expect(drive?.['user_data']).toBe('#cloud-config\nhostname: ipa-0\n');
    expect(JSON.parse(drive?.['meta_data.json'] ?? '{}')).toMatchObject({ uuid: '6f1c2a4e', name: 'ipa-0' });
    expect(JSON.parse(drive?.['network_data.json'] ?? '{}')).toEqual({ links: [], networks: [], services: [] });
  });

  it('erases the disk metadata: the partition table and the config drive are gone', async () => {
    await side.service.eraseDevicesMetadata(handle);
    expect(await partitionTableOf(disk())).toBe('');
    expect(await readConfigDrive(disk())).toBeUndefined();
  });

  it('writes a qcow2 image (IPA converts it with qemu-img)', async () => {
    await writeImageByHints('qcow2');
    expect(await payloadOnDisk()).toBe(sha256Of(image.payload));
    expect(await partitionTableOf(disk())).toBe('gpt');
  });

  it("an image whose checksum does not match fails permanently (IPA's ImageChecksumError)", async () => {
    const url = `${files.url}/disk.raw`;
    const wrong = 'f'.repeat(64);
    await expect(side.service.writeImage(handle, { url, checksum: wrong, checksumType: 'sha256', format: 'raw' })).rejects.toMatchObject({
      reason: 'ImageChecksumMismatch',
      kind: 'Permanent',
    });
  });

  it('powers off in-band through the emulated BMC', async () => {
    await side.service.powerOff(handle);
    await vi.waitUntil(() => fleet.record('ipa-0').exits.length === 1, { timeout: 30_000 });
    expect(fleet.record('ipa-0').shutdowns).toEqual(['poweroff']);
    expect(powerOffs).toEqual(['ipa-0']);
  });

  it('let IPA write to the sandbox disk and nothing else', () => {
    const audit = fleet.audit('ipa-0');
    const loops = [disk(), otherDisk()];
    const writes = audit.filter((entry) => entry.allowed);
    expect(writes.length).toBeGreaterThan(0);
    // Refused: only kernel control files (full_sync's /proc/sys/vm/drop_caches), never a device.
    expect(audit.filter((entry) => !entry.allowed && entry.refusal === 'denied' && entry.detail.includes('/dev/'))).toEqual([]);
    for (const entry of writes) {
      const devices = entry.event === 'open-for-write' ? [entry.detail] : (entry.devices ?? []);
      for (const device of devices)
        expect(
          loops.some((loop) => device === loop || device.startsWith(`${loop}p`)),
          `${entry.event} ${entry.detail}`,
        ).toBe(true);
    }
  });

  it('never logged the agent token, on either side', () => {
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(logLines.join('')).not.toContain(token);
    // IPA itself prints it in two places, as with Ironic: its debug log of the lookup answer, and
    // its access log of command URLs (IPA 13 reads the token only from the query, where Ironic puts
    // it). Nothing else of IPA's may show it: no kernel command line, no boot medium, no error.
    const ipaLines = readFileSync(fleet.logOf('ipa-0') ?? '', 'utf8').split('\n');
    const ipaOwn = [/ironic_python_agent\.api \[-\] 127\.0\.0\.1 - (GET|POST) \/v1\/commands\//u, /ironic_python_agent\.agent \[-\] Received lookup results/u];
    const leaks = ipaLines.filter((line) => line.includes(token) && !ipaOwn.some((pattern) => pattern.test(line)));
    expect(leaks).toEqual([]);
  });
});
