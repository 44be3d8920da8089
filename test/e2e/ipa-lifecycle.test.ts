// The full stack (kube-apiserver, Metacontroller, hooks, driver pool) with the REAL
// ironic-python-agent as one Redfish host's agent: the emulated BMC's power-on from the agent ISO
// starts IPA in the host's sandbox (emulators/ipa), IPA's poweroff powers the Redfish system off.
// The host registers, is inspected from IPA's inventory, is provisioned with a raw GPT image and
// a config-2 config drive on the disk the root device hints name, is deprovisioned (metadata
// cleaning, or none), and deleted. A missing IPA is a failure, never a skip.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterBootEvents, redfishMAC } from '../../devenv/bmcs.js';
import { serveOnLoopback, type LoopbackServer } from '../../devenv/loopback.js';
import { redfishBootEvents } from '../../emulators/agent/index.js';
import { buildDiskImage, PAYLOAD_OFFSET, partitionTableOf, readConfigDrive, sha256Of, type DiskImage } from '../../emulators/ipa/disk-image.js';
import { startIPAFleet, type IPAFleet } from '../../emulators/ipa/fleet.js';
import { ipaPython, requireIPA } from '../../emulators/ipa/install.js';
import type { Cluster } from './support.js';
import { apply, bmcsOf, createNamespace, host, openCluster, poolHostYAML, waitForGone, waitForPoolState } from './support.js';

const PASSWORD = 'canary-E2E-IPA-5d2c';
const ID = 'rf-2';
const SERIAL = 'S6IPAE2E0002';
const OTHER_SERIAL = 'S6IPAE2E0001';
const USER_DATA = '#cloud-config\nhostname: rf-2\n';
const DISK = { sizeBytes: 8 * 1024 ** 3, model: 'MZ7L3480HCHQ', vendor: 'Samsung' };

let dir = '';
let files: LoopbackServer;
let cluster: Cluster;
let fleet: IPAFleet;
let image: DiskImage;

async function startFiles(): Promise<LoopbackServer> {
  return serveOnLoopback((req, res) => {
    if (req.url !== '/disk.raw') res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': image.raw.length }).end(image.raw);
  });
}

async function startFleet(): Promise<IPAFleet> {
  const redfish = bmcsOf(cluster.env).redfish;
  return startIPAFleet({
    python: ipaPython(),
    apiURL: `http://127.0.0.1:${String(cluster.env.pool?.agentPort ?? 0)}`,
    dir: join(dir, 'hosts'),
    forwardPorts: [Number(new URL(files.url).port)],
    sources: [filterBootEvents(redfishBootEvents(redfish), (id) => id === ID)],
    hosts: [
      {
        id: ID,
        nics: [{ mac: redfishMAC(ID), ip: '192.0.2.22' }],
        // Two disks alike but for the serial: IPA alone would take the first, the hints name the second.
        disks: [
          { ...DISK, serialNumber: OTHER_SERIAL },
          { ...DISK, serialNumber: SERIAL },
        ],
        systemVendor: { manufacturer: 'Ironhook', productName: 'Emulated R650', serialNumber: 'SN-IPA-E2E' },
        powerOff: () => {
          redfish.system(ID).setPower('Off');
          return Promise.resolve();
        },
      },
    ],
  });
}

beforeAll(async () => {
  // npm test installs IPA (scripts/setup-ipa.sh); a machine that still cannot run it fails here.
  await requireIPA();
  dir = mkdtempSync(join(tmpdir(), 'ironhook-ipa-e2e-'));
  image = await buildDiskImage(dir);
  files = await startFiles();
  cluster = await openCluster({ bmcs: { password: PASSWORD, realAgentHosts: [ID] } });
  fleet = await startFleet();
}, 400_000);

afterAll(async () => {
  await (fleet as IPAFleet | undefined)?.close();
  await (cluster as Cluster | undefined)?.close();
  await (files as LoopbackServer | undefined)?.close();
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** The disk the root device hints name. */
function hinted(): string {
  return fleet.sandbox(ID).devices[1]?.path ?? '';
}

async function payloadOnDisk(): Promise<string> {
  return sha256Of(await fleet.sandbox(ID).read(1, PAYLOAD_OFFSET, image.payload.length));
}

async function patchHost(namespace: string, spec: Record<string, unknown>): Promise<void> {
  await cluster.env.kubectl('patch', 'bmh', ID, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec }));
}

interface HardwareView {
  status?: { hardware?: { nics?: { mac: string }[]; storage?: { serialNumber?: string; name?: string }[] } };
}

/** A registered, inspected, available host with IPA's inventory in status.hardware. */
async function addAvailableHost(namespace: string, cleaning: string): Promise<void> {
  const bmcs = bmcsOf(cluster.env);
  const spec = { bootMACAddress: redfishMAC(ID), automatedCleaningMode: cleaning, bmc: { address: bmcs.address(ID), credentialsName: `${ID}-bmc-secret` } };
  await apply(cluster.env, poolHostYAML(ID, PASSWORD, spec), namespace);
  await waitForPoolState(cluster.env, namespace, ID, 'available');
  const view = (await host(cluster.env, namespace, ID)) as HardwareView;
  expect(view.status?.hardware?.nics?.map((nic) => nic.mac)).toContain(redfishMAC(ID));
  expect(view.status?.hardware?.storage?.map((disk) => disk.serialNumber)).toEqual([OTHER_SERIAL, SERIAL]);
  expect(fleet.record(ID).agentBoots).toBeGreaterThanOrEqual(1);
}

/** spec.image (raw, sha256, hints to the second disk) and spec.userData, then provisioned. */
async function provision(namespace: string): Promise<void> {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${ID}-user-data` }, type: 'Opaque', stringData: { userData: USER_DATA } };
  await apply(cluster.env, JSON.stringify(secret), namespace);
  const raw = { url: `${files.url}/disk.raw`, checksum: image.sha256.raw, checksumType: 'sha256', format: 'raw' };
  await patchHost(namespace, { online: true, image: raw, userData: { name: `${ID}-user-data` }, rootDeviceHints: { serialNumber: SERIAL } });
  await waitForPoolState(cluster.env, namespace, ID, 'provisioned');
  expect(await payloadOnDisk()).toBe(sha256Of(image.payload));
  expect(await partitionTableOf(hinted())).toBe('gpt');
  expect((await readConfigDrive(hinted()))?.['user_data']).toBe(USER_DATA);
}

async function deleteHost(namespace: string): Promise<void> {
  await cluster.env.kubectl('delete', 'bmh', ID, '-n', namespace, '--wait=false');
  await waitForGone(cluster.env, namespace, ID);
  const left = await cluster.env.kubectlResult('get', 'bmh', ID, '-n', namespace, '-o', 'jsonpath={.metadata.finalizers}');
  expect(left.code).not.toBe(0);
}

function elapsed(started: number, what: string): void {
  process.stdout.write(`${ID} ${what} after ${String(Date.now() - started)} ms\n`);
}

describe('the full stack with the real ironic-python-agent', () => {
  it('inspects, provisions, cleans the metadata on deprovisioning and deletes a Redfish host', async () => {
    const started = Date.now();
    const namespace = await createNamespace(cluster.env, 'ipa-metadata');
    await addAvailableHost(namespace, 'metadata');
    elapsed(started, 'available');
    await provision(namespace);
    elapsed(started, 'provisioned');
    await patchHost(namespace, { image: null });
    await waitForPoolState(cluster.env, namespace, ID, 'available');
    elapsed(started, 'deprovisioned');
    expect(await partitionTableOf(hinted())).toBe('');
    expect(await readConfigDrive(hinted())).toBeUndefined();
    await deleteHost(namespace);
    elapsed(started, 'deleted');
    expect(bmcsOf(cluster.env).redfish.system(ID).powerState).toBe('Off');
  }, 600_000);

  it('with automatedCleaningMode disabled the partition table survives deprovisioning', async () => {
    const started = Date.now();
    const namespace = await createNamespace(cluster.env, 'ipa-disabled');
    await addAvailableHost(namespace, 'disabled');
    await provision(namespace);
    await patchHost(namespace, { image: null });
    await waitForPoolState(cluster.env, namespace, ID, 'available');
    elapsed(started, 'deprovisioned without cleaning');
    expect(await partitionTableOf(hinted())).toBe('gpt');
    await deleteHost(namespace);
  }, 600_000);
});
