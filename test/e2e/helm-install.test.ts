// `helm install` for real: the chart with its Metacontroller dependency into a control plane
// with a real kubelet + containerd node (devenv/node.ts), images built by `npm run image` and
// imported into the node, never pulled. Metacontroller, the hook server and the driver pool run as
// the chart's pods; the test process only runs the emulated BMC, the image file server and the
// fake agent. A host goes from registering to provisioned and is deleted again entirely through
// those pods; `helm upgrade` rolls them without touching the host; `helm test` passes; `helm
// uninstall` leaves nothing but the CRDs (crds.keep, docs/helm.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBMCs, redfishMAC, type BMCs } from '../../devenv/bmcs.js';
import { clusterAPICRDFiles } from '../../devenv/capi.js';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import { kubectlFor } from '../../devenv/environment.js';
import { builtImages } from '../../devenv/images.js';
import { startNode, type Node } from '../../devenv/node.js';
import { waitFor } from '../../devenv/processes.js';
import { CHART_DIR, helm, NAMESPACE, prepareChart, RELEASE } from '../support/helm.js';
import { chooseLocalNodePorts, LOCAL_PROFILE, writeRunValues, type LocalNodePorts } from '../support/local-node.js';
import { apply, createNamespace, host, operations, poolHostYAML, waitForGone, waitForPoolState, type ClusterClient } from './support.js';

/** What a release could leave in its namespace. */
const NAMESPACED_KINDS = 'all,configmaps,secrets,serviceaccounts,roles,rolebindings,leases,networkpolicies,poddisruptionbudgets';
/** What every namespace has. */
const NAMESPACE_DEFAULTS = /^(configmap\/kube-root-ca\.crt|serviceaccount\/default)$/u;
const PASSWORD = 'canary-Helm-5d21c';
const HOST = 'rf-0';

let dir = '';
let plane: ControlPlane | undefined;
let node: Node | undefined;
let bmcs: BMCs | undefined;
let client: ClusterClient;
let ports: LocalNodePorts;
let installedAt = 0;
/** The namespace of the host the tests below take through its lifecycle. */
let hostNamespace = '';

async function helmOK(...args: string[]): Promise<string> {
  const res = await helm(args, plane!.kubeconfig);
  expect(res.code, `helm ${args.join(' ')}\n${res.stdout}\n${res.stderr}`).toBe(0);
  return res.stdout;
}

interface PodView {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { hostNetwork?: boolean; containers: { image: string }[] };
  status: { phase?: string; containerStatuses?: { ready: boolean; restartCount: number }[] };
}

async function releasePods(): Promise<PodView[]> {
  const list = JSON.parse(await client.kubectl('get', 'pods', '-n', NAMESPACE, '-o', 'json')) as { items: PodView[] };
  return list.items.filter((pod) => pod.metadata.labels?.['app.kubernetes.io/component'] !== 'test');
}

const componentOf = (pod: PodView): string => pod.metadata.labels?.['app.kubernetes.io/component'] ?? pod.metadata.labels?.['app.kubernetes.io/name'] ?? '';
const allReady = (pods: PodView[]): boolean => pods.length > 0 && pods.every((pod) => pod.status.containerStatuses?.every((c) => c.ready) === true);

beforeAll(async () => {
  const images = [...builtImages().values()];
  prepareChart();
  dir = mkdtempSync(join(tmpdir(), 'ironhook-helm-node-'));
  ports = await chooseLocalNodePorts();
  plane = await startControlPlane({ dir, node: true });
  client = { kubeconfig: plane.kubeconfig, ...kubectlFor(plane.kubeconfig) };
  node = await startNode({ controlPlane: plane, dir: join(dir, 'node'), images: images.map((image) => image.archives.docker.path) });
  bmcs = await startBMCs({ dir, password: PASSWORD });
  // A Cluster API management cluster has Cluster API's CRDs: the chart's defaults expect them.
  for (const file of await clusterAPICRDFiles()) await client.kubectl('apply', '--server-side', '-f', file);
}, 600_000);

afterAll(async () => {
  await bmcs?.close();
  await node?.stop();
  await plane?.stop();
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe('helm install on a real kubelet node', () => {
  it('runs Metacontroller, the hook server and the driver pool as pods with their probes passing', async () => {
    const started = Date.now();
    const values = writeRunValues(dir, ports, bmcs!.files);
    await helmOK('install', RELEASE, CHART_DIR, '-n', NAMESPACE, '--create-namespace', '-f', LOCAL_PROFILE, '-f', values, '--wait', '--timeout', '5m');
    installedAt = Date.now();
    process.stdout.write(`helm install --wait took ${String(installedAt - started)} ms\n`);
    const pods = await releasePods();
    expect(pods.map(componentOf).sort()).toEqual(['drivers', 'hooks', 'metacontroller']);
    // helm --wait alone must mean ready: a strategy that lets it count fewer pods fails here.
    expect(allReady(pods), JSON.stringify(pods.map((pod) => ({ pod: pod.metadata.name, status: pod.status })))).toBe(true);
    for (const pod of pods) {
      expect(pod.spec.hostNetwork, pod.metadata.name).toBe(true);
      expect(pod.spec.containers[0]?.image).toMatch(/^localhost\//u);
    }
    bmcs!.startAgents(`http://127.0.0.1:${String(ports.agent)}`);
  });

  it('takes a host from registering to provisioned through the in-cluster pods', async () => {
    const namespace = await createNamespace(client, 'helm-node');
    hostNamespace = namespace;
    const spec = { bootMACAddress: redfishMAC(HOST), bmc: { address: bmcs!.address(HOST), credentialsName: `${HOST}-bmc-secret` } };
    await apply(client, poolHostYAML(HOST, PASSWORD, spec), namespace);
    await waitForPoolState(client, namespace, HOST, 'available');
    expect(bmcs!.fleet.record(HOST).inspections).toBeGreaterThanOrEqual(1);
    const image = { url: bmcs!.files.diskURL, checksum: bmcs!.files.diskChecksumURL, checksumType: 'sha256', format: 'raw' };
    await client.kubectl('patch', 'bmh', HOST, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: { online: true, image } }));
    await waitForPoolState(client, namespace, HOST, 'provisioned');
    process.stdout.write(`helm install to ${HOST} provisioned: ${String(Date.now() - installedAt)} ms\n`);
    expect(bmcs!.fleet.record(HOST).images).toEqual([expect.objectContaining({ url: bmcs!.files.diskURL, digest: bmcs!.files.diskSHA256 })]);
  });

  it('rolls every pod on helm upgrade without touching the provisioned host', async () => {
    const namespace = hostNamespace;
    const before = await releasePods();
    const hostBefore = await host(client, namespace, HOST);
    const requestsBefore = (await operations(client, namespace)).map((op) => op.metadata.name);
    const values = writeRunValues(dir, ports, bmcs!.files);
    await helmOK(
      'upgrade',
      RELEASE,
      CHART_DIR,
      '-n',
      NAMESPACE,
      '-f',
      LOCAL_PROFILE,
      '-f',
      values,
      '--set',
      'hooks.logLevel=debug',
      '--set',
      'drivers.logLevel=debug',
      '--wait',
      '--timeout',
      '5m',
    );
    await waitFor('the upgraded pods ready', async () => allReady(await releasePods()), 120_000, 500);
    const after = await releasePods();
    const renamed = (component: string): boolean =>
      after.filter((p) => componentOf(p) === component).every((p) => !before.some((b) => b.metadata.name === p.metadata.name));
    expect(renamed('hooks') && renamed('drivers')).toBe(true);
    const hostAfter = await host(client, namespace, HOST);
    expect(hostAfter.status?.provisioning?.state).toBe('provisioned');
    expect(hostAfter.status?.errorType ?? '').toBe('');
    expect(hostBefore.status?.provisioning?.state).toBe('provisioned');
    const requestsAfter = (await operations(client, namespace)).map((op) => op.metadata.name);
    expect(requestsAfter.filter((name) => !requestsBefore.includes(name)).filter((name) => /provision|inspect/u.test(name))).toEqual([]);
    expect(bmcs!.fleet.record(HOST).images).toHaveLength(1);
  });

  it('passes helm test', async () => {
    // The test pods are deleted once they succeed (hook-delete-policy), so no --logs.
    const out = await helmOK('test', RELEASE, '-n', NAMESPACE, '--timeout', '3m');
    expect(out).toMatch(/TEST SUITE: +ironhook-test-hooks-ready[\s\S]*Phase: +Succeeded/u);
  });

  it('deprovisions and deletes the host, then helm uninstall leaves only the CRDs', async () => {
    const namespace = hostNamespace;
    await client.kubectl('delete', 'bmh', HOST, '-n', namespace, '--wait=false');
    await waitForGone(client, namespace, HOST, 240_000);
    expect(bmcs!.redfish.system(HOST).powerState).toBe('Off');
    await waitFor("the host's requests garbage-collected", async () => (await operations(client, namespace)).length === 0, 60_000, 500);
    await helmOK('uninstall', RELEASE, '-n', NAMESPACE);
    // Polled here rather than with --wait, so a failure names what is left.
    let leftovers: string[] = [];
    await waitFor(
      'the release namespace empty but for its defaults',
      async () => {
        leftovers = (await client.kubectl('get', NAMESPACED_KINDS, '-n', NAMESPACE, '-o', 'name'))
          .split('\n')
          .filter((line) => line !== '' && !NAMESPACE_DEFAULTS.test(line));
        return leftovers.length === 0;
      },
      180_000,
      1000,
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; left: ${leftovers.join(', ')}`);
    });
    const labelled = `app.kubernetes.io/instance=${RELEASE}`;
    const clusterScoped = await client.kubectl(
      'get',
      'clusterroles,clusterrolebindings,compositecontrollers,decoratorcontrollers,validatingadmissionpolicies,validatingadmissionpolicybindings',
      '-l',
      labelled,
      '-o',
      'name',
    );
    expect(clusterScoped.trim()).toBe('');
    const crds = await client.kubectl('get', 'crd', '-o', 'name');
    expect(crds).toContain('customresourcedefinition.apiextensions.k8s.io/baremetalhosts.metal3.io');
  });
});
