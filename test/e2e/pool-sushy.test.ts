// The real driver pool against sushy-tools (PyPI, the emulator Metal3 uses) with its fake systems
// driver, through the real kube-apiserver, Metacontroller and hooks: no test writes a request
// status. sushy's fake driver cannot boot anything, so no agent ever runs on its systems: the host
// is inspected out of band (`inspectionMode: fast`, Redfish inventory), provisioned with a
// `live-iso` by virtual media (redfish-virtualmedia+http; sushy downloads the ISO from the
// loopback file server) and deleted with `automatedCleaningMode: disabled`. Power changes are
// read back from sushy's own Redfish resources (its transitions land 1–11 s after the 204).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import { waitFor } from '../../devenv/processes.js';
import { startSushy, SUSHY_PEER } from '../support/sushy.js';
import type { RunningSushy, SushySystem } from '../support/sushy.js';
import type { Cluster } from './support.js';
import { apply, bmcsOf, createNamespace, openCluster, poolHostYAML, waitForGone, waitForPoolState } from './support.js';
import { missingPeer } from '../support/peers.js';

const PASSWORD = 'canary-Sushy-2b8';
const NODE: SushySystem = {
  uuid: '5b0d1c3e-7a41-4a52-9d0e-1f2a3b4c5d6e',
  name: 'sushy-0',
  powerState: 'Off',
  nics: [{ mac: '52:54:00:1c:00:01', ip: '127.0.0.1' }],
};
let cluster: Cluster;
let sushy: RunningSushy;

async function sushyGet(path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sushy.url}${path}`, { headers: { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` } });
  return (await response.json()) as Record<string, unknown>;
}

async function sushyPower(): Promise<unknown> {
  return (await sushyGet(`/redfish/v1/Systems/${NODE.uuid}`)).PowerState;
}

async function waitForSushyPower(state: 'On' | 'Off'): Promise<void> {
  await waitFor(`sushy power ${state}`, async () => (await sushyPower()) === state, 90_000, 500);
}

async function patchHost(namespace: string, spec: Record<string, unknown>): Promise<void> {
  await cluster.env.kubectl('patch', 'bmh', NODE.name, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec }));
}

/** sushy's virtual CD as sushy reports it (read through the project's Redfish driver). */
async function sushyVirtualMedia(): Promise<{ inserted: boolean; image?: string }> {
  const parsed = parseBMCAddress(sushy.address(NODE.uuid, 'redfish-virtualmedia'));
  if (parsed.kind !== 'parsed') {
    throw new Error('sushy address does not parse');
  }
  const driver = createBMCDriver({
    address: parsed.bmc,
    credentials: { username: 'admin', password: PASSWORD },
    disableCertificateVerification: false,
    timeoutMs: 10_000,
  });
  try {
    return await driver.getVirtualMedia();
  } finally {
    await driver.close();
  }
}

describe.skipIf(missingPeer(SUSHY_PEER))('the driver pool with sushy-tools (fake driver)', () => {
  beforeAll(async () => {
    cluster = await openCluster({ bmcs: { password: PASSWORD } });
    sushy = await startSushy({ username: 'admin', password: PASSWORD, systems: [NODE], tls: false });
  }, 240_000);

  afterAll(async () => {
    await (sushy as RunningSushy | undefined)?.stop();
    await (cluster as Cluster | undefined)?.close();
  }, 60_000);

  it('registers, inspects out of band, boots a live ISO, changes power and deletes the host', async () => {
    const env = cluster.env;
    const bmcs = bmcsOf(env);
    const namespace = await createNamespace(env, 'pool-sushy');
    const started = Date.now();
    const spec = {
      bootMACAddress: NODE.nics[0]?.mac,
      inspectionMode: 'fast',
      automatedCleaningMode: 'disabled',
      bmc: { address: sushy.address(NODE.uuid, 'redfish-virtualmedia'), credentialsName: `${NODE.name}-bmc-secret` },
    };
    await apply(env, poolHostYAML(NODE.name, PASSWORD, spec), namespace);
    await waitForPoolState(env, namespace, NODE.name, 'available');
    process.stdout.write(`sushy-0 available after ${String(Date.now() - started)} ms\n`);
    const hardware = JSON.parse(await env.kubectl('get', 'hardwaredata', NODE.name, '-n', namespace, '-o', 'json')) as {
      spec: { hardware: { nics?: { mac: string }[] } };
    };
    expect((hardware.spec.hardware.nics ?? []).map((nic) => nic.mac.toLowerCase())).toContain(NODE.nics[0]?.mac);

    await patchHost(namespace, { online: true, image: { url: bmcs.files.liveISOURL, format: 'live-iso' } });
    await waitForPoolState(env, namespace, NODE.name, 'provisioned');
    process.stdout.write(`sushy-0 provisioned after ${String(Date.now() - started)} ms\n`);
    await waitForSushyPower('On');
    expect(await sushyVirtualMedia()).toEqual({ inserted: true, image: bmcs.files.liveISOURL });

    await patchHost(namespace, { online: false });
    await waitForSushyPower('Off');
    await patchHost(namespace, { online: true });
    await waitForSushyPower('On');

    await env.kubectl('delete', 'bmh', NODE.name, '-n', namespace, '--wait=false');
    await waitForGone(env, namespace, NODE.name);
    process.stdout.write(`sushy-0 deleted after ${String(Date.now() - started)} ms\n`);
    await waitForSushyPower('Off');
  }, 600_000);
});
