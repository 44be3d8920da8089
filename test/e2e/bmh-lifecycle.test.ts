// The BareMetalHost lifecycle through a real kube-apiserver and a real Metacontroller. The
// test plays the driver pool by writing request statuses (until the pool exists); everything
// else (hooks, Metacontroller, finalizers, children, the annotation decorator) is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import {
  apply,
  createNamespace,
  host,
  monitor,
  openCluster,
  operations,
  start,
  succeed,
  waitForHookSync,
  waitForHost,
  waitForRequest,
  waitForState,
} from './support.js';

const CREDS = (namespace: string, host = 'server-01'): Record<string, string> => ({ name: `${host}-bmc-secret`, namespace, credentialsVersion: '1' });
const IMAGE = {
  url: 'http://127.0.0.1:8088/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8088/images/ubuntu.qcow2.sha256sum',
  checksumType: 'sha256',
  format: 'qcow2',
};
const HARDWARE = { cpu: { arch: 'x86_64', count: 2 }, ramMebibytes: 4096, nics: [{ name: 'eth0', mac: '00:5c:52:31:3a:9c', pxe: true }] };

/** A host whose BMC address is loopback: nothing is contacted (no driver pool runs here). */
function hostYAML(name: string, extra = ''): string {
  return `apiVersion: v1
kind: Secret
metadata: {name: ${name}-bmc-secret}
type: Opaque
stringData: {username: admin, password: e2e-not-a-real-password}
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata: {name: ${name}}
spec:
  online: false
  bootMACAddress: "00:5c:52:31:3a:9c"
  bmc: {address: "ipmi://127.0.0.1:6230", credentialsName: ${name}-bmc-secret}
${extra}`;
}

let cluster: Cluster;

beforeAll(async () => {
  // Debug logs carry one line per hook call with the parent's resourceVersion (waitForHookSync).
  cluster = await openCluster({ hookEnv: { LOG_LEVEL: 'debug' } });
});

afterAll(async () => {
  await cluster.close();
});

/** Drive a new host through registration and inspection to available. */
async function bringToAvailable(namespace: string, name: string): Promise<void> {
  const env = cluster.env;
  await apply(env, hostYAML(name), namespace);
  const register = await waitForRequest(env, namespace, 'Register');
  await waitForState(env, namespace, name, 'registering');
  await succeed(env, namespace, register, { credentials: CREDS(namespace, name), poweredOn: false, provisioningID: 'e2e-node' });
  await monitor(env, namespace, name, { poweredOn: false, credentials: CREDS(namespace, name) });
  const inspect = await waitForRequest(env, namespace, 'Inspect');
  await start(env, namespace, inspect, 'booting the agent');
  await waitForState(env, namespace, name, 'inspecting');
  await succeed(env, namespace, inspect, { hardware: HARDWARE, poweredOn: false });
  await waitForState(env, namespace, name, 'available');
}

describe('BareMetalHost lifecycle through Metacontroller', () => {
  it('registers, inspects, provisions and deletes a host', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'lifecycle');
    await bringToAvailable(namespace, 'server-01');
    const hardwareData = JSON.parse(await env.kubectl('get', 'hardwaredata', 'server-01', '-n', namespace, '-o', 'json')) as { spec: { hardware: unknown } };
    expect(hardwareData.spec.hardware).toEqual(HARDWARE);

    const userData = { name: 'server-01-user-data' };
    await env.kubectl('patch', 'bmh', 'server-01', '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: { online: true, image: IMAGE, userData } }));
    const provision = await waitForRequest(env, namespace, 'Provision');
    expect((await host(env, namespace, 'server-01')).status?.provisioning?.state).toBe('available');
    await start(env, namespace, provision, 'writing the image');
    await waitForState(env, namespace, 'server-01', 'provisioning');
    await succeed(env, namespace, provision, { poweredOn: true });
    const provisioned = await waitForState(env, namespace, 'server-01', 'provisioned');
    expect(provisioned.status?.operationalStatus).toBe('OK');
    // What was provisioned is recorded; changing userData afterwards warns instead of doing nothing silently.
    expect((provisioned.status as { ironhook?: { provisionedData?: unknown } }).ironhook?.provisionedData).toEqual({ userData: { ...userData, namespace } });
    await env.kubectl(
      'patch',
      'bmh',
      'server-01',
      '-n',
      namespace,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { userData: { name: 'server-01-user-data-v2' } } }),
    );
    const outOfDate = await waitForHost(env, namespace, 'server-01', {
      what: 'the ProvisionedDataOutOfDate condition',
      check: (view) => view.status?.conditions?.some((item) => item.type === 'ProvisionedDataOutOfDate' && item.status === 'True') === true,
    });
    expect(outOfDate.status?.conditions?.find((item) => item.type === 'ProvisionedDataOutOfDate')?.message).toMatch(
      /^spec\.userData changed from Secret .+\/server-01-user-data to Secret .+\/server-01-user-data-v2 since the host was provisioned/u,
    );

    await env.kubectl('delete', 'bmh', 'server-01', '-n', namespace, '--wait=false');
    const deprovision = await waitForRequest(env, namespace, 'Deprovision');
    await start(env, namespace, deprovision, 'erasing disk metadata');
    await waitForState(env, namespace, 'server-01', 'deprovisioning');
    await succeed(env, namespace, deprovision, { poweredOn: true });
    const powerOff = await waitForRequest(env, namespace, 'PowerOff');
    await succeed(env, namespace, powerOff, { poweredOn: false });
    const release = await waitForRequest(env, namespace, 'Delete');
    await succeed(env, namespace, release);
    await waitForHostGone(namespace, 'server-01');
  });

  it('shows upstream columns in kubectl get bmh and -o wide', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'columns');
    await apply(env, hostYAML('server-02'), namespace);
    await waitForRequest(env, namespace, 'Register');
    // Metacontroller writes the parent's status after its children, through its client rate limit.
    await waitForState(env, namespace, 'server-02', 'registering');
    const plain = (await env.kubectl('get', 'bmh', '-n', namespace)).split('\n')[0]?.trim().split(/\s+/u);
    expect(plain).toEqual(['NAME', 'STATE', 'CONSUMER', 'ONLINE', 'ERROR', 'AGE']);
    const wide = (await env.kubectl('get', 'bmh', '-n', namespace, '-o', 'wide')).split('\n');
    expect(wide[0]?.trim().split(/\s+/u)).toEqual(['NAME', 'STATUS', 'STATE', 'CONSUMER', 'BMC', 'ONLINE', 'ERROR', 'AGE']);
    expect(wide[1]).toMatch(/server-02\s+OK\s+registering\s+ipmi:\/\/127\.0\.0\.1:6230\s+false/u);
  });

  it('leaves a paused host alone and resumes when the annotation goes', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'paused');
    await apply(env, hostYAML('server-03'), namespace);
    const register = await waitForRequest(env, namespace, 'Register');
    await env.kubectl('annotate', 'bmh', 'server-03', '-n', namespace, 'baremetalhost.metal3.io/paused=e2e');
    await succeed(env, namespace, register, { credentials: CREDS(namespace, 'server-03'), poweredOn: false });
    await monitor(env, namespace, 'server-03', { poweredOn: false, credentials: CREDS(namespace, 'server-03') });
    // A touch after both request outcomes: once the hook has synced a parent this new, it has been
    // handed them (or a later version) and answered "unchanged" for the paused host.
    await env.kubectl('annotate', 'bmh', 'server-03', '-n', namespace, 'e2e.ironhook.dev/touched=1');
    const touched = await host(env, namespace, 'server-03');
    await waitForHookSync(env, { controller: 'baremetalhost', namespace, name: 'server-03', resourceVersion: touched.metadata.resourceVersion });
    expect((await operations(env, namespace)).map((item) => item.spec.action)).toEqual(['Register']);
    expect((await host(env, namespace, 'server-03')).status?.provisioning?.state).toBe('registering');
    await env.kubectl('annotate', 'bmh', 'server-03', '-n', namespace, 'baremetalhost.metal3.io/paused-');
    await waitForRequest(env, namespace, 'Inspect');
  });

  it('writes a blank status for a host created paused, requests nothing, and registers it once unpaused', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'created-paused');
    await apply(
      env,
      hostYAML('server-07').replace('metadata: {name: server-07}', 'metadata: {name: server-07, annotations: {baremetalhost.metal3.io/paused: e2e}}'),
      namespace,
    );
    // The API server accepts that status (the CRD requires its fields): no SyncError, no request.
    const blank = await waitForHost(env, namespace, 'server-07', { what: 'a blank status', check: (view) => view.status?.operationalStatus === '' });
    expect(blank.status?.provisioning?.state).toBe('');
    await waitForHookSync(env, { controller: 'baremetalhost', namespace, name: 'server-07', resourceVersion: blank.metadata.resourceVersion });
    expect(await operations(env, namespace)).toEqual([]);
    const events = JSON.parse(await env.kubectl('get', 'events', '-n', namespace, '-o', 'json')) as { items: { type: string; reason: string }[] };
    expect(events.items.filter((event) => event.type === 'Warning').map((event) => event.reason)).toEqual([]);
    await env.kubectl('annotate', 'bmh', 'server-07', '-n', namespace, 'baremetalhost.metal3.io/paused-');
    await waitForRequest(env, namespace, 'Register');
  });

  it('detaches an available host and re-attaches it', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'detach');
    await bringToAvailable(namespace, 'server-04');
    await env.kubectl('annotate', 'bmh', 'server-04', '-n', namespace, 'baremetalhost.metal3.io/detached=');
    const detach = await waitForRequest(env, namespace, 'Detach');
    await succeed(env, namespace, detach);
    await waitForHost(env, namespace, 'server-04', { what: 'operationalStatus detached', check: (view) => view.status?.operationalStatus === 'detached' });
    await env.kubectl('annotate', 'bmh', 'server-04', '-n', namespace, 'baremetalhost.metal3.io/detached-');
    const register = await waitForRequest(env, namespace, 'Register');
    await succeed(env, namespace, register, { credentials: CREDS(namespace, 'server-04'), poweredOn: false });
    await waitForHost(env, namespace, 'server-04', { what: 'operationalStatus OK', check: (view) => view.status?.operationalStatus === 'OK' });
  });

  it('consumes a reboot annotation: off, annotation removed by the decorator, on again', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'reboot');
    await bringToAvailable(namespace, 'server-05');
    await env.kubectl('patch', 'bmh', 'server-05', '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: { online: true } }));
    const powerOn = await waitForRequest(env, namespace, 'PowerOn');
    await succeed(env, namespace, powerOn, { poweredOn: true });
    await waitForHost(env, namespace, 'server-05', { what: 'powered on', check: (view) => view.status?.poweredOn === true });
    await env.kubectl('annotate', 'bmh', 'server-05', '-n', namespace, 'reboot.metal3.io={"force":true}');
    const powerOff = await waitForRequest(env, namespace, 'PowerOff');
    await succeed(env, namespace, powerOff, { poweredOn: false });
    await waitForHost(env, namespace, 'server-05', {
      what: 'reboot annotation removed',
      check: (view) => view.metadata.annotations?.['reboot.metal3.io'] === undefined,
    });
    const again = await waitForRequest(env, namespace, 'PowerOn');
    expect(again).not.toBe(powerOn);
  });

  it('survives a hook server restart mid-lifecycle with the same outcome', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'restart');
    await apply(env, hostYAML('server-06'), namespace);
    const register = await waitForRequest(env, namespace, 'Register');
    await env.restartHooks();
    await succeed(env, namespace, register, { credentials: CREDS(namespace, 'server-06'), poweredOn: false });
    await monitor(env, namespace, 'server-06', { poweredOn: false, credentials: CREDS(namespace, 'server-06') });
    const inspect = await waitForRequest(env, namespace, 'Inspect');
    await env.restartHooks();
    await succeed(env, namespace, inspect, { hardware: HARDWARE, poweredOn: false });
    await waitForState(env, namespace, 'server-06', 'available');
    expect((await operations(env, namespace)).map((item) => item.metadata.name)).toEqual(['server-06-inspect-2']);
  });
});

async function waitForHostGone(namespace: string, name: string): Promise<void> {
  await waitFor(`${name} deleted`, async () => (await cluster.env.kubectlResult('get', 'bmh', name, '-n', namespace)).code !== 0, 60_000, 250);
}
