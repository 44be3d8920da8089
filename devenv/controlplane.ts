// A real Kubernetes control plane on 127.0.0.1, like controller-runtime's envtest but from
// binaries built out of Go modules (scripts/setup-test-binaries.sh): etcd, kube-apiserver and
// kube-controller-manager (garbage collection and namespace deletion, which Metacontroller's
// children and per-test namespaces rely on).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binary, freePort, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';

export interface ControlPlane {
  dir: string;
  kubeconfig: string;
  server: string;
  processes: StartedProcess[];
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Working directory for data, certificates, logs and the kubeconfig. */
  dir: string;
  detached?: boolean;
  controllerManager?: boolean;
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

async function startEtcd(dir: string, logDir: string, detached: boolean): Promise<{ process: StartedProcess; url: string }> {
  const [client, peer] = [await freePort(), await freePort()];
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

function apiserverArgs(dir: string, etcdURL: string, port: number): string[] {
  const keys = writeServiceAccountKeys(dir);
  return [
    `--etcd-servers=${etcdURL}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${String(port)}`,
    `--cert-dir=${join(dir, 'certs')}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${keys.publicKey}`,
    `--service-account-signing-key-file=${keys.privateKey}`,
    // Only a configuration value: no Service IP from this range is ever contacted.
    '--service-cluster-ip-range=10.96.0.0/24',
    '--disable-admission-plugins=ServiceAccount',
    // A 127.0.0.1 endpoint for the kubernetes Service is invalid; without this the apiserver
    // logs an error every 10 s.
    '--endpoint-reconciler-type=none',
    '--enable-priority-and-fairness=false',
    '--profiling=false',
  ];
}

function writeKubeconfig(dir: string, server: string, token: string): string {
  const certificate = readFileSync(join(dir, 'certs', 'apiserver.crt'));
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

function startControllerManager(dir: string, kubeconfig: string, logDir: string, detached: boolean): StartedProcess {
  return startProcess({
    name: 'kube-controller-manager',
    command: binary('kube-controller-manager'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      // Kubernetes 1.36 names controllers with the -controller suffix.
      '--controllers=garbage-collector-controller,namespace-controller,serviceaccount-controller',
      '--leader-elect=false',
      '--secure-port=0',
      '--use-service-account-credentials=false',
      `--cert-dir=${join(dir, 'kcm-certs')}`,
    ],
    logDir,
    detached,
  });
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { dir } = options;
  const detached = options.detached === true;
  const logDir = join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
  const etcd = await startEtcd(dir, logDir, detached);
  const port = await freePort();
  const server = `https://127.0.0.1:${String(port)}`;
  const apiserver = startProcess({ name: 'kube-apiserver', command: binary('kube-apiserver'), args: apiserverArgs(dir, etcd.url, port), logDir, detached });
  const processes = [etcd.process, apiserver];
  const stop = async (): Promise<void> => {
    for (const started of [...processes].reverse()) {
      await stopProcess(started.pid);
    }
  };
  try {
    await waitFor('kube-apiserver /readyz', async () => apiserverReady(server, token), 120_000, 500);
    const kubeconfig = writeKubeconfig(dir, server, token);
    if (options.controllerManager !== false && existsSync(binary('kube-controller-manager'))) {
      processes.push(startControllerManager(dir, kubeconfig, logDir, detached));
    }
    return { dir, kubeconfig, server, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
