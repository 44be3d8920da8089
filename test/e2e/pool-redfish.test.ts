// The real driver pool against Ironhook's Redfish emulator, through the real kube-apiserver,
// Metacontroller and hooks: no test writes a request status. Hosts use
// redfish-virtualmedia+http, so inspection and disk images boot the agent ISO by virtual media
// (the fake agent is booted by the emulator's power events), live-iso inserts the ISO and boots
// it. Power changes, reboots and deletions are asserted in the emulator's own state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redfishMAC } from '../../devenv/bmcs.js';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, bmcsOf, createNamespace, host, openCluster, operations, poolHostYAML, waitForGone, waitForPoolState } from './support.js';

const PASSWORD = 'canary-E2E-Rf-7f3a9';
let cluster: Cluster;

beforeAll(async () => {
  cluster = await openPoolCluster();
}, 240_000);

afterAll(async () => {
  await (cluster as Cluster | undefined)?.close();
}, 60_000);

async function openPoolCluster(): Promise<Cluster> {
  return openCluster({ bmcs: { password: PASSWORD } });
}

function resets(id: string): string[] {
  return bmcsOf(cluster.env)
    .redfish.system(id)
    .actions.filter((action) => action.action === 'Reset')
    .map((action) => action.detail ?? '');
}

function powerOf(id: string): string {
  return bmcsOf(cluster.env).redfish.system(id).powerState;
}

async function waitForPower(id: string, state: 'On' | 'Off'): Promise<void> {
  await waitFor(`${id} power ${state} in the emulator`, async () => Promise.resolve(powerOf(id) === state), 60_000, 100);
}

async function addHost(namespace: string, id: string, spec: Record<string, unknown> = {}): Promise<void> {
  const bmcs = bmcsOf(cluster.env);
  await apply(
    cluster.env,
    poolHostYAML(id, PASSWORD, { bootMACAddress: redfishMAC(id), bmc: { address: bmcs.address(id), credentialsName: `${id}-bmc-secret` }, ...spec }),
    namespace,
  );
}

async function patchHost(namespace: string, id: string, spec: Record<string, unknown>): Promise<void> {
  await cluster.env.kubectl('patch', 'bmh', id, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec }));
}

describe('the driver pool with the Redfish emulator', () => {
  it('takes a host through inspection, a disk image, power changes, a reboot and deletion', async () => {
    const env = cluster.env;
    const bmcs = bmcsOf(env);
    const namespace = await createNamespace(env, 'pool-rf-disk');
    const started = Date.now();
    await addHost(namespace, 'rf-0');
    await waitForPoolState(env, namespace, 'rf-0', 'available');
    expect(bmcs.fleet.record('rf-0').inspections).toBeGreaterThanOrEqual(1);
    const hardware = JSON.parse(await env.kubectl('get', 'hardwaredata', 'rf-0', '-n', namespace, '-o', 'json')) as {
      spec: { hardware: { nics: { mac: string }[] } };
    };
    expect(hardware.spec.hardware.nics.map((nic) => nic.mac)).toContain(redfishMAC('rf-0'));
    process.stdout.write(`rf-0 available after ${String(Date.now() - started)} ms\n`);

    const image = { url: bmcs.files.diskURL, checksum: bmcs.files.diskChecksumURL, checksumType: 'sha256', format: 'raw' };
    await patchHost(namespace, 'rf-0', { online: true, image });
    await waitForPoolState(env, namespace, 'rf-0', 'provisioned');
    process.stdout.write(`rf-0 provisioned after ${String(Date.now() - started)} ms\n`);
    const record = bmcs.fleet.record('rf-0');
    expect(record.images).toEqual([expect.objectContaining({ url: bmcs.files.diskURL, algorithm: 'sha256', digest: bmcs.files.diskSHA256 })]);
    await waitForPower('rf-0', 'On');
    expect(bmcs.redfish.system('rf-0').boot.target).not.toBe('Cd');

    const before = resets('rf-0').length;
    await patchHost(namespace, 'rf-0', { online: false });
    await waitForPower('rf-0', 'Off');
    await patchHost(namespace, 'rf-0', { online: true });
    await waitForPower('rf-0', 'On');
    expect(resets('rf-0').slice(before)).toEqual([expect.stringMatching(/Off|Shutdown/u), 'On']);

    const beforeReboot = resets('rf-0').length;
    await env.kubectl('annotate', 'bmh', 'rf-0', '-n', namespace, 'reboot.metal3.io=');
    await waitFor(
      'the reboot in the emulator',
      async () => Promise.resolve(resets('rf-0').length >= beforeReboot + 2 && powerOf('rf-0') === 'On'),
      60_000,
      100,
    );
    expect(resets('rf-0').slice(beforeReboot)).toEqual([expect.stringMatching(/Off|Shutdown/u), 'On']);
    await waitFor(
      'reboot annotation consumed',
      async () => (await host(env, namespace, 'rf-0')).metadata.annotations?.['reboot.metal3.io'] === undefined,
      60_000,
      250,
    );

    await env.kubectl('delete', 'bmh', 'rf-0', '-n', namespace, '--wait=false');
    await waitForGone(env, namespace, 'rf-0');
    process.stdout.write(`rf-0 deleted after ${String(Date.now() - started)} ms\n`);
    expect(bmcs.fleet.record('rf-0').metadataErased).toBeGreaterThanOrEqual(1);
    expect(powerOf('rf-0')).toBe('Off');
  }, 600_000);

  it('boots a live ISO by virtual media and deprovisions it', async () => {
    const env = cluster.env;
    const bmcs = bmcsOf(env);
    const namespace = await createNamespace(env, 'pool-rf-live');
    const started = Date.now();
    await addHost(namespace, 'rf-1');
    await waitForPoolState(env, namespace, 'rf-1', 'available');
    const osBoots = bmcs.fleet.record('rf-1').osBoots;
    await patchHost(namespace, 'rf-1', { online: true, image: { url: bmcs.files.liveISOURL, format: 'live-iso' } });
    await waitForPoolState(env, namespace, 'rf-1', 'provisioned');
    process.stdout.write(`rf-1 live-iso provisioned after ${String(Date.now() - started)} ms\n`);
    await waitForPower('rf-1', 'On');
    const system = bmcs.redfish.system('rf-1');
    expect(system.virtualMedia).toEqual(expect.objectContaining({ inserted: true, image: bmcs.files.liveISOURL }));
    expect(system.boot.target).toBe('Cd');
    expect(bmcs.fleet.record('rf-1').osBoots).toBeGreaterThan(osBoots);
    expect(bmcs.fleet.record('rf-1').images).toEqual([]);

    await env.kubectl('delete', 'bmh', 'rf-1', '-n', namespace, '--wait=false');
    await waitForGone(env, namespace, 'rf-1');
    expect(powerOf('rf-1')).toBe('Off');
    expect((await operations(env, namespace)).length).toBe(0);
  }, 600_000);
});
