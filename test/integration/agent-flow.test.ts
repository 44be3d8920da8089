// End to end on loopback: the fake agent boots, posts inspection data, looks up and heartbeats
// against the pool's agent API; AgentService drives it: inventory, prepare_image with a real
// download from a loopback file server and checksum verification (a wrong checksum fails) and
// the config-2 ISO config drive read back by the agent (Ironic's JSON form is refused),
// metadata erase, in-band power off. Plus: a disk boot runs no agent, a re-arm, and a pool
// restart that keeps talking to the running agent through the stored token. The fake agent
// runs with auto TLS (its default, as IPA): commands go over HTTPS pinned to the certificate it
// heartbeats as agent_verify_ca; one flow runs over plain HTTP (autoTLS: false).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../drivers/agent/client.js';
import { startAgentSide, type AgentSide } from '../../drivers/agent/server.js';
import { MemoryAgentStateStore } from '../../drivers/agent/store.js';
import { startFakeAgent, type FakeAgentFleet } from '../../emulators/agent/fleet.js';
import type { FakeHostSpec } from '../../emulators/agent/types.js';
import { serveOnLoopback, type LoopbackServer } from '../../devenv/loopback.js';
import { capturedLogger } from '../support/captured-logger.js';

const IMAGE = randomBytes(3 * 1024 * 1024 + 17);
const SHA256 = createHash('sha256').update(IMAGE).digest('hex');
const SHA512 = createHash('sha512').update(IMAGE).digest('hex');
const HOST = { namespace: 'metal3', name: 'host-0', uid: '11111111-2222-4333-8444-555555555555' };
const MACS = ['52:54:00:aa:00:01', '52:54:00:aa:00:02'];

let files: LoopbackServer;
let filesURL = '';
let downloads = 0;
const { logger, lines: logLines } = capturedLogger('debug');

beforeAll(async () => {
  files = await serveOnLoopback((req, res) => {
    if (req.url === '/images/disk.raw' || req.url === '/images/copy.raw') {
      downloads += 1;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': IMAGE.length }).end(IMAGE);
    } else if (req.url === '/images/SHA256SUMS') {
      res.writeHead(200).end(`${'0'.repeat(64)}  other.raw\n${SHA256}  copy.raw\n`);
    } else {
      res.writeHead(404).end();
    }
  });
  filesURL = files.url;
});

afterAll(async () => {
  await files.close();
});

interface Rig {
  side: AgentSide;
  fleet: FakeAgentFleet;
  powerOffs: string[];
  spec: FakeHostSpec;
}
let rig: Rig | undefined;

async function start(options: { port?: number; store?: MemoryAgentStateStore } = {}): Promise<AgentSide> {
  return startAgentSide({
    host: '127.0.0.1',
    port: options.port ?? 0,
    logger,
    heartbeatTimeoutSeconds: 5,
    client: { pollIntervalMs: 50, commandTimeoutMs: 5_000 },
    timeouts: { inventoryMs: 10_000, writeImageMs: 20_000, commandWaitMs: 10_000, powerOffMs: 5_000 },
    ...(options.store === undefined ? {} : { store: options.store }),
  });
}

async function setup(store?: MemoryAgentStateStore, agent: { autoTLS?: boolean } = {}): Promise<Rig> {
  const side = await start(store === undefined ? {} : { store });
  const powerOffs: string[] = [];
  const spec: FakeHostSpec = {
    id: 'host-0',
    nics: [{ mac: MACS[0]!, ip: '192.0.2.10' }, { mac: MACS[1]! }],
    cpu: { count: 32, model: 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz' },
    memoryMiB: 65536,
    disks: [{ sizeBytes: 447 * 1024 ** 3, type: 'SSD', model: 'MZ7L3480HCHQ', vendor: 'Samsung', serialNumber: 'S1' }],
    manufacturer: 'Dell Inc.',
    productName: 'PowerEdge R650',
    powerOff: () => {
      powerOffs.push('host-0');
      return Promise.resolve();
    },
  };
  const fleet = startFakeAgent({ apiURL: side.url, hosts: [spec], heartbeatIntervalMs: 100, lookupIntervalMs: 50, commandDelayMs: 100, logger, ...agent });
  rig = { side, fleet, powerOffs, spec };
  return rig;
}

afterEach(async () => {
  await rig?.fleet.close();
  await rig?.side.close();
  rig = undefined;
});

const wait = { signal: new AbortController().signal, timeoutMs: 10_000 };

async function bootAgent(r: Rig): Promise<{ token: string; handle: Awaited<ReturnType<AgentSide['service']['waitForAgent']>> }> {
  const { token } = await r.side.service.expect(HOST, MACS);
  expect(await r.fleet.boot('host-0', 'pxe')).toBe('agent');
  const handle = await r.side.service.waitForAgent(HOST, wait);
  return { token, handle };
}

describe('fake agent ↔ agent API ↔ AgentService', () => {
  it('inspects, writes the image (verified download), erases metadata and powers off', async () => {
    const r = await setup();
    const { token, handle } = await bootAgent(r);
    expect(handle.callbackURL).toBe(r.fleet.callbackURL('host-0'));
    expect(handle.callbackURL).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(r.side.state.get(HOST)?.agentVerifyCA).toMatch(/^-----BEGIN CERTIFICATE-----\n/);

    const hardware = await r.side.service.inventory(handle);
    expect(hardware.nics?.map((nic) => nic.mac)).toEqual(MACS);
    expect(hardware).toMatchObject({
      ramMebibytes: 65536,
      cpu: { count: 32, arch: 'x86_64' },
      systemVendor: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R650' },
    });
    expect(hardware.storage?.[0]).toMatchObject({ sizeBytes: 447 * 1024 ** 3, type: 'SSD', serialNumber: 'S1', model: 'MZ7L3480HCHQ', vendor: 'Samsung' });

    const before = downloads;
    await r.side.service.writeImage(
      handle,
      { url: `${filesURL}/images/disk.raw`, checksum: SHA256, checksumType: 'sha256', format: 'raw' },
      { userData: '#cloud-config\n', networkData: 'links: []\n' },
    );
    expect(downloads).toBe(before + 1);
    const afterWrite = r.fleet.record('host-0');
    expect(afterWrite.images).toEqual([
      expect.objectContaining({
        id: 'disk.raw',
        bytes: IMAGE.length,
        algorithm: 'sha256',
        digest: SHA256,
        diskFormat: 'raw',
        configDrive: { volumeId: 'config-2', meta_data: {}, user_data: '#cloud-config\n', network_data: { links: [] } },
      }),
    ]);

    await r.side.service.eraseDevicesMetadata(handle);
    expect(r.fleet.record('host-0').metadataErased).toBe(1);

    await r.side.service.powerOff(handle);
    const final = await r.fleet.waitFor('host-0', (record) => record.poweredOff === 1);
    expect(r.powerOffs).toEqual(['host-0']);
    expect(final).toMatchObject({ agentBoots: 1, inspections: 1, lookups: 1, failures: [] });
    expect(final.heartbeats).toBeGreaterThanOrEqual(1);
    expect(logLines.join('')).not.toContain(token);
  });

  it('a wrong checksum fails the command (permanent), and a sha512 or checksum-file URL passes', async () => {
    const r = await setup();
    const { handle } = await bootAgent(r);
    const wrong = r.side.service.writeImage(handle, { url: `${filesURL}/images/disk.raw`, checksum: 'f'.repeat(64), checksumType: 'sha256' });
    await expect(wrong).rejects.toMatchObject({ reason: 'ImageChecksumMismatch', kind: 'Permanent' });
    expect(r.fleet.record('host-0').failures).toEqual(['prepare_image: ImageChecksumError']);

    await r.side.service.writeImage(handle, { url: `${filesURL}/images/disk.raw`, checksum: SHA512, checksumType: 'sha512' });
    // The same image again in the same agent boot counts as written (what a resumed request relies on).
    await r.side.service.writeImage(handle, { url: `${filesURL}/images/disk.raw`, checksum: SHA512, checksumType: 'sha512' });
    await r.side.service.writeImage(handle, { url: `${filesURL}/images/copy.raw`, checksum: `${filesURL}/images/SHA256SUMS`, checksumType: 'sha256' });
    expect(r.fleet.record('host-0').images.map((image) => `${image.id} ${image.algorithm}`)).toEqual(['disk.raw sha512', 'copy.raw sha256']);
  });

  it("the agent refuses Ironic's JSON form of the config drive, as IPA does", async () => {
    const r = await setup();
    const { token, handle } = await bootAgent(r);
    const client = new AgentClient({ pollIntervalMs: 50, commandTimeoutMs: 5_000 });
    const verifyCA = r.side.state.get(HOST)?.agentVerifyCA;
    const params = {
      image_info: { id: 'disk.raw', urls: [`${filesURL}/images/disk.raw`], os_hash_algo: 'sha256', os_hash_value: SHA256 },
      configdrive: { user_data: '#cloud-config\n', network_data: { links: [] } },
    };
    const sent = client.run({ callbackURL: handle.callbackURL, token, ...(verifyCA === undefined ? {} : { verifyCA }) }, 'standby.prepare_image', params, {
      timeoutMs: 10_000,
    });
    await expect(sent).rejects.toMatchObject({
      reason: 'AgentCommandFailed',
      kind: 'Transient',
      message: expect.stringMatching(/InstanceDeployFailure: config drive must be a base64 string of a gzipped ISO 9660 image, not object/) as string,
    });
    expect(r.fleet.record('host-0')).toMatchObject({ images: [], failures: ['prepare_image: InstanceDeployFailure'] });
  });

  it('a download error fails the command as transient', async () => {
    const r = await setup();
    const { handle } = await bootAgent(r);
    await expect(r.side.service.writeImage(handle, { url: `${filesURL}/images/missing.raw`, checksum: SHA256 })).rejects.toMatchObject({
      reason: 'AgentCommandFailed',
      kind: 'Transient',
    });
  });

  it('a disk boot runs the OS, not the agent; waitForAgent times out', async () => {
    const r = await setup();
    await r.side.service.expect(HOST, MACS);
    expect(await r.fleet.boot('host-0', 'disk')).toBe('os');
    expect(await r.fleet.boot('host-0', 'cdrom', `${filesURL}/live.iso`)).toBe('os');
    await expect(r.side.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 300 })).rejects.toMatchObject({ reason: 'AgentTimeout' });
    expect(r.fleet.record('host-0')).toMatchObject({ agentBoots: 0, osBoots: 2, lookups: 0 });
  });

  it('virtual media with the agent ISO boots the agent', async () => {
    const r = await setup();
    await r.side.service.expect(HOST, MACS);
    expect(await r.fleet.boot('host-0', 'cdrom', `${filesURL}/ironic-python-agent.iso`)).toBe('agent');
    await expect(r.side.service.waitForAgent(HOST, wait)).resolves.toMatchObject({ name: 'host-0' });
  });

  it('an unarmed host is not found: the agent keeps looking up until it is armed', async () => {
    const r = await setup();
    await r.fleet.boot('host-0', 'pxe');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.fleet.record('host-0').lookups).toBe(0);
    await r.side.service.expect(HOST, MACS);
    await expect(r.side.service.waitForAgent(HOST, wait)).resolves.toMatchObject({ name: 'host-0' });
  });

  it('re-arming while the agent runs: the old token is refused, the agent looks up again and gets the new one', async () => {
    const r = await setup();
    const first = await bootAgent(r);
    const { token: second } = await r.side.service.expect(HOST, MACS);
    expect(second).not.toBe(first.token);
    await r.side.service.waitForAgent(HOST, wait);
    expect(r.fleet.record('host-0').lookups).toBe(2);
    // The re-arm forgot the certificate; the agent's next heartbeat recorded it again.
    expect(r.side.state.get(HOST)?.agentVerifyCA).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    await r.side.service.eraseDevicesMetadata({ ...first.handle });
  });

  it('forget(): heartbeats are refused and commands fail with AgentNotArmed', async () => {
    const r = await setup();
    const { handle } = await bootAgent(r);
    r.side.service.forget(HOST);
    await expect(r.side.service.eraseDevicesMetadata(handle)).rejects.toMatchObject({ reason: 'AgentNotArmed' });
  });
});

describe('pool restart', () => {
  it('a new pool process on the same store reattaches to the running agent without re-arming', async () => {
    const store = new MemoryAgentStateStore();
    const r = await setup(store);
    const { handle } = await bootAgent(r);
    await r.side.service.inventory(handle);
    const certificate = r.side.state.get(HOST)?.agentVerifyCA;
    expect(certificate).toBeDefined();
    const port = Number(new URL(r.side.url).port);
    await r.side.close();

    r.side = await start({ port, store });
    const reattached = await r.side.service.waitForAgent(HOST, wait);
    expect(reattached.callbackURL).toBe(handle.callbackURL);
    expect(r.side.state.get(HOST)?.agentVerifyCA).toBe(certificate);
    await r.side.service.writeImage(reattached, { url: `${filesURL}/images/disk.raw`, checksum: SHA256, checksumType: 'sha256' });
    expect(r.fleet.record('host-0')).toMatchObject({ agentBoots: 1, lookups: 1 });
    expect(r.fleet.record('host-0').images).toHaveLength(1);
  });
});

describe('plain HTTP (autoTLS: false)', () => {
  it('the agent sends no agent_verify_ca; the pool writes the image, erases and powers off over http', async () => {
    const r = await setup(undefined, { autoTLS: false });
    const { handle } = await bootAgent(r);
    expect(handle.callbackURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(r.side.state.get(HOST)?.agentVerifyCA).toBeUndefined();
    await r.side.service.writeImage(handle, { url: `${filesURL}/images/disk.raw`, checksum: SHA256, checksumType: 'sha256' });
    await r.side.service.eraseDevicesMetadata(handle);
    await r.side.service.powerOff(handle);
    expect(await r.fleet.waitFor('host-0', (record) => record.poweredOff === 1)).toMatchObject({ metadataErased: 1, failures: [] });
    expect(r.fleet.record('host-0').images).toHaveLength(1);
  });
});
