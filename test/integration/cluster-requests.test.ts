// The Cluster API request runner (drivers/cluster) against two real kube-apiservers: a
// management cluster with the BareMetalHost, Cluster API Machine and request CRDs, and a workload
// cluster whose kubeconfig sits in the `<cluster>-kubeconfig` Secret like Cluster API writes it.
// The runner runs in-process on a manual clock (waiting and back-off are advanced, never slept);
// its watches run on the system clock.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTime } from '../../domain/backoff.js';
import type { ConditionUpsert, JsonPatchOperation, NodeOperation, NodeOperationSpec, ObjectPatch, PatchTarget } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import type { ClusterRequestSettings } from '../../drivers/cluster/config.js';
import { createClusterRequestMetrics } from '../../drivers/cluster/metrics.js';
import { KubeApi, verifiedTLS } from '../../drivers/kube/api.js';
import { KubeStatusError, isNotFound } from '../../drivers/kube/errors.js';
import { jsonPatchTarget, readTarget } from '../../drivers/cluster/objects.js';
import { ClusterRequestRunner, managementCluster } from '../../drivers/cluster/runner.js';
import { EventRecorder } from '../../drivers/pool/events.js';
import type { TargetRef } from '../../drivers/cluster/targets.js';
import { ManualClock, systemClock } from '../../drivers/pool/clock.js';
import { loadKubeConfig } from '../../drivers/kube/client.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { clusterAPICRDFiles } from '../../devenv/capi.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { REPO_ROOT } from '../../devenv/environment.js';
import { LogCapture } from '../support/fake-driver.js';
import { binary, waitFor } from '../../devenv/processes.js';

const CLUSTER = 'workload';
const SETTINGS: ClusterRequestSettings = {
  enabled: true,
  namespaces: [],
  concurrency: 4,
  nodeRecheckMs: 10_000,
  apiTimeoutMs: 10_000,
  maxBackoffMs: 120_000,
  watchLivenessMs: 60_000,
  watchTimeoutSeconds: 60,
  shutdownTimeoutMs: 2_000,
};

let dir = '';
let management: ControlPlane;
let workload: ControlPlane;
let api: KubeApi;
let nodes: KubeApi;
let objects: KubernetesObjectApi;
let workloadObjects: KubernetesObjectApi;
let clock: ManualClock;
let runner: ClusterRequestRunner | undefined;
const planes: ControlPlane[] = [];
let logs: LogCapture;
let namespaceCounter = 0;

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args]);
  return stdout;
}

function startRunner(capture: LogCapture): ClusterRequestRunner {
  const logger = createLogger({ level: 'debug', destination: capture });
  const cluster = managementCluster(loadKubeConfig(management.kubeconfig), SETTINGS, systemClock, logger);
  return new ClusterRequestRunner({
    ...cluster,
    clock,
    logger,
    metrics: createClusterRequestMetrics(new Registry()),
    settings: SETTINGS,
    events: new EventRecorder({ kube: cluster.kube, clock, windowMs: 600_000, instance: 'cluster-requests-test', logger }),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-capi-requests-'));
  mkdirSync(join(dir, 'management'));
  mkdirSync(join(dir, 'workload'));
  management = await startControlPlane({ dir: join(dir, 'management'), controllerManager: false });
  planes.push(management);
  workload = await startControlPlane({ dir: join(dir, 'workload'), controllerManager: false });
  planes.push(workload);
  const crds = ['ironhook.dev_objectpatches.yaml', 'ironhook.dev_nodeoperations.yaml', 'metal3.io_baremetalhosts.yaml'].map((file) =>
    join(REPO_ROOT, 'manifests', 'crds', file),
  );
  const machines = (await clusterAPICRDFiles()).filter((file) => file.endsWith('cluster.x-k8s.io_machines.yaml'));
  for (const file of [...crds, ...machines]) {
    await kubectl(management.kubeconfig, 'apply', '--server-side', '-f', file);
  }
  await kubectl(
    management.kubeconfig,
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    'objectpatches.ironhook.dev',
    'nodeoperations.ironhook.dev',
    'baremetalhosts.metal3.io',
    'machines.cluster.x-k8s.io',
  );
  api = new KubeApi(verifiedTLS(loadKubeConfig(management.kubeconfig)), 10_000);
  objects = KubernetesObjectApi.makeApiClient(loadKubeConfig(management.kubeconfig));
  // A just-established CRD answers 429 "storage is (re)initializing" for a moment.
  const served: [string, string, string][] = [
    ['metal3.io', 'v1alpha1', 'baremetalhosts'],
    ['cluster.x-k8s.io', 'v1beta2', 'machines'],
    ['ironhook.dev', 'v1alpha1', 'objectpatches'],
    ['ironhook.dev', 'v1alpha1', 'nodeoperations'],
  ];
  for (const [group, version, plural] of served) {
    await waitFor(
      `list ${plural}.${group}`,
      async () =>
        api.custom.listClusterCustomObject({ group, version, plural }).then(
          () => true,
          () => false,
        ),
      30_000,
      100,
    );
  }
  nodes = new KubeApi(verifiedTLS(loadKubeConfig(workload.kubeconfig)), 10_000);
  workloadObjects = KubernetesObjectApi.makeApiClient(loadKubeConfig(workload.kubeconfig));
  clock = new ManualClock();
  logs = new LogCapture();
  runner = startRunner(logs);
  await runner.start();
});

afterAll(async () => {
  await runner?.stop();
  for (const plane of planes.reverse()) {
    await plane.stop();
  }
  if (dir !== '') {
    rmSync(dir, { recursive: true, force: true });
  }
});

// --- objects ------------------------------------------------------------------------------------

async function namespace(withKubeconfig = true): Promise<string> {
  namespaceCounter += 1;
  const name = `capi-${String(process.pid)}-${String(namespaceCounter)}`;
  await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (withKubeconfig) {
    await createKubeconfigSecret(name);
  }
  return name;
}

async function createKubeconfigSecret(ns: string): Promise<void> {
  const value = readFileSync(workload.kubeconfig).toString('base64');
  await objects.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${CLUSTER}-kubeconfig`, namespace: ns },
    type: 'cluster.x-k8s.io/secret',
    data: { value },
  });
}

async function createHost(ns: string, name: string): Promise<KObject> {
  const body = {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: ns },
    spec: { online: false, bmc: { address: 'ipmi://192.0.2.10', credentialsName: `${name}-bmc` } },
  };
  return (await api.custom.createNamespacedCustomObject({ group: 'metal3.io', version: 'v1alpha1', namespace: ns, plural: 'baremetalhosts', body })) as KObject;
}

async function getObject(ref: TargetRef): Promise<KObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> }> {
  return readTarget(api, ref);
}

const hostRef = (ns: string, name: string): TargetRef => ({
  group: 'metal3.io',
  version: 'v1alpha1',
  plural: 'baremetalhosts',
  namespace: ns,
  name,
  status: false,
});
const hostTarget = (ns: string, name: string): PatchTarget => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: ns, name });

async function createPatch(ns: string, name: string, spec: ObjectPatch['spec']): Promise<void> {
  const body: ObjectPatch = { apiVersion: 'ironhook.dev/v1alpha1', kind: 'ObjectPatch', metadata: { name, namespace: ns }, spec };
  await api.custom.createNamespacedCustomObject({ group: 'ironhook.dev', version: 'v1alpha1', namespace: ns, plural: 'objectpatches', body });
}

async function createNodeOperation(ns: string, name: string, spec: Omit<NodeOperationSpec, 'cluster'>): Promise<void> {
  const body: NodeOperation = {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'NodeOperation',
    metadata: { name, namespace: ns },
    spec: { cluster: { name: CLUSTER }, ...spec },
  };
  await api.custom.createNamespacedCustomObject({ group: 'ironhook.dev', version: 'v1alpha1', namespace: ns, plural: 'nodeoperations', body });
}

async function requestStatus<T extends ObjectPatch | NodeOperation>(ns: string, plural: string, name: string): Promise<NonNullable<T['status']>> {
  const object = (await api.custom.getNamespacedCustomObject({ group: 'ironhook.dev', version: 'v1alpha1', namespace: ns, plural, name })) as T;
  return object.status ?? {};
}

async function waitForStatus<T extends ObjectPatch | NodeOperation>(
  ns: string,
  plural: string,
  name: string,
  done: (status: NonNullable<T['status']>) => boolean,
): Promise<NonNullable<T['status']>> {
  let status: NonNullable<T['status']> = {};
  await waitFor(
    `${plural}/${name}`,
    async () => {
      status = await requestStatus<T>(ns, plural, name);
      return done(status);
    },
    30_000,
    100,
  );
  return status;
}

const patchFinished = (ns: string, name: string) =>
  waitForStatus<ObjectPatch>(ns, 'objectpatches', name, (status) => status.phase === 'Succeeded' || status.phase === 'Failed');
const nodeOpFinished = (ns: string, name: string) =>
  waitForStatus<NodeOperation>(ns, 'nodeoperations', name, (status) => status.phase === 'Succeeded' || status.phase === 'Failed');
const nodeOpWaiting = (ns: string, name: string) => waitForStatus<NodeOperation>(ns, 'nodeoperations', name, (status) => status.phase === 'Pending');

interface NodeShape {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { providerID?: string };
}

async function createNode(
  name: string,
  labels: Record<string, string>,
  extra: { annotations?: Record<string, string>; providerID?: string } = {},
): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, ...(extra.annotations && { annotations: extra.annotations }) },
    spec: { ...(extra.providerID && { providerID: extra.providerID }) },
  };
  await workloadObjects.create(body);
}

async function getNode(name: string): Promise<NodeShape | undefined> {
  try {
    return (await nodes.call(`GET Node ${name}`, (options) => nodes.core.readNode({ name }, options))) as NodeShape;
  } catch (error) {
    if (isNotFound(error)) {
      return undefined;
    }
    throw error;
  }
}

const consumerRef = (machine: string, ns: string) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
  kind: 'Metal3Machine',
  namespace: ns,
  name: machine,
});

function claim(ns: string, machine: string, resourceVersion: string): JsonPatchOperation[] {
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
    { op: 'add', path: '/spec/consumerRef', value: consumerRef(machine, ns) },
  ];
}

// --- ObjectPatch ----------------------------------------------------------------------------------

describe('how kube-apiserver reports a failed test operation', () => {
  // Not "testing value ... failed": the json-patch error text stays inside the server. A patch
  // on a missing path gets the same answer, so the pool judges the tests on the object itself.
  it.each<{ name: string; operation: JsonPatchOperation }>([
    { name: 'failed test', operation: { op: 'test', path: '/spec/online', value: true } },
    { name: 'replace of a missing path', operation: { op: 'replace', path: '/spec/image/url', value: 'http://x' } },
  ])('$name: a bare 422 Invalid without details', async ({ operation }) => {
    const ns = await namespace(false);
    await createHost(ns, 'probe');
    const failure = await jsonPatchTarget(api, hostRef(ns, 'probe'), [operation]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(KubeStatusError);
    const { code, reason, message, causes } = failure as KubeStatusError;
    expect({ code, reason, message, causes }).toEqual({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      causes: [],
    });
  });
});

describe('ObjectPatch', () => {
  it('two machines racing for one host: one Applied, one TestFailed, consumerRef names the winner', async () => {
    const ns = await namespace(false);
    const host = await createHost(ns, 'host-0');
    const rv = host.metadata.resourceVersion ?? '';
    await Promise.all(
      ['m3m-a', 'm3m-b'].map((machine) => createPatch(ns, `${machine}-claim-1`, { target: hostTarget(ns, 'host-0'), operations: claim(ns, machine, rv) })),
    );
    const [a, b] = await Promise.all([patchFinished(ns, 'm3m-a-claim-1'), patchFinished(ns, 'm3m-b-claim-1')]);
    expect([a.reason, b.reason].sort()).toEqual(['Applied', 'TestFailed']);
    const winner = a.reason === 'Applied' ? 'm3m-a' : 'm3m-b';
    const [won, lost] = a.reason === 'Applied' ? [a, b] : [b, a];
    const after = await getObject(hostRef(ns, 'host-0'));
    expect(after.spec?.consumerRef).toEqual(consumerRef(winner, ns));
    expect(won).toMatchObject({ phase: 'Succeeded', resourceVersion: after.metadata.resourceVersion });
    expect(lost.phase).toBe('Failed');
    expect(lost.message).toBe('the test of /metadata/resourceVersion failed: the object changed since the request was made');
  });

  // prettier-ignore
  const OUTCOMES: { name: string; operations: (ns: string) => JsonPatchOperation[]; target?: (ns: string) => PatchTarget; phase: string; reason: string; message: RegExp }[] = [
    { name: 'missing host', operations: () => [{ op: 'add', path: '/spec/online', value: true }], target: (ns) => hostTarget(ns, 'no-such-host'), phase: 'Failed', reason: 'NotFound', message: /does not exist/u },
    { name: 'invalid host after the patch', operations: () => [{ op: 'replace', path: '/spec/online', value: 'yes' }], phase: 'Failed', reason: 'Rejected', message: /spec\.online/u },
    { name: 'enum violated', operations: () => [{ op: 'add', path: '/spec/automatedCleaningMode', value: 'sometimes' }], phase: 'Failed', reason: 'Rejected', message: /automatedCleaningMode/u },
    { name: 'kind outside the allowlist', operations: () => [{ op: 'add', path: '/data/x', value: 'y' }], target: (ns) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'any' }), phase: 'Failed', reason: 'Rejected', message: /not a kind the driver pool patches/u },
    { name: "another namespace's host", operations: () => [{ op: 'add', path: '/spec/online', value: true }], target: () => hostTarget('default', 'host-1'), phase: 'Failed', reason: 'Rejected', message: /is not the request's namespace/u },
    { name: 'status of a host', operations: () => [{ op: 'add', path: '/status/x', value: 1 }], target: (ns) => ({ ...hostTarget(ns, 'host-1'), subresource: 'status' }), phase: 'Failed', reason: 'Rejected', message: /does not patch the status/u },
    { name: 'failed test of a spec field', operations: () => [{ op: 'test', path: '/spec/online', value: true }, { op: 'add', path: '/spec/description', value: 'claimed' }], phase: 'Failed', reason: 'TestFailed', message: /test of \/spec\/online failed/u },
    { name: 'replace of a missing field', operations: () => [{ op: 'replace', path: '/spec/image/url', value: 'http://x' }], phase: 'Failed', reason: 'Rejected', message: /does not apply to the object/u },
    { name: 'passing test of a missing field (null)', operations: () => [{ op: 'test', path: '/spec/consumerRef', value: null }, { op: 'add', path: '/spec/description', value: 'rack 7' }], phase: 'Succeeded', reason: 'Applied', message: /patch applied/u },
    // What an earlier run would have written is there already: applied, whatever the test says now.
    { name: 'failed test, writes already in place', operations: () => [{ op: 'test', path: '/spec/online', value: true }, { op: 'replace', path: '/spec/online', value: false }], phase: 'Succeeded', reason: 'Applied', message: /already had the patch/u },
    { name: 'valid spec change', operations: () => [{ op: 'replace', path: '/spec/online', value: true }], phase: 'Succeeded', reason: 'Applied', message: /patch applied/u },
  ];

  it.each(OUTCOMES)('$name → $reason', async (row) => {
    const ns = await namespace(false);
    await createHost(ns, 'host-1');
    await createPatch(ns, 'p-1', { target: (row.target ?? ((n: string) => hostTarget(n, 'host-1')))(ns), operations: row.operations(ns) });
    const status = await patchFinished(ns, 'p-1');
    expect(status).toMatchObject({ phase: row.phase, reason: row.reason, completionTime: formatTime(clock.now()) });
    expect(status.message).toMatch(row.message);
    expect(status.error).toBeUndefined();
  });

  // prettier-ignore
  const SECRET_ROWS: { name: string; operations: JsonPatchOperation[]; reason: string; labels: Record<string, string> | undefined }[] = [
    { name: 'add a label (escaped key)', operations: [{ op: 'add', path: '/metadata/labels', value: {} }, { op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' }], reason: 'Applied', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
    { name: 'write data', operations: [{ op: 'add', path: '/data/password', value: 'aGk=' }], reason: 'Rejected', labels: undefined },
    { name: 'labels plus an annotation', operations: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }, { op: 'add', path: '/metadata/annotations', value: { a: 'b' } }], reason: 'Rejected', labels: undefined },
    { name: 'copy data into a label', operations: [{ op: 'copy', from: '/data/password', path: '/metadata/labels/leak' }], reason: 'Rejected', labels: undefined },
  ];

  it.each(SECRET_ROWS)('Secret: $name → $reason', async (row) => {
    const ns = await namespace(false);
    await objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'user-data', namespace: ns }, data: { password: 'c2VjcmV0' } });
    await createPatch(ns, 'label-1', { target: { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'user-data' }, operations: row.operations });
    expect((await patchFinished(ns, 'label-1')).reason).toBe(row.reason);
    const secret = await getObject({ group: '', version: 'v1', plural: 'secrets', namespace: ns, name: 'user-data', status: false });
    expect(secret.metadata.labels).toEqual(row.labels);
    expect((secret as unknown as { data: Record<string, string> }).data).toEqual({ password: 'c2VjcmV0' });
  });

  it('upserts a condition on a Machine status: created with its list, lastTransitionTime moves only with the status', async () => {
    const ns = await namespace(false);
    const machine = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: 'machine-0', namespace: ns },
      spec: {
        clusterName: CLUSTER,
        bootstrap: { dataSecretName: 'bootstrap' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: 'm3m-0' },
      },
    };
    await api.custom.createNamespacedCustomObject({ group: 'cluster.x-k8s.io', version: 'v1beta2', namespace: ns, plural: 'machines', body: machine });
    const target: PatchTarget = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', namespace: ns, name: 'machine-0', subresource: 'status' };
    const path: TargetRef = { group: 'cluster.x-k8s.io', version: 'v1beta2', plural: 'machines', namespace: ns, name: 'machine-0', status: false };
    const upsert = (status: 'True' | 'False', message: string): ConditionUpsert[] => [
      { path: '/status/conditions', condition: { type: 'HealthCheckSucceeded', status, reason: 'Remediating', message } },
    ];
    const conditionNow = async () => ((await getObject(path)).status?.conditions as Record<string, unknown>[]).find((c) => c.type === 'HealthCheckSucceeded');

    await createPatch(ns, 'cond-1', { target, operations: [], conditions: upsert('False', 'rebooting') });
    expect(await patchFinished(ns, 'cond-1')).toMatchObject({ phase: 'Succeeded', reason: 'Applied' });
    const first = formatTime(clock.now());
    expect(await conditionNow()).toEqual({
      type: 'HealthCheckSucceeded',
      status: 'False',
      reason: 'Remediating',
      message: 'rebooting',
      lastTransitionTime: first,
    });

    clock.advance(60_000);
    await createPatch(ns, 'cond-2', { target, operations: [], conditions: upsert('False', 'rebooted, waiting') });
    await patchFinished(ns, 'cond-2');
    expect(await conditionNow()).toMatchObject({ message: 'rebooted, waiting', lastTransitionTime: first });

    clock.advance(60_000);
    await createPatch(ns, 'cond-3', { target, operations: [], conditions: upsert('True', 'healthy') });
    const status = await patchFinished(ns, 'cond-3');
    expect(await conditionNow()).toMatchObject({ status: 'True', lastTransitionTime: formatTime(clock.now()) });
    expect(status.resourceVersion).toBe((await getObject(path)).metadata.resourceVersion);
  });

  it('a patch an earlier (crashed) run applied but never recorded is reported Applied, not TestFailed', async () => {
    const ns = await namespace(false);
    const host = await createHost(ns, 'host-2');
    const operations = claim(ns, 'm3m-c', host.metadata.resourceVersion ?? '');
    await jsonPatchTarget(api, hostRef(ns, 'host-2'), operations);
    await createPatch(ns, 'm3m-c-claim-1', { target: hostTarget(ns, 'host-2'), operations });
    const status = await patchFinished(ns, 'm3m-c-claim-1');
    expect(status).toMatchObject({ phase: 'Succeeded', reason: 'Applied' });
    expect(status.message).toMatch(/already had the patch/u);
  });

  it('a second runner (restart) leaves a finished request and its target alone', async () => {
    const ns = await namespace(false);
    const host = await createHost(ns, 'host-3');
    await createPatch(ns, 'm3m-d-claim-1', { target: hostTarget(ns, 'host-3'), operations: claim(ns, 'm3m-d', host.metadata.resourceVersion ?? '') });
    const before = await patchFinished(ns, 'm3m-d-claim-1');
    const hostBefore = await getObject(hostRef(ns, 'host-3'));
    const capture = new LogCapture();
    const second = startRunner(capture);
    await second.start();
    await second.idle();
    await second.stop();
    expect(await requestStatus<ObjectPatch>(ns, 'objectpatches', 'm3m-d-claim-1')).toEqual(before);
    expect((await getObject(hostRef(ns, 'host-3'))).metadata.resourceVersion).toBe(hostBefore.metadata.resourceVersion);
    expect(capture.text()).not.toMatch(/request finished/u);
  });
});

// --- NodeOperation ----------------------------------------------------------------------------------

describe('NodeOperation SetProviderID', () => {
  // prettier-ignore
  const ROWS: { name: string; node: { uuid?: string; hostnames?: string[] }; labels: Record<string, string>; current?: string; accepted?: string[]; phase: string; reason?: string; providerID: string }[] = [
    { name: 'by uuid label, empty providerID', node: { uuid: 'uuid-1' }, labels: { 'metal3.io/uuid': 'uuid-1' }, phase: 'Succeeded', providerID: 'metal3://ns/host/m3m' },
    { name: 'by hostname label', node: { hostnames: ['other', 'node-by-hostname'] }, labels: { 'kubernetes.io/hostname': 'node-by-hostname' }, phase: 'Succeeded', providerID: 'metal3://ns/host/m3m' },
    { name: 'already the same providerID', node: { uuid: 'uuid-3' }, labels: { 'metal3.io/uuid': 'uuid-3' }, current: 'metal3://ns/host/m3m', phase: 'Succeeded', providerID: 'metal3://ns/host/m3m' },
    { name: 'an accepted legacy providerID', node: { uuid: 'uuid-4' }, labels: { 'metal3.io/uuid': 'uuid-4' }, current: 'metal3://uuid-4', accepted: ['metal3://uuid-4'], phase: 'Succeeded', providerID: 'metal3://uuid-4' },
    { name: 'a different providerID', node: { uuid: 'uuid-5' }, labels: { 'metal3.io/uuid': 'uuid-5' }, current: 'metal3://elsewhere', phase: 'Failed', reason: 'ProviderIDMismatch', providerID: 'metal3://elsewhere' },
  ];

  it.each(ROWS)('$name → $phase', async (row) => {
    const ns = await namespace();
    const nodeName = `spid-${String(namespaceCounter)}`;
    await createNode(nodeName, row.labels, { providerID: row.current });
    await createNodeOperation(ns, 'spid-1', {
      action: 'SetProviderID',
      node: row.node,
      providerID: 'metal3://ns/host/m3m',
      ...(row.accepted && { acceptedProviderIDs: row.accepted }),
    });
    const status = await nodeOpFinished(ns, 'spid-1');
    expect(status).toMatchObject({ phase: row.phase, node: { name: nodeName } });
    expect(status.error?.reason).toBe(row.reason);
    expect((await getNode(nodeName))?.spec?.providerID).toBe(row.providerID);
  });

  it('two Nodes with the uuid label fail the request', async () => {
    const ns = await namespace();
    await createNode('twin-a', { 'metal3.io/uuid': 'uuid-twin' });
    await createNode('twin-b', { 'metal3.io/uuid': 'uuid-twin' });
    await createNodeOperation(ns, 'spid-1', { action: 'SetProviderID', node: { uuid: 'uuid-twin' }, providerID: 'metal3://x' });
    expect(await nodeOpFinished(ns, 'spid-1')).toMatchObject({ phase: 'Failed', error: { kind: 'Permanent', reason: 'MultipleNodes' } });
  });

  it('waits (observedTime, message) until the Node appears, then sets the providerID', async () => {
    const ns = await namespace();
    await createNodeOperation(ns, 'spid-1', { action: 'SetProviderID', node: { uuid: 'uuid-late' }, providerID: 'metal3://late' });
    const waiting = await nodeOpWaiting(ns, 'spid-1');
    expect(waiting).toMatchObject({ message: 'waiting for a Node with label metal3.io/uuid=uuid-late', observedTime: formatTime(clock.now()) });
    await createNode('late-node', { 'metal3.io/uuid': 'uuid-late' });
    clock.advance(SETTINGS.nodeRecheckMs);
    expect(await nodeOpFinished(ns, 'spid-1')).toMatchObject({
      phase: 'Succeeded',
      node: { name: 'late-node', providerID: 'metal3://late' },
      observedTime: formatTime(clock.now()),
    });
  });

  it('without the kubeconfig Secret: Pending with a transient error naming it, then proceeds once Cluster API wrote it', async () => {
    const ns = await namespace(false);
    await createNode('kc-node', { 'metal3.io/uuid': 'uuid-kc' });
    await createNodeOperation(ns, 'spid-1', { action: 'SetProviderID', node: { uuid: 'uuid-kc' }, providerID: 'metal3://kc' });
    const pending = await waitForStatus<NodeOperation>(ns, 'nodeoperations', 'spid-1', (status) => status.error !== undefined);
    expect(pending).toMatchObject({ phase: 'Pending', error: { kind: 'Transient', reason: 'KubeconfigNotFound' } });
    expect(pending.error?.message).toContain(`${ns}/${CLUSTER}-kubeconfig`);
    await createKubeconfigSecret(ns);
    clock.advance(SETTINGS.maxBackoffMs);
    expect(await nodeOpFinished(ns, 'spid-1')).toMatchObject({ phase: 'Succeeded', node: { name: 'kc-node' } });
    expect((await requestStatus<NodeOperation>(ns, 'nodeoperations', 'spid-1')).error).toBeUndefined();
    expect(logs.text()).not.toContain(readFileSync(workload.kubeconfig).toString('base64').slice(0, 40));
  });
});

describe('NodeOperation Fence and Restore', () => {
  it('Fence saves labels and annotations into status.node, then deletes the Node', async () => {
    const ns = await namespace();
    await createNode('fenced', { role: 'worker', 'metal3.io/uuid': 'uuid-f' }, { annotations: { note: 'keep me' }, providerID: 'metal3://f' });
    await createNodeOperation(ns, 'fence-1', { action: 'Fence', node: { name: 'fenced' } });
    const status = await nodeOpFinished(ns, 'fence-1');
    expect(status).toMatchObject({
      phase: 'Succeeded',
      node: { name: 'fenced', providerID: 'metal3://f', labels: { role: 'worker', 'metal3.io/uuid': 'uuid-f' }, annotations: { note: 'keep me' } },
    });
    expect(await getNode('fenced')).toBeUndefined();
  });

  it('Fence of a missing Node succeeds without status.node', async () => {
    const ns = await namespace();
    await createNodeOperation(ns, 'fence-1', { action: 'Fence', node: { name: 'never-there' } });
    const status = await nodeOpFinished(ns, 'fence-1');
    expect(status.phase).toBe('Succeeded');
    expect(status.node).toBeUndefined();
  });

  it('Restore waits for the re-created Node, then adds what it lacks (existing keys win)', async () => {
    const ns = await namespace();
    const restore = { labels: { role: 'worker', zone: 'b4' }, annotations: { note: 'keep me' } };
    await createNodeOperation(ns, 'restore-1', { action: 'Restore', node: { name: 'reborn' }, restore });
    expect(await nodeOpWaiting(ns, 'restore-1')).toMatchObject({ message: 'waiting for Node reborn to be re-created' });
    await createNode('reborn', { role: 'control-plane' });
    clock.advance(SETTINGS.nodeRecheckMs);
    expect(await nodeOpFinished(ns, 'restore-1')).toMatchObject({ phase: 'Succeeded', node: { name: 'reborn' } });
    const node = await getNode('reborn');
    expect(node?.metadata.labels).toEqual({ role: 'control-plane', zone: 'b4' });
    expect(node?.metadata.annotations).toEqual({ note: 'keep me' });
  });

  it("Restore puts the fenced Node's providerID back on a re-created Node without one, and leaves another one alone", async () => {
    const ns = await namespace();
    const restore = { labels: { role: 'worker' }, annotations: {} };
    await createNode('reborn-bare', {});
    await createNode('reborn-claimed', {}, { providerID: 'metal3://other' });
    await createNodeOperation(ns, 'restore-bare', { action: 'Restore', node: { name: 'reborn-bare' }, providerID: 'metal3://saved', restore });
    await createNodeOperation(ns, 'restore-claimed', { action: 'Restore', node: { name: 'reborn-claimed' }, providerID: 'metal3://saved', restore });
    expect(await nodeOpFinished(ns, 'restore-bare')).toMatchObject({ phase: 'Succeeded', node: { name: 'reborn-bare', providerID: 'metal3://saved' } });
    expect(await nodeOpFinished(ns, 'restore-claimed')).toMatchObject({ phase: 'Succeeded', node: { name: 'reborn-claimed', providerID: 'metal3://other' } });
    expect((await getNode('reborn-bare'))?.spec?.providerID).toBe('metal3://saved');
    expect((await getNode('reborn-claimed'))?.spec?.providerID).toBe('metal3://other');
    expect((await getNode('reborn-claimed'))?.metadata.labels).toEqual({ role: 'worker' });
  });
});

describe('NodeOperation SyncLabels', () => {
  it('makes the Node labels under the prefixes equal to the host labels, leaves the others', async () => {
    const ns = await namespace();
    await createNode('synced', { 'rack.example.com/row': 'r6', 'zone.example.com/name': 'z1', 'kubernetes.io/hostname': 'synced' });
    const syncLabels = { prefixes: ['rack.example.com', 'zone.example.com'], labels: { 'rack.example.com/row': 'r7' } };
    await createNodeOperation(ns, 'label-sync-1', { action: 'SyncLabels', node: { name: 'synced' }, syncLabels });
    expect(await nodeOpFinished(ns, 'label-sync-1')).toMatchObject({ phase: 'Succeeded', node: { name: 'synced' } });
    expect((await getNode('synced'))?.metadata.labels).toEqual({ 'rack.example.com/row': 'r7', 'kubernetes.io/hostname': 'synced' });
  });

  it('waits for a Node that does not exist yet', async () => {
    const ns = await namespace();
    const syncLabels = { prefixes: ['rack.example.com'], labels: { 'rack.example.com/row': 'r1' } };
    await createNodeOperation(ns, 'label-sync-1', { action: 'SyncLabels', node: { name: 'late' }, syncLabels });
    expect(await nodeOpWaiting(ns, 'label-sync-1')).toMatchObject({ message: 'waiting for Node late' });
    await createNode('late', {});
    clock.advance(SETTINGS.nodeRecheckMs);
    expect(await nodeOpFinished(ns, 'label-sync-1')).toMatchObject({ phase: 'Succeeded' });
    expect((await getNode('late'))?.metadata.labels).toEqual({ 'rack.example.com/row': 'r1' });
  });
});

describe('NodeOperation out-of-service taint', () => {
  const taintsOf = async (name: string) =>
    ((await nodes.call(`GET Node ${name}`, (options) => nodes.core.readNode({ name }, options))).spec?.taints ?? []).map(
      (t) => `${t.key}=${t.value ?? ''}:${t.effect}`,
    );

  it('taints the Node, waits for its VolumeAttachments to go, and the untaint keeps the other taints', async () => {
    const ns = await namespace();
    await createNode('oos', {});
    await nodes.call(
      'PATCH Node oos',
      (options) => nodes.core.patchNode({ name: 'oos', body: { spec: { taints: [{ key: 'other', effect: 'NoSchedule' }] } } }, options),
      'application/merge-patch+json',
    );
    const attachment = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'oos-volume' },
      spec: { attacher: 'csi.example.com', nodeName: 'oos', source: { persistentVolumeName: 'pv-1' } },
    };
    await workloadObjects.create(attachment);
    await createNodeOperation(ns, 'taint-1', { action: 'AddOutOfServiceTaint', node: { name: 'oos' } });
    expect(await nodeOpWaiting(ns, 'taint-1')).toMatchObject({ message: 'tainted Node oos out of service; waiting for its pods and volumes to go' });
    expect(await taintsOf('oos')).toEqual(['other=:NoSchedule', 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute']);
    clock.advance(SETTINGS.nodeRecheckMs);
    await waitForStatus<NodeOperation>(ns, 'nodeoperations', 'taint-1', (status) => (status.message ?? '').includes('VolumeAttachment oos-volume'));
    await workloadObjects.delete(attachment);
    clock.advance(SETTINGS.nodeRecheckMs);
    expect(await nodeOpFinished(ns, 'taint-1')).toMatchObject({ phase: 'Succeeded', node: { name: 'oos' } });
    await createNodeOperation(ns, 'untaint-1', { action: 'RemoveOutOfServiceTaint', node: { name: 'oos' } });
    expect(await nodeOpFinished(ns, 'untaint-1')).toMatchObject({ phase: 'Succeeded', message: 'removed the out-of-service taint from Node oos' });
    expect(await taintsOf('oos')).toEqual(['other=:NoSchedule']);
  });

  it('a missing Node: the taint and the untaint succeed without touching anything', async () => {
    const ns = await namespace();
    await createNodeOperation(ns, 'taint-1', { action: 'AddOutOfServiceTaint', node: { name: 'gone' } });
    expect(await nodeOpFinished(ns, 'taint-1')).toMatchObject({ phase: 'Succeeded', message: 'Node gone does not exist; nothing to taint' });
    await createNodeOperation(ns, 'untaint-1', { action: 'RemoveOutOfServiceTaint', node: { name: 'gone' } });
    expect(await nodeOpFinished(ns, 'untaint-1')).toMatchObject({ phase: 'Succeeded' });
  });
});

describe('NodeOperation Wait', () => {
  it('Pending until spec.until on the pool clock, then Succeeded then; no workload cluster needed', async () => {
    const ns = await namespace(false);
    const until = formatTime(clock.now() + 120_000);
    await createNodeOperation(ns, 'timeout-1', { action: 'Wait', node: {}, until });
    expect(await nodeOpWaiting(ns, 'timeout-1')).toMatchObject({ message: `waiting until ${until}` });
    clock.advance(120_000);
    expect(await nodeOpFinished(ns, 'timeout-1')).toMatchObject({ phase: 'Succeeded', completionTime: until });
  });

  it('the CRD refuses a Wait without spec.until, and a Fence without spec.node.name', async () => {
    const ns = await namespace();
    await expect(createNodeOperation(ns, 'timeout-1', { action: 'Wait', node: {} })).rejects.toThrow(/Wait needs spec\.until/u);
    await expect(createNodeOperation(ns, 'fence-1', { action: 'Fence', node: {} })).rejects.toThrow(
      /every action but SetProviderID and Wait needs spec\.node\.name/u,
    );
  });
});
