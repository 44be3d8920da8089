// A real node beside the local control plane: Debian's containerd (runc, cgroupfs, overlayfs) and
// the kubelet v1.36.3 (scripts/setup-test-binaries.sh), both on 127.0.0.1, joined to a control plane
// started in node mode (startControlPlane({ node: true })). Images come from docker-archive files
// (`npm run image`); nothing is pulled. One node per slot (devenv/node-host.ts): slot 0 has the
// kubelet's standard ports 10250/10248, /var/lib/kubelet, /run/containerd and the root kubepods
// cgroups; a second slot, for a second management cluster, has its own of each.
// docs/dev/real-node.md explains every setting and workaround.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import type { ControlPlane } from './controlplane.js';
import { makeClientCert } from './controlplane-node.js';
import type { NodeAccess } from './controlplane-node.js';
import { kubectlOrThrow } from './environment.js';
import { ctr, killLeftoverShims, makeCgroupRoot, nodeSlot, removeContainers, removeKubepodsCgroups, unmountAll } from './node-host.js';
import type { NodeSlot } from './node-host.js';
import { binary, isAlive, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';
import { makeLoopbackServingCert } from './tls.js';

/** The node's name, InternalIP and Hostname (`--hostname-override=127.0.0.1`). */
export const NODE_NAME = '127.0.0.1';
/** containerd's sandbox image, imported from an archive and never pulled. */
export const SANDBOX_IMAGE = 'localhost/pause:local';
const CNI_LOOPBACK = '/usr/lib/cni/loopback';

export interface NodeOptions {
  controlPlane: Pick<ControlPlane, 'kubeconfig' | 'server' | 'node'>;
  /** Working directory: configuration, credentials, containerd's root, logs, node.json. */
  dir: string;
  /** docker-archive files to import into containerd (k8s.io namespace); one must hold localhost/pause:local. */
  images: string[];
  /** Leave containerd and the kubelet running after this Node process exits (scripts/env.ts). */
  detached?: boolean;
  /** The node's slot on this host (devenv/node-host.ts): 0 unless a second node runs beside the first. */
  slot?: number;
}

export interface Node {
  name: string;
  processes: StartedProcess[];
  /** Cordons the node, deletes its pods (the kubelet tears them down), stops everything, unmounts and removes the kubepods cgroups. */
  stop(): Promise<void>;
}

/** What stop needs, also from another process (`<dir>/node.json`, read by stopNodeIn). */
interface NodeRecord {
  dir: string;
  slot: NodeSlot;
  kubeconfig: string;
  containerdRoot: string;
  processes: StartedProcess[];
}

async function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      done(true);
    });
    socket.on('error', () => {
      done(false);
    });
  });
}

/** Refuses to start in a slot another node holds (ours, from its lock, or anything on the slot's kubelet ports or containerd socket). */
async function assertNoOtherNode(slot: NodeSlot): Promise<void> {
  if (existsSync(slot.lock)) {
    const other = JSON.parse(readFileSync(slot.lock, 'utf8')) as NodeRecord;
    const alive = other.processes.filter((started) => isAlive(started.pid));
    if (alive.length > 0) {
      const pids = alive.map((started) => `${started.name} ${String(started.pid)}`).join(', ');
      throw new Error(`another local node is running (from ${other.dir}: ${pids}); stop it first (its stop(), or npm run env:down)`);
    }
    await teardown({ ...other, slot });
  }
  for (const port of [slot.kubeletPort, slot.healthzPort]) {
    if (await listening(port)) throw new Error(`127.0.0.1:${String(port)} is in use: another kubelet is running; stop it first`);
  }
  if (
    existsSync(slot.containerdSocket) &&
    (await ctr(['version'], slot)
      .then(() => true)
      .catch(() => false))
  ) {
    throw new Error(`a containerd already serves ${slot.containerdSocket}; stop it first`);
  }
}

function assertPrerequisites(options: NodeOptions): NodeAccess {
  const access = options.controlPlane.node;
  if (access === undefined) throw new Error('the control plane is not in node mode: start it with startControlPlane({ node: true })');
  if (!existsSync(binary('kubelet'))) throw new Error(`${binary('kubelet')} is missing: scripts/setup-test-binaries.sh kubelet kube-scheduler`);
  for (const command of ['/usr/bin/containerd', '/usr/bin/ctr', '/usr/sbin/runc']) {
    if (!existsSync(command)) throw new Error(`${command} is missing: apt-get install -y containerd runc`);
  }
  if (!existsSync(CNI_LOOPBACK)) throw new Error(`${CNI_LOOPBACK} is missing: apt-get install -y containernetworking-plugins`);
  const missing = options.images.filter((image) => !existsSync(image));
  if (options.images.length === 0 || missing.length > 0) {
    throw new Error(`image archives missing (${missing.join(', ') || 'none given'}); build them with npm run image`);
  }
  return access;
}

/** containerd 1.6's config (TOML): the reasons for each setting are in docs/dev/real-node.md. */
function writeContainerdConfig(dir: string, root: string, slot: NodeSlot): string {
  const cni = join(dir, 'cni');
  mkdirSync(join(cni, 'bin'), { recursive: true });
  mkdirSync(join(cni, 'net.d'), { recursive: true });
  symlinkSync(CNI_LOOPBACK, join(cni, 'bin', 'loopback'));
  // Only makes the runtime report NetworkReady: every pod is a host-network pod (the control plane's policy).
  writeFileSync(join(cni, 'net.d', '10-loopback.conflist'), JSON.stringify({ cniVersion: '0.4.0', name: 'loopback-only', plugins: [{ type: 'loopback' }] }));
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const config = `version = 2
root = ${JSON.stringify(root)}
state = ${JSON.stringify(slot.containerdState)}
[grpc]
  address = ${JSON.stringify(slot.containerdSocket)}
[plugins."io.containerd.internal.v1.opt"]
  path = ${JSON.stringify(join(dir, 'containerd-opt'))}
[${cri}]
  sandbox_image = ${JSON.stringify(SANDBOX_IMAGE)}
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [${cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [${cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [${cri}.containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = ${JSON.stringify(slot.runcRoot)}
  [${cri}.cni]
    bin_dir = ${JSON.stringify(join(cni, 'bin'))}
    conf_dir = ${JSON.stringify(join(cni, 'net.d'))}
`;
  const path = join(dir, 'containerd.toml');
  writeFileSync(path, config);
  return path;
}

async function startContainerd(dir: string, root: string, slot: NodeSlot, detached: boolean): Promise<StartedProcess> {
  const config = writeContainerdConfig(dir, root, slot);
  const started = startProcess({ name: 'containerd', command: '/usr/bin/containerd', args: ['--config', config], logDir: join(dir, 'logs'), detached });
  await waitFor(
    'containerd',
    async () =>
      (await ctr(['version'], slot)
        .then(() => true)
        .catch(() => false)) && isAlive(started.pid),
    30_000,
    100,
  );
  return started;
}

async function importImages(images: string[], slot: NodeSlot): Promise<void> {
  for (const image of images) {
    await ctr(['images', 'import', image], slot);
  }
  const names = (await ctr(['images', 'ls', '-q'], slot)).split('\n');
  if (!names.includes(SANDBOX_IMAGE)) {
    throw new Error(`none of ${images.join(', ')} holds ${SANDBOX_IMAGE}, the sandbox image; build it with npm run image`);
  }
}

function writeKubeconfig(path: string, server: string, access: NodeAccess, credentials: { cert: string; key: string }): void {
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority': access.servingCA } }],
    users: [{ name: `system:node:${NODE_NAME}`, user: { 'client-certificate': credentials.cert, 'client-key': credentials.key } }],
    contexts: [{ name: 'node', context: { cluster: 'local', user: `system:node:${NODE_NAME}` } }],
    'current-context': 'node',
  };
  writeFileSync(path, JSON.stringify(kubeconfig, null, 2), { mode: 0o600 });
}

/** The kubelet's credentials (user system:node:127.0.0.1 in system:nodes), serving certificate, kubeconfig and KubeletConfiguration. */
function writeKubeletFiles(dir: string, server: string, access: NodeAccess, slot: NodeSlot): { config: string; kubeconfig: string } {
  const pki = join(dir, 'pki');
  const credentials = makeClientCert(access, pki, { name: 'kubelet-client', user: `system:node:${NODE_NAME}`, group: 'system:nodes' });
  makeLoopbackServingCert(pki, 'kubelet-serving', access.clientCA.cert.replace(/\.crt$/u, ''), 2);
  const kubeconfig = join(dir, 'kubelet.kubeconfig');
  writeKubeconfig(kubeconfig, server, access, credentials);
  const configuration = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '127.0.0.1',
    port: slot.kubeletPort,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: slot.healthzPort,
    tlsCertFile: join(pki, 'kubelet-serving.crt'),
    tlsPrivateKeyFile: join(pki, 'kubelet-serving.key'),
    containerRuntimeEndpoint: `unix://${slot.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: slot.cgroupRoot,
    podLogsDir: slot.podLogsDir,
    failSwapOn: false,
    failCgroupV1: false,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: access.clientCA.cert } },
    authorization: { mode: 'Webhook' },
    resolvConf: '/etc/resolv.conf',
    volumePluginDir: join(dir, 'volume-plugins'),
    registerNode: true,
  };
  const config = join(dir, 'kubelet.json');
  writeFileSync(config, JSON.stringify(configuration, null, 2));
  return { config, kubeconfig };
}

async function nodeReady(kubeconfig: string): Promise<boolean> {
  const node = JSON.parse(await kubectlOrThrow(kubeconfig, ['get', 'node', NODE_NAME, '-o', 'json'])) as {
    status?: { conditions?: { type: string; status: string }[] };
  };
  return node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;
}

/** Lets the kubelet tear its pods down while it runs: cordon (no new ones), then delete them and wait. */
async function drain(kubeconfig: string): Promise<void> {
  await kubectlOrThrow(kubeconfig, ['cordon', NODE_NAME]).catch(() => '');
  const selector = `spec.nodeName=${NODE_NAME}`;
  await kubectlOrThrow(kubeconfig, [
    'delete',
    'pods',
    '--all-namespaces',
    '--field-selector',
    selector,
    '--grace-period=2',
    '--wait=true',
    '--timeout=90s',
  ]).catch((error: unknown) => {
    process.stderr.write(`node: deleting the pods failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return '';
  });
}

/** Everything stop does, in order, from a record (also left by a crashed or detached node). */
async function teardown(record: NodeRecord): Promise<void> {
  const kubelet = record.processes.find((started) => started.name === 'kubelet');
  const containerd = record.processes.find((started) => started.name === 'containerd');
  if (kubelet !== undefined && isAlive(kubelet.pid)) {
    await drain(record.kubeconfig);
    await stopProcess(kubelet.pid);
    // Pods that stay bound to a deleted Node are removed by the pod garbage collector.
    await kubectlOrThrow(record.kubeconfig, ['delete', 'node', NODE_NAME, '--ignore-not-found', '--wait=false']).catch(() => '');
  }
  if (containerd !== undefined && isAlive(containerd.pid)) {
    await removeContainers(record.slot).catch(() => undefined);
    await stopProcess(containerd.pid);
  }
  await killLeftoverShims(record.slot);
  const mounts = await unmountAll([...record.slot.mountRoots, record.containerdRoot]);
  const cgroups = removeKubepodsCgroups(record.slot);
  rmSync(record.slot.lock, { force: true });
  if (mounts.length > 0 || cgroups.length > 0) {
    throw new Error(`the node left mounts (${mounts.join(', ') || 'none'}) and cgroups (${cgroups.join(', ') || 'none'}) behind`);
  }
}

function startKubelet(dir: string, files: { config: string; kubeconfig: string }, slot: NodeSlot, detached: boolean): StartedProcess {
  const args = [`--config=${files.config}`, `--kubeconfig=${files.kubeconfig}`, `--hostname-override=${NODE_NAME}`, `--root-dir=${slot.kubeletRoot}`, '--v=1'];
  return startProcess({ name: 'kubelet', command: binary('kubelet'), args, logDir: join(dir, 'logs'), detached });
}

/** Starts containerd, imports the images, starts the kubelet and waits until the Node is Ready. */
export async function startNode(options: NodeOptions): Promise<Node> {
  const access = assertPrerequisites(options);
  const slot = nodeSlot(options.slot ?? 0);
  await assertNoOtherNode(slot);
  const dir = resolve(options.dir);
  const detached = options.detached === true;
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const record: NodeRecord = { dir, slot, kubeconfig: options.controlPlane.kubeconfig, containerdRoot: join(dir, 'containerd'), processes: [] };
  const save = (): void => {
    writeFileSync(join(dir, 'node.json'), JSON.stringify(record, null, 2));
    writeFileSync(slot.lock, JSON.stringify(record, null, 2));
  };
  const stop = async (): Promise<void> => teardown(record);
  try {
    makeCgroupRoot(slot);
    record.processes.push(await startContainerd(dir, record.containerdRoot, slot, detached));
    save();
    await importImages(options.images, slot);
    record.processes.push(startKubelet(dir, writeKubeletFiles(dir, options.controlPlane.server, access, slot), slot, detached));
    save();
    await waitFor(`node ${NODE_NAME} Ready`, async () => nodeReady(options.controlPlane.kubeconfig), 120_000, 250);
    return { name: NODE_NAME, processes: record.processes, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Stops the node started with `dir` (from its node.json), e.g. by `npm run env:down` after env:up exited. */
export async function stopNodeIn(dir: string): Promise<boolean> {
  const path = join(dir, 'node.json');
  if (!existsSync(path)) return false;
  // A record written before nodes had slots is slot 0's.
  await teardown({ slot: nodeSlot(0), ...(JSON.parse(readFileSync(path, 'utf8')) as Omit<NodeRecord, 'slot'>) });
  return true;
}
