// A real Kubernetes control plane on 127.0.0.1, like controller-runtime's envtest but from
// binaries built out of Go modules (scripts/setup-test-binaries.sh): etcd, kube-apiserver and
// kube-controller-manager (garbage collection and namespace deletion, which Metacontroller's
// children and per-test namespaces rely on). With `node: true` it is also what a real kubelet and
// its pods need (devenv/controlplane-node.ts, devenv/node.ts, docs/dev/real-node.md).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyLoopbackPodPolicy, makeNodePKI, NODE_CONTROLLERS, nodeApiserverArgs, nodeControllerManagerArgs, startScheduler } from './controlplane-node.js';
import type { NodeAccess } from './controlplane-node.js';
import { binary, freePort, isAlive, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';
import { makeLoopbackServingCert } from './tls.js';

export interface ControlPlane {
  dir: string;
  kubeconfig: string;
  server: string;
  processes: StartedProcess[];
  /** In node mode: what devenv/node.ts needs to join a kubelet. */
  node?: NodeAccess;
  /** SIGKILL the kube-apiserver and start it again on the same port (etcd keeps the data); resolves once it is ready. */
  restartApiserver(): Promise<StartedProcess>;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Working directory for data, certificates, logs and the kubeconfig. */
  dir: string;
  detached?: boolean;
  controllerManager?: boolean;
  /** Outside node mode: the kube-controller-manager controllers (default: garbage collector, namespaces, ServiceAccounts). */
  controllers?: readonly string[];
  /**
   * Node mode, for a real kubelet (devenv/node.ts): a client CA, Node,RBAC authorization with
   * NodeRestriction, ServiceAccount admission, the controllers pods and workloads need, the
   * kube-scheduler, and the loopback pod policy (every pod on the host network, pointed at
   * 127.0.0.1:<port>). Off by default: the other tests run without ServiceAccount admission.
   */
  node?: boolean;
  /**
   * A cluster's own PKI instead of throwaway keys (a workload cluster whose CA Cluster API made): the
   * CA signs the serving certificate (127.0.0.1) and is the client CA, and the service-account key
   * pair is the cluster's. The kubeconfig trusts that CA.
   */
  clusterPKI?: ClusterPKI;
  /** Fixed ports (an endpoint chosen before the cluster starts); free ports otherwise. */
  ports?: { apiserver?: number; etcd?: number };
}

export interface ClusterPKI {
  ca: { cert: string; key: string };
  serviceAccount: { publicKey: string; privateKey: string };
}

/** The apiserver's TLS and service-account flags for a cluster PKI, its files written under dir/cluster-pki. */
function clusterPKIArgs(dir: string, pki: ClusterPKI): string[] {
  const pkiDir = join(dir, 'cluster-pki');
  mkdirSync(pkiDir, { recursive: true });
  writeFileSync(join(pkiDir, 'ca.crt'), pki.ca.cert);
  writeFileSync(join(pkiDir, 'ca.key'), pki.ca.key, { mode: 0o600 });
  writeFileSync(join(pkiDir, 'sa.pub'), pki.serviceAccount.publicKey);
  writeFileSync(join(pkiDir, 'sa.key'), pki.serviceAccount.privateKey, { mode: 0o600 });
  makeLoopbackServingCert(pkiDir, 'apiserver', 'ca', 2);
  return [
    '--authorization-mode=RBAC',
    `--client-ca-file=${join(pkiDir, 'ca.crt')}`,
    `--tls-cert-file=${join(pkiDir, 'apiserver.crt')}`,
    `--tls-private-key-file=${join(pkiDir, 'apiserver.key')}`,
    `--service-account-key-file=${join(pkiDir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(pkiDir, 'sa.key')}`,
  ];
}

/** Authorization, admission, TLS and service-account flags for the mode the options ask for. */
function modeArgs(dir: string, options: ControlPlaneOptions): string[] {
  if (options.clusterPKI !== undefined) return clusterPKIArgs(dir, options.clusterPKI);
  const keys = writeServiceAccountKeys(dir);
  const keyArgs = [`--service-account-key-file=${keys.publicKey}`, `--service-account-signing-key-file=${keys.privateKey}`];
  if (options.node === true) return [...nodeApiserverArgs(makeNodePKI(dir)), ...keyArgs];
  return ['--authorization-mode=RBAC', '--disable-admission-plugins=ServiceAccount', ...keyArgs];
}

function writeServiceAccountKeys(dir: string): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const paths = { publicKey: join(dir, 'sa.pub'), privateKey: join(dir, 'sa.key') };
  writeFileSync(paths.publicKey, publicKey, { mode: 0o600 });
  writeFileSync(paths.privateKey, privateKey, { mode: 0o600 });
  return paths;
}

async function startEtcd(dir: string, logDir: string, detached: boolean, port?: number): Promise<{ process: StartedProcess; url: string }> {
  const [client, peer] = [port ?? (await freePort()), await freePort()];
  const url = `http://127.0.0.1:${String(client)}`;
  const peerURL = `http://127.0.0.1:${String(peer)}`;
  const process = startProcess({
    name: 'etcd',
    command: binary('etcd'),
    args: [
      `--data-dir=${join(dir, 'etcd')}`,
      '--name=default',
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peerURL}`,
      `--initial-advertise-peer-urls=${peerURL}`,
      `--initial-cluster=default=${peerURL}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    logDir,
    detached,
  });
  await waitFor('etcd health', async () => (await fetch(`${url}/health`)).ok, 30_000);
  return { process, url };
}

function apiserverArgs(dir: string, etcdURL: string, port: number, options: ControlPlaneOptions): string[] {
  return [
    `--etcd-servers=${etcdURL}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${String(port)}`,
    `--cert-dir=${join(dir, 'certs')}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ...modeArgs(dir, options),
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    // Only a configuration value: no Service IP from this range is ever contacted.
    '--service-cluster-ip-range=10.96.0.0/24',
    // A 127.0.0.1 endpoint for the kubernetes Service is invalid; without this the apiserver
    // logs an error every 10 s.
    '--endpoint-reconciler-type=none',
    '--enable-priority-and-fairness=false',
    '--profiling=false',
  ];
}

function writeKubeconfig(dir: string, server: string, token: string, clusterPKI: ClusterPKI | undefined): string {
  const certificate = clusterPKI === undefined ? readFileSync(join(dir, 'certs', 'apiserver.crt')) : Buffer.from(clusterPKI.ca.cert);
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ironhook', cluster: { server, 'certificate-authority-data': certificate.toString('base64') } }],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'ironhook', context: { cluster: 'ironhook', user: 'admin', namespace: 'default' } }],
    'current-context': 'ironhook',
  };
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, JSON.stringify(kubeconfig, null, 2), { mode: 0o600 });
  return path;
}

async function apiserverReady(server: string, token: string): Promise<boolean> {
  // The serving certificate is self-signed and generated at start; readiness is probed before
  // the kubeconfig (with that certificate as CA) exists, so this one probe skips verification.
  const { Agent } = await import('node:https');
  const { request } = await import('node:https');
  return new Promise((resolve) => {
    const req = request(`${server}/readyz`, { headers: { authorization: `Bearer ${token}` }, agent: new Agent({ rejectUnauthorized: false }) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => {
      resolve(false);
    });
    req.end();
  });
}

/** Kubernetes 1.36 names controllers with the -controller suffix. */
const DEFAULT_CONTROLLERS = ['garbage-collector-controller', 'namespace-controller', 'serviceaccount-controller'];

interface ControllerManagerOptions {
  detached: boolean;
  node?: NodeAccess;
  controllers?: readonly string[] | undefined;
}

function startControllerManager(dir: string, kubeconfig: string, logDir: string, options: ControllerManagerOptions): StartedProcess {
  const { detached, node } = options;
  const controllers = node === undefined ? (options.controllers ?? DEFAULT_CONTROLLERS) : NODE_CONTROLLERS;
  return startProcess({
    name: 'kube-controller-manager',
    command: binary('kube-controller-manager'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${controllers.join(',')}`,
      ...(node === undefined ? [] : nodeControllerManagerArgs(dir, node)),
      '--leader-elect=false',
      '--secure-port=0',
      '--use-service-account-credentials=false',
      `--cert-dir=${join(dir, 'kcm-certs')}`,
    ],
    logDir,
    detached,
  });
}

interface NodeModeSetup {
  dir: string;
  kubeconfig: string;
  port: number;
  logDir: string;
  detached: boolean;
}

/** Node mode after /readyz: kube-controller-manager (required here), kube-scheduler and the loopback pod policy. */
async function startNodeMode(setup: NodeModeSetup, processes: StartedProcess[]): Promise<NodeAccess> {
  const { dir, kubeconfig, port, logDir, detached } = setup;
  const access: NodeAccess = {
    clientCA: { cert: join(dir, 'pki', 'client-ca.crt'), key: join(dir, 'pki', 'client-ca.key') },
    servingCA: join(dir, 'certs', 'apiserver.crt'),
    port,
  };
  processes.push(startControllerManager(dir, kubeconfig, logDir, { detached, node: access }));
  processes.push(startScheduler(kubeconfig, logDir, detached));
  await applyLoopbackPodPolicy(kubeconfig, port);
  return access;
}

/** kube-controller-manager (and in node mode the rest of startNodeMode) after /readyz, added to `processes`. */
async function startControllers(options: ControlPlaneOptions, setup: NodeModeSetup, processes: StartedProcess[]): Promise<NodeAccess | undefined> {
  if (options.node === true) {
    return startNodeMode(setup, processes);
  }
  if (options.controllerManager !== false && existsSync(binary('kube-controller-manager'))) {
    processes.push(startControllerManager(setup.dir, setup.kubeconfig, setup.logDir, { detached: setup.detached, controllers: options.controllers }));
  }
  return undefined;
}

/** SIGKILL the kube-apiserver in `processes` and start it again in its place (same arguments, so the same port and data). */
function apiserverRestarter(processes: StartedProcess[], start: () => StartedProcess, ready: () => Promise<boolean>): () => Promise<StartedProcess> {
  return async () => {
    const at = processes.findIndex((started) => started.name === 'kube-apiserver');
    const old = processes[at];
    if (old === undefined) throw new Error('no kube-apiserver process to restart');
    if (isAlive(old.pid)) process.kill(old.pid, 'SIGKILL');
    await waitFor('the killed kube-apiserver to exit', async () => Promise.resolve(!isAlive(old.pid)), 10_000, 50);
    const started = start();
    processes.splice(at, 1, started);
    await waitFor('kube-apiserver /readyz after restart', ready, 120_000, 250);
    return started;
  };
}

/** The admin's bearer token, in `<dir>/tokens.csv` (system:masters). */
function writeAdminToken(dir: string): string {
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
  return token;
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { dir } = options;
  const detached = options.detached === true;
  const logDir = join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const token = writeAdminToken(dir);
  const etcd = await startEtcd(dir, logDir, detached, options.ports?.etcd);
  const port = options.ports?.apiserver ?? (await freePort());
  const server = `https://127.0.0.1:${String(port)}`;
  const args = apiserverArgs(dir, etcd.url, port, options);
  const startApiserver = (): StartedProcess => startProcess({ name: 'kube-apiserver', command: binary('kube-apiserver'), args, logDir, detached });
  const processes = [etcd.process, startApiserver()];
  const restartApiserver = apiserverRestarter(processes, startApiserver, async () => apiserverReady(server, token));
  const stop = async (): Promise<void> => {
    for (const started of [...processes].reverse()) {
      await stopProcess(started.pid);
    }
  };
  try {
    await waitFor('kube-apiserver /readyz', async () => apiserverReady(server, token), 120_000, 500);
    const kubeconfig = writeKubeconfig(dir, server, token, options.clusterPKI);
    const access = await startControllers(options, { dir, kubeconfig, port, logDir, detached }, processes);
    return { dir, kubeconfig, server, processes, ...(access === undefined ? {} : { node: access }), restartApiserver, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
