// A real node (devenv/node.ts) beside a control plane in node mode: Debian's containerd and the
// kubelet v1.36.3 on 127.0.0.1 run the images `npm run image` exports (docs/dev/real-node.md).
// Fails, never skips, when the kubelet, containerd or the image archives are missing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { kubectlOrThrow } from '../../devenv/environment.js';
import { localImageArchives } from '../../devenv/images.js';
import { NODE_NAME, SANDBOX_IMAGE, startNode } from '../../devenv/node.js';
import type { Node } from '../../devenv/node.js';
import { ctr, kubepodsCgroups, MOUNT_ROOTS, mountsUnder, nodeSlot } from '../../devenv/node-host.js';
import { isAlive, waitFor } from '../../devenv/processes.js';

const NAMESPACE = 'node-e2e';
const PAUSE = SANDBOX_IMAGE;
const IRONHOOK = 'localhost/ironhook:0.1.0';

let dir = '';
let plane: ControlPlane | undefined;
let node: Node | undefined;

const kubectl = async (...args: string[]): Promise<string> => kubectlOrThrow(plane!.kubeconfig, args);
const apply = async (object: unknown): Promise<string> => kubectlOrThrow(plane!.kubeconfig, ['apply', '-n', NAMESPACE, '-f', '-'], JSON.stringify(object));
const getJSON = async <T>(...what: string[]): Promise<T> => JSON.parse(await kubectl('get', '-n', NAMESPACE, ...what, '-o', 'json')) as T;

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  ports?: { containerPort: number; hostPort?: number }[];
}
interface PodView {
  metadata: { name: string };
  spec: { hostNetwork?: boolean; dnsPolicy?: string; nodeName?: string; containers: Container[]; initContainers?: Container[]; volumes?: { name: string }[] };
  status: { phase?: string; podIP?: string };
}

/** The pause image and the ironhook image (Node.js, for a client inside a pod), from ~/.cache/ironhook/images. */
function images(): string[] {
  const archives = localImageArchives();
  return ['pause', 'ironhook'].map((name) => {
    const archive = archives.find((path) => basename(path) === `${name}.docker.tar`);
    if (archive === undefined) throw new Error(`no ${name}.docker.tar among ${archives.join(', ') || 'the image archives'}: build them with npm run image`);
    return archive;
  });
}

const pauseDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'pause' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'pause' } },
    template: {
      metadata: { labels: { app: 'pause' } },
      spec: { containers: [{ name: 'pause', image: PAUSE, imagePullPolicy: 'Never', ports: [{ containerPort: 18555 }] }] },
    },
  },
};

const apiserverEnv = (container: Container): Record<string, string | undefined> =>
  Object.fromEntries((container.env ?? []).filter((entry) => entry.name.startsWith('KUBERNETES_SERVICE_')).map((entry) => [entry.name, entry.value]));

async function podsOf(label: string): Promise<PodView[]> {
  return (await getJSON<{ items: PodView[] }>('pods', '-l', label)).items;
}

/** The pod's containers (the kubelet labels them) that still run in containerd; the kubelet removes stopped ones only at its next container GC. */
async function runningContainers(pod: string, slot = nodeSlot(0)): Promise<string[]> {
  const ids = (await ctr(['containers', 'ls', '-q', `labels."io.kubernetes.pod.name"==${pod}`], slot)).split('\n').filter((line) => line !== '');
  const running = (await ctr(['tasks', 'ls'], slot))
    .split('\n')
    .map((line) => line.trim().split(/\s+/u))
    .filter((fields) => fields[2] === 'RUNNING')
    .map((fields) => fields[0]);
  return ids.filter((id) => running.includes(id));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-node-'));
  const archives = images();
  const started = Date.now();
  plane = await startControlPlane({ dir: join(dir, 'control-plane'), node: true });
  const planeReady = Date.now();
  node = await startNode({ controlPlane: plane, dir: join(dir, 'node'), images: archives });
  process.stderr.write(`node e2e: control plane (node mode) ${String(planeReady - started)} ms, node Ready after ${String(Date.now() - planeReady)} ms\n`);
  await kubectl('create', 'namespace', NAMESPACE);
});

afterAll(async () => {
  await node?.stop();
  await plane?.stop();
  if (process.env.KEEP_TEST_DIR === undefined && dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('a real kubelet and containerd node on 127.0.0.1', () => {
  it('registers as 127.0.0.1 (kubelet v1.36.3, InternalIP 127.0.0.1) and is Ready', async () => {
    const view = JSON.parse(await kubectl('get', 'node', NODE_NAME, '-o', 'json')) as {
      status: { addresses: { type: string; address: string }[]; nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string } };
    };
    expect(view.status.nodeInfo.kubeletVersion).toBe('v1.36.3');
    expect(view.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.6\./u);
    expect(view.status.addresses).toContainEqual({ type: 'InternalIP', address: '127.0.0.1' });
  });

  it('refuses a second node while this one runs', async () => {
    await expect(startNode({ controlPlane: plane!, dir: join(dir, 'second'), images: images() })).rejects.toThrow(/another local node is running/u);
  });

  it('runs a Deployment of the pause image as a host-network pod pointed at the apiserver on 127.0.0.1', async () => {
    await apply(pauseDeployment);
    await kubectl('rollout', 'status', '-n', NAMESPACE, 'deployment/pause', '--timeout=120s');
    const [pod] = await podsOf('app=pause');
    expect(pod?.spec.nodeName).toBe(NODE_NAME);
    expect(pod?.spec.hostNetwork).toBe(true);
    expect(pod?.spec.dnsPolicy).toBe('Default');
    expect(pod?.status.podIP).toBe('127.0.0.1');
    expect(pod?.spec.containers[0]?.ports?.[0]).toMatchObject({ containerPort: 18555, hostPort: 18555 });
    expect(apiserverEnv(pod!.spec.containers[0]!)).toEqual({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(plane!.node!.port) });
    // The Deployment keeps its template as written: only the pods are changed.
    const deployment = await getJSON<{ spec: { template: { spec: { hostNetwork?: boolean } } } }>('deployment', 'pause');
    expect(deployment.spec.template.spec.hostNetwork).toBeUndefined();
  });

  it('gives a pod its ServiceAccount token and kube-root-ca.crt, with which it reaches the apiserver from inside', async () => {
    // A self-subject review is allowed for every authenticated user: it answers who the token is.
    const script = [
      "const fs = require('fs'); const dir = '/var/run/secrets/kubernetes.io/serviceaccount';",
      'const { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port } = process.env;',
      "const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });",
      "const req = require('https').request({ host, port, method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', ca: fs.readFileSync(dir + '/ca.crt'),",
      "  headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8'), 'content-type': 'application/json' } }, (res) => {",
      "  let text = ''; res.on('data', (chunk) => { text += chunk; });",
      "  res.on('end', () => { console.log(JSON.parse(text).status.userInfo.username); process.exit(res.statusCode === 201 ? 0 : 1); }); });",
      "req.on('error', (error) => { console.error(error.message); process.exit(2); }); req.end(body);",
    ].join('\n');
    const check = { name: 'whoami', image: IRONHOOK, imagePullPolicy: 'Never', command: ['node', '-e', script] };
    const init = { name: 'init', image: IRONHOOK, imagePullPolicy: 'Never', command: ['node', '-e', 'process.exit(0)'] };
    await waitFor(
      'kube-root-ca.crt in the namespace',
      async () => (await kubectl('get', 'configmap', '-n', NAMESPACE, 'kube-root-ca.crt', '-o', 'name')) !== '',
    );
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'whoami' }, spec: { restartPolicy: 'Never', initContainers: [init], containers: [check] } });
    let pod: PodView | undefined;
    await waitFor(
      'pod whoami to finish',
      async () => {
        pod = await getJSON<PodView>('pod', 'whoami');
        return pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed';
      },
      120_000,
      250,
    );
    const logs = await kubectl('logs', '-n', NAMESPACE, 'whoami');
    expect({ phase: pod?.status.phase, logs: logs.trim() }).toEqual({ phase: 'Succeeded', logs: `system:serviceaccount:${NAMESPACE}:default` });
    expect(pod?.spec.volumes?.some((volume) => volume.name.startsWith('kube-api-access-'))).toBe(true);
    expect(apiserverEnv(pod!.spec.initContainers![0]!)).toEqual({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(plane!.node!.port) });
  });

  it("a second node in its own slot, joined to a second control plane, runs pods beside the first and stops without touching the first's", async () => {
    const slot = nodeSlot(1);
    const second = await startControlPlane({ dir: join(dir, 'second-plane'), node: true });
    let secondNode: Node | undefined;
    try {
      secondNode = await startNode({ controlPlane: second, dir: join(dir, 'second-node'), images: images(), slot: 1 });
      const kubectl2 = async (...args: string[]): Promise<string> => kubectlOrThrow(second.kubeconfig, args);
      await kubectl2('create', 'namespace', NAMESPACE);
      // Both nodes' pods are host-network pods: the second one's listens on another port.
      const deployment = structuredClone(pauseDeployment);
      deployment.spec.template.spec.containers[0]!.ports[0]!.containerPort = 18556;
      await kubectlOrThrow(second.kubeconfig, ['apply', '-n', NAMESPACE, '-f', '-'], JSON.stringify(deployment));
      await kubectl2('rollout', 'status', '-n', NAMESPACE, 'deployment/pause', '--timeout=120s');
      const pod = (JSON.parse(await kubectl2('get', 'pods', '-n', NAMESPACE, '-l', 'app=pause', '-o', 'json')) as { items: PodView[] }).items[0]!;
      expect(await runningContainers(pod.metadata.name, slot)).not.toEqual([]);
      expect(await runningContainers(pod.metadata.name)).toEqual([]);
      expect(kubepodsCgroups(slot)).not.toEqual([]);
      await secondNode.stop();
      secondNode = undefined;
      expect(mountsUnder(slot.mountRoots)).toEqual([]);
      expect(kubepodsCgroups(slot)).toEqual([]);
      // The first node's pod runs on.
      const [first] = await podsOf('app=pause');
      expect(await runningContainers(first!.metadata.name)).not.toEqual([]);
      expect(kubepodsCgroups()).not.toEqual([]);
    } finally {
      await secondNode?.stop();
      await second.stop();
    }
  });

  it('deletes: the Deployment goes, and the kubelet stops its pod and containers', async () => {
    const [pod] = await podsOf('app=pause');
    expect(await runningContainers(pod!.metadata.name)).not.toEqual([]);
    await kubectl('delete', 'deployment', '-n', NAMESPACE, 'pause', '--wait=true');
    await waitFor('the pause pod gone', async () => (await podsOf('app=pause')).length === 0, 60_000, 250);
    await waitFor('its containers stopped in containerd', async () => (await runningContainers(pod!.metadata.name)).length === 0, 60_000, 250);
  });

  it('stops: pods deleted, kubelet and containerd gone, nothing mounted and no kubepods cgroups left', async () => {
    const started = Date.now();
    await node!.stop();
    process.stderr.write(`node e2e: stop took ${String(Date.now() - started)} ms\n`);
    expect(node!.processes.filter((process) => isAlive(process.pid))).toEqual([]);
    node = undefined;
    expect(mountsUnder([...MOUNT_ROOTS, dir])).toEqual([]);
    expect(kubepodsCgroups()).toEqual([]);
    expect((await kubectl('get', 'pods', '--all-namespaces', '-o', 'name')).trim()).toBe('');
  });
});
