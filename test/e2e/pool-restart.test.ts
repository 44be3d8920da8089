// The real driver pool killed with SIGKILL in the middle of a disk-image deployment (while the
// fake agent's standby.prepare_image is RUNNING) and started again: it resumes the request from
// its checkpoints and the agent token Secret, and repeats neither a power action (Reset actions
// in the Redfish emulator's own log) nor the deployment (the agent's prepare_image runs) compared
// with an undisturbed deployment in the same environment. Then a canary BMC password is looked
// for in every log file under the environment's directory, every Event, every status of
// Ironhook's objects and `ironhook bmc` output for both BMC families.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPMI_HOST, IPMI_MAC, redfishMAC } from '../../devenv/bmcs.js';
import { ironhookBmc } from '../../devenv/chaos/checks.js';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, bmcsOf, createNamespace, getJSON, openCluster, poolHostYAML, waitForGone, waitForPoolState } from './support.js';

const CANARY = 'canary-Rst-Q8z1x7';
let cluster: Cluster;

beforeAll(async () => {
  cluster = await openCluster({ bmcs: { password: CANARY, agentCommandDelayMs: 4000 } });
}, 240_000);

afterAll(async () => {
  await (cluster as Cluster | undefined)?.close();
}, 60_000);

function resets(id: string): string[] {
  return bmcsOf(cluster.env)
    .redfish.system(id)
    .actions.filter((action) => action.action === 'Reset')
    .map((action) => action.detail ?? '');
}

async function toAvailable(namespace: string, id: string): Promise<void> {
  const bmcs = bmcsOf(cluster.env);
  await apply(
    cluster.env,
    poolHostYAML(id, CANARY, { bootMACAddress: redfishMAC(id), bmc: { address: bmcs.address(id), credentialsName: `${id}-bmc-secret` } }),
    namespace,
  );
  await waitForPoolState(cluster.env, namespace, id, 'available');
}

function provision(namespace: string, id: string): Promise<string> {
  const files = bmcsOf(cluster.env).files;
  const image = { url: files.diskURL, checksum: files.diskChecksumURL, checksumType: 'sha256', format: 'raw' };
  return cluster.env.kubectl('patch', 'bmh', id, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: { online: true, image } }));
}

interface StepView {
  name: string;
  state: string;
}

async function provisionSteps(namespace: string, id: string): Promise<StepView[]> {
  const list = await getJSON<{ items: { spec: { action: string; host: { name: string } }; status?: { steps?: StepView[] } }[] }>(
    cluster.env,
    namespace,
    'hostoperations',
  );
  return list.items.find((item) => item.spec.action === 'Provision' && item.spec.host.name === id)?.status?.steps ?? [];
}

/** What one deployment did to the BMC and the agent. */
interface Deployment {
  resets: string[];
  agentBoots: number;
  prepareImages: number;
}

async function deploy(namespace: string, id: string, midway?: () => Promise<void>): Promise<Deployment> {
  const fleet = bmcsOf(cluster.env).fleet;
  const [resetsBefore, bootsBefore] = [resets(id).length, fleet.record(id).agentBoots];
  await provision(namespace, id);
  if (midway !== undefined) {
    await midway();
  }
  await waitForPoolState(cluster.env, namespace, id, 'provisioned');
  await waitFor(`${id} on`, async () => Promise.resolve(bmcsOf(cluster.env).redfish.system(id).powerState === 'On'), 60_000, 100);
  const record = fleet.record(id);
  return { resets: resets(id).slice(resetsBefore), agentBoots: record.agentBoots - bootsBefore, prepareImages: record.images.length };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function cli(...args: string[]): Promise<string> {
  return ironhookBmc(CANARY, ...args);
}

describe('the driver pool killed mid-deployment, and the canary password', () => {
  it('resumes a deployment after SIGKILL without repeating power or deploy actions', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'pool-restart');
    await toAvailable(namespace, 'rf-1');
    await toAvailable(namespace, 'rf-2');
    const clean = await deploy(namespace, 'rf-1');
    expect(clean.prepareImages).toBe(1);
    const started = Date.now();
    const killed = await deploy(namespace, 'rf-2', async () => {
      await waitFor(
        'WriteImage running',
        async () => (await provisionSteps(namespace, 'rf-2')).some((step) => step.name === 'WriteImage' && step.state === 'Running'),
        120_000,
        100,
      );
      await env.pool?.restart({ kill: true });
      process.stdout.write(`pool SIGKILLed and restarted ${String(Date.now() - started)} ms into the deployment\n`);
    });
    process.stdout.write(`resumed deployment took ${String(Date.now() - started)} ms; clean ${JSON.stringify(clean)}, killed ${JSON.stringify(killed)}\n`);
    expect(killed).toEqual(clean);
    expect((await provisionSteps(namespace, 'rf-2')).map((step) => step.name)).toContain('Resume');
  }, 600_000);

  it('never shows the BMC password in logs, Events, statuses or ironhook bmc output', async () => {
    const env = cluster.env;
    const bmcs = bmcsOf(env);
    const namespace = await createNamespace(env, 'pool-canary');
    await apply(
      env,
      poolHostYAML(IPMI_HOST, CANARY, { bootMACAddress: IPMI_MAC, bmc: { address: bmcs.ipmi.address, credentialsName: `${IPMI_HOST}-bmc-secret` } }),
      namespace,
    );
    await waitForPoolState(env, namespace, IPMI_HOST, 'available');
    await apply(
      env,
      poolHostYAML('wrong-pw', 'not-the-canary', {
        bootMACAddress: redfishMAC('rf-0'),
        bmc: { address: bmcs.address('rf-0'), credentialsName: 'wrong-pw-bmc-secret' },
      }),
      namespace,
    );
    await waitFor(
      'a registration error for the wrong password',
      async () => ((await getJSON<{ status?: { errorType?: string } }>(env, namespace, 'bmh', 'wrong-pw')).status?.errorType ?? '') !== '',
      120_000,
      500,
    );
    const outputs = [
      await cli('check', bmcs.address('rf-0')),
      await cli('power', 'status', bmcs.address('rf-0')),
      await cli('inventory', bmcs.address('rf-0')),
      await cli('check', bmcs.ipmi.address),
      await cli('power', 'status', bmcs.ipmi.address),
      await cli('check', bmcs.address('rf-0').replace('127.0.0.1', '10.0.0.1')),
    ];
    expect(outputs[0]).toMatch(/usable|ok/iu);
    const logs = filesUnder(cluster.dir).filter((path) => path.endsWith('.log'));
    expect(logs.some((path) => path.endsWith('driver-pool.log'))).toBe(true);
    const leaks = logs.filter((path) => readFileSync(path, 'utf8').includes(CANARY));
    expect(leaks).toEqual([]);
    for (const kind of ['events', 'baremetalhosts', 'hostoperations', 'bmcmonitors', 'hardwaredata']) {
      const text = await env.kubectl('get', kind, '-A', '-o', 'json');
      expect({ kind, leaked: text.includes(CANARY) }).toEqual({ kind, leaked: false });
    }
    for (const output of outputs) {
      expect(output).not.toContain(CANARY);
    }
    await env.kubectl('delete', 'bmh', '--all', '-n', namespace, '--wait=false');
    await waitForGone(env, namespace, IPMI_HOST);
  }, 600_000);
});
