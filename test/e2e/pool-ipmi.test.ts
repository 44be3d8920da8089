// The real driver pool against OpenIPMI's ipmi_sim (through Debian's ipmitool), through the real
// kube-apiserver, Metacontroller and hooks: no test writes a request status. IPMI has no virtual
// media, so inspection, the disk image and cleaning boot the fake agent over PXE (ipmi_sim's boot
// hook); the image is really downloaded from the loopback file server and checked against its
// sha256 checksum file. Power and boot changes are asserted in ipmi_sim's own state files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPMI_HOST, IPMI_MAC } from '../../devenv/bmcs.js';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, bmcsOf, createNamespace, host, openCluster, poolHostYAML, waitForGone, waitForPoolState } from './support.js';

const PASSWORD = 'canary-E2E-Ipmi-4c1';
let cluster: Cluster;

beforeAll(async () => {
  cluster = await openCluster({ bmcs: { password: PASSWORD } });
}, 240_000);

afterAll(async () => {
  await (cluster as Cluster | undefined)?.close();
}, 60_000);

async function power(): Promise<string> {
  return (await bmcsOf(cluster.env).ipmi.state()).power;
}

async function waitForPower(state: 'on' | 'off'): Promise<void> {
  await waitFor(`ipmi_sim power ${state}`, async () => (await power()) === state, 150_000, 500);
}

/** The power settings ipmi_sim's chassis script carried out since `from`. */
async function powerEvents(from: number): Promise<string[]> {
  return (await bmcsOf(cluster.env).ipmi.events())
    .slice(from)
    .filter((event) => event.item === 'power' || event.item === 'shutdown' || event.item === 'reset')
    .map((event) => `${event.item} ${event.value}`);
}

async function patchHost(namespace: string, spec: Record<string, unknown>): Promise<void> {
  await cluster.env.kubectl('patch', 'bmh', IPMI_HOST, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec }));
}

describe('the driver pool with ipmi_sim', () => {
  it('registers, inspects over PXE, deploys a disk image through the agent, changes power, reboots and deletes', async () => {
    const env = cluster.env;
    const bmcs = bmcsOf(env);
    const namespace = await createNamespace(env, 'pool-ipmi');
    const started = Date.now();
    await apply(
      env,
      poolHostYAML(IPMI_HOST, PASSWORD, { bootMACAddress: IPMI_MAC, bmc: { address: bmcs.ipmi.address, credentialsName: `${IPMI_HOST}-bmc-secret` } }),
      namespace,
    );
    await waitForPoolState(env, namespace, IPMI_HOST, 'available');
    process.stdout.write(`ipmi-0 available after ${String(Date.now() - started)} ms\n`);
    expect(bmcs.fleet.record(IPMI_HOST).inspections).toBeGreaterThanOrEqual(1);
    expect((await bmcs.ipmi.events()).some((event) => event.item === 'boot' && event.value === 'pxe')).toBe(true);

    const image = { url: bmcs.files.diskURL, checksum: bmcs.files.diskChecksumURL, checksumType: 'sha256', format: 'raw' };
    await patchHost(namespace, { online: true, image });
    await waitForPoolState(env, namespace, IPMI_HOST, 'provisioned');
    process.stdout.write(`ipmi-0 provisioned after ${String(Date.now() - started)} ms\n`);
    expect(bmcs.fleet.record(IPMI_HOST).images).toEqual([
      expect.objectContaining({ url: bmcs.files.diskURL, algorithm: 'sha256', digest: bmcs.files.diskSHA256 }),
    ]);
    await waitForPower('on');
    expect((await bmcs.ipmi.state()).bootDevice).toBe('disk');

    const before = (await bmcs.ipmi.events()).length;
    await patchHost(namespace, { online: false });
    await waitForPower('off');
    await patchHost(namespace, { online: true });
    // The chassis script writes the power file before it appends to events.log: wait for both.
    await waitFor('power on in events.log', async () => (await powerEvents(before)).includes('power 1') && (await power()) === 'on', 150_000, 500);
    expect(await powerEvents(before)).toEqual([expect.stringMatching(/^(power 0|shutdown 1)$/u), 'power 1']);

    const beforeReboot = (await bmcs.ipmi.events()).length;
    await env.kubectl('annotate', 'bmh', IPMI_HOST, '-n', namespace, 'reboot.metal3.io=');
    await waitFor('the reboot in ipmi_sim', async () => (await powerEvents(beforeReboot)).includes('power 1') && (await power()) === 'on', 200_000, 500);
    expect((await powerEvents(beforeReboot))[0]).toMatch(/^(power 0|shutdown 1)$/u);
    await waitFor(
      'reboot annotation consumed',
      async () => (await host(env, namespace, IPMI_HOST)).metadata.annotations?.['reboot.metal3.io'] === undefined,
      60_000,
      250,
    );

    await env.kubectl('delete', 'bmh', IPMI_HOST, '-n', namespace, '--wait=false');
    // Deprovisioning over IPMI (5 s between commands) plus the agent's cleaning: allow more than the default.
    await waitForGone(env, namespace, IPMI_HOST, 300_000);
    process.stdout.write(`ipmi-0 deleted after ${String(Date.now() - started)} ms\n`);
    expect(bmcs.fleet.record(IPMI_HOST).metadataErased).toBeGreaterThanOrEqual(1);
    expect(await power()).toBe('off');
  }, 600_000);
});
