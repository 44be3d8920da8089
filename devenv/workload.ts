// A workload cluster for the Cluster API provider's e2e: a second local control plane (etcd and
// kube-apiserver on 127.0.0.1, no controller manager, so no node lifecycle controller touches the
// Nodes), published to the management cluster as the `<cluster>-kubeconfig` Secret Cluster API
// writes, and a kubelet stand-in that creates, labels and deletes Node objects the way a booted
// host's kubelet would (labels metal3.io/uuid and kubernetes.io/hostname from its node-labels).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KUBECONFIG_SECRET_KEY, kubeconfigSecretName } from '../domain/capi/requests.js';
import { CLUSTER_NAME_LABEL } from '../domain/capi/types.js';
import { startControlPlane } from './controlplane.js';
import type { ClusterPKI, ControlPlane } from './controlplane.js';
import { binary } from './processes.js';

const run = promisify(execFile);

/** The label a kubelet started with `node-labels: metal3.io/uuid={{ ds.meta_data.uuid }}` sets. */
const NODE_UUID_LABEL = 'metal3.io/uuid';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** The Secret type Cluster API gives the kubeconfig Secret. */
const CLUSTER_SECRET_TYPE = 'cluster.x-k8s.io/secret';

interface NodeView {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { providerID?: string; taints?: { key: string; effect: string }[] };
}

export interface KubeletNode {
  name: string;
  /** The BareMetalHost's metadata.uid (label metal3.io/uuid). */
  uuid?: string;
  /** Label kubernetes.io/hostname (defaults to the Node name). */
  hostname?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** spec.taints (kubeadm taints a control-plane Node as it registers). */
  taints?: { key: string; effect: string }[];
}

export interface WorkloadCluster {
  readonly controlPlane: ControlPlane;
  readonly kubeconfig: string;
  /** kubectl against the workload cluster; throws on a non-zero exit. */
  kubectl(...args: string[]): Promise<string>;
  /** kubectl with `input` on stdin (create -f -). */
  kubectlInput(args: string[], input: string): Promise<string>;
  /** The Secret Cluster API writes for `cluster` in `namespace`, as a JSON manifest. */
  kubeconfigSecret(cluster: string, namespace: string): string;
  /** Registers a Node as a kubelet does on first start (no providerID unless the kubelet had one). */
  createNode(node: KubeletNode): Promise<NodeView>;
  /** The Node, or undefined when it does not exist. */
  node(name: string): Promise<NodeView | undefined>;
  /** Merges labels into a Node (a value of null removes the label). */
  labelNode(name: string, labels: Record<string, string | null>): Promise<void>;
  deleteNode(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** A read-only client for polling: one HTTPS GET per read instead of one kubectl process. */
export interface APIReader {
  /** The object at `path` (e.g. /api/v1/nodes/x), or undefined on 404. */
  get<T>(path: string): Promise<T | undefined>;
}

interface KubeconfigFile {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

/** An APIReader for a kubeconfig written by startControlPlane (token and CA data inline). */
export function apiReader(kubeconfig: string): APIReader {
  const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as KubeconfigFile;
  const cluster = config.clusters[0]?.cluster;
  const token = config.users[0]?.user.token;
  if (cluster === undefined || token === undefined) {
    throw new Error(`${kubeconfig} has no cluster or token`);
  }
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64');
  return {
    get: async <T>(path: string): Promise<T | undefined> =>
      new Promise((resolve, reject) => {
        const req = request(`${cluster.server}${path}`, { ca, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 404) resolve(undefined);
            else if (res.statusCode === 200) resolve(JSON.parse(body) as T);
            else reject(new Error(`GET ${path}: ${String(res.statusCode)} ${body}`));
          });
        });
        req.on('error', reject);
        req.end();
      }),
  };
}

export interface WorkloadOptions {
  /** The control plane's working directory (data, certificates, logs, kubeconfig). */
  dir: string;
  /** Leave etcd and kube-apiserver running after this Node process exits (scripts/env.ts). */
  detached?: boolean;
  /** The cluster's own CA and service-account keys (Cluster API's `<cluster>-ca` and `-sa` Secrets). */
  clusterPKI?: ClusterPKI;
  /** Fixed ports: the control-plane endpoint and an external etcd chosen before the cluster exists. */
  ports?: { apiserver?: number; etcd?: number };
}

function nodeManifest(node: KubeletNode): string {
  const labels: Record<string, string> = { [HOSTNAME_LABEL]: node.hostname ?? node.name, ...node.labels };
  if (node.uuid !== undefined) {
    labels[NODE_UUID_LABEL] = node.uuid;
  }
  const metadata = { name: node.name, labels, ...(node.annotations === undefined ? {} : { annotations: node.annotations }) };
  return JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata, spec: node.taints === undefined ? {} : { taints: node.taints } });
}

async function kubectlIn(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const child = run(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 16 * 1024 * 1024 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  try {
    return (await child).stdout;
  } catch (error) {
    const failure = error as { stderr?: string; message?: string };
    throw new Error(`workload kubectl ${args.join(' ')} failed: ${failure.stderr ?? failure.message ?? ''}`);
  }
}

export async function startWorkloadCluster(options: WorkloadOptions): Promise<WorkloadCluster> {
  const controlPlane = await startControlPlane({
    dir: options.dir,
    controllerManager: false,
    detached: options.detached === true,
    ...(options.clusterPKI === undefined ? {} : { clusterPKI: options.clusterPKI }),
    ...(options.ports === undefined ? {} : { ports: options.ports }),
  });
  const { kubeconfig } = controlPlane;
  const kubectl = async (...args: string[]): Promise<string> => kubectlIn(kubeconfig, args);
  const reader = apiReader(kubeconfig);
  const node = async (name: string): Promise<NodeView | undefined> => reader.get<NodeView>(`/api/v1/nodes/${encodeURIComponent(name)}`);
  return {
    controlPlane,
    kubeconfig,
    kubectl,
    kubectlInput: async (args, input) => kubectlIn(kubeconfig, args, input),
    kubeconfigSecret: (cluster, namespace) => {
      const value = Buffer.from(readFileSync(kubeconfig)).toString('base64');
      const metadata = { name: kubeconfigSecretName(cluster), namespace, labels: { [CLUSTER_NAME_LABEL]: cluster } };
      return JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata, type: CLUSTER_SECRET_TYPE, data: { [KUBECONFIG_SECRET_KEY]: value } });
    },
    createNode: async (spec) => {
      await kubectlIn(kubeconfig, ['create', '-f', '-'], nodeManifest(spec));
      const created = await node(spec.name);
      if (created === undefined) {
        throw new Error(`Node ${spec.name} was created but cannot be read back`);
      }
      return created;
    },
    node,
    labelNode: async (name, labels) => {
      await kubectl('patch', 'node', name, '--type=merge', '-p', JSON.stringify({ metadata: { labels } }));
    },
    deleteNode: async (name) => {
      await kubectl('delete', 'node', name, '--ignore-not-found', '--wait=true');
    },
    stop: async () => controlPlane.stop(),
  };
}

/** Where a management environment keeps its workload cluster's files. */
export function workloadDir(environmentDir: string): string {
  return join(environmentDir, 'workload');
}
