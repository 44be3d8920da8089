// A management cluster that runs pods, as the clusterctl e2e needs one (or two, for clusterctl
// move): the local control plane in node mode, a real kubelet + containerd node in its own slot
// (devenv/node-host.ts), cert-manager beside it (devenv/cert-manager.ts), and a local provider
// repository holding Cluster API's core, kubeadm bootstrap and kubeadm control-plane providers
// (devenv/capi-repository.ts) and Ironhook as `metal3` (scripts/clusterctl-repo.ts). The node is
// loopback-only and every pod is a host-network pod, so each cluster's repository gets its own
// ports: every manager's webhook, health and diagnostics ports, Ironhook's hook server, pool,
// agent API and Metacontroller's probes (devenv/loopback-components.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { BMCs } from '../../devenv/bmcs.js';
import { CAPI_PROVIDERS, localCAPIImages, writeCAPIProviders } from '../../devenv/capi-repository.js';
import { startCertManager, type CertManager } from '../../devenv/cert-manager.js';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import { kubectlFor } from '../../devenv/environment.js';
import { loopbackComponents, type ManagerPorts } from '../../devenv/loopback-components.js';
import { startNode, type Node } from '../../devenv/node.js';
import { freePort, waitFor } from '../../devenv/processes.js';
import { PROVIDER_NAMESPACE, writeProviders } from '../../scripts/clusterctl-repo.js';
import { runClusterctl, type ClusterctlResult } from '../support/clusterctl.js';
import { chooseLocalNodePorts, LOCAL_PROFILE, writeRunValues, type LocalNodePorts } from '../support/local-node.js';
import type { ClusterClient } from './support.js';

/** The namespaces clusterctl installs each provider into (their components name them). */
export const PROVIDER_NAMESPACES: Record<string, string> = {
  'cluster-api': 'capi-system',
  'bootstrap-kubeadm': 'capi-kubeadm-bootstrap-system',
  'control-plane-kubeadm': 'capi-kubeadm-control-plane-system',
  'infrastructure-metal3': PROVIDER_NAMESPACE,
};

export interface ManagementCluster {
  dir: string;
  plane: ControlPlane;
  client: ClusterClient;
  /** Ironhook's ports on this cluster's node. */
  ports: LocalNodePorts;
  /** clusterctl against this cluster, with its repository's configuration. */
  clusterctl(args: string[], env?: Record<string, string>): Promise<ClusterctlResult>;
  stop(): Promise<void>;
}

export interface ManagementClusterOptions {
  /** The cluster's own directory: control plane, node, cert-manager, repository, clusterctl's home. */
  dir: string;
  /** The node's slot on this host: 0 for the first cluster, 1 for a second one. */
  slot: number;
  /** docker-archive files for the node (devenv/images.ts). */
  images: string[];
  /** The emulated BMCs: their image files go into Ironhook's values. */
  bmcs: BMCs;
}

/** The repository: Cluster API's three providers and Ironhook, each manager on its own loopback ports. */
async function writeRepository(dir: string, ports: LocalNodePorts, files: BMCs['files']): Promise<string> {
  const repository = join(dir, 'repository');
  const managerPorts = new Map<string, ManagerPorts>();
  for (const provider of CAPI_PROVIDERS)
    managerPorts.set(provider.label, { webhook: await freePort(), health: await freePort(), diagnostics: await freePort() });
  const capi = await writeCAPIProviders(repository, managerPorts);
  const runValues = writeRunValues(dir, ports, files);
  const ironhook = writeProviders(repository, { valueFiles: [LOCAL_PROFILE, runValues], transform: (objects) => loopbackComponents(objects) });
  const file = join(repository, 'clusterctl.yaml');
  writeFileSync(
    file,
    stringify(
      // cert-manager is the site's (devenv/cert-manager.ts): clusterctl waits for its API and never
      // installs one (it would fetch a release from GitHub when a first check fails).
      { providers: [...capi, ...ironhook], images: localCAPIImages(), 'cert-manager': { externallyProvisioned: 'true', timeout: '4m' } },
      { lineWidth: 0 },
    ),
  );
  return file;
}

export async function startManagementCluster(options: ManagementClusterOptions): Promise<ManagementCluster> {
  const { dir } = options;
  mkdirSync(join(dir, 'home'), { recursive: true });
  const plane = await startControlPlane({ dir: join(dir, 'plane'), node: true });
  let node: Node | undefined;
  let certManager: CertManager | undefined;
  const stop = async (): Promise<void> => {
    await node?.stop();
    await certManager?.stop();
    await plane.stop();
  };
  try {
    node = await startNode({ controlPlane: plane, dir: join(dir, 'node'), images: options.images, slot: options.slot });
    certManager = await startCertManager({ dir: join(dir, 'cert-manager'), kubeconfig: plane.kubeconfig });
    const ports = await chooseLocalNodePorts();
    const config = await writeRepository(dir, ports, options.bmcs.files);
    const clusterctl = async (args: string[], env: Record<string, string> = {}): Promise<ClusterctlResult> =>
      runClusterctl(dir, [...args, '--config', config, '--kubeconfig', plane.kubeconfig], env);
    return { dir, plane, client: { kubeconfig: plane.kubeconfig, ...kubectlFor(plane.kubeconfig) }, ports, clusterctl, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

interface PodView {
  metadata: { name: string };
  spec: { containers: { image: string }[] };
  status: { containerStatuses?: { ready: boolean }[] };
}

export async function pods(client: ClusterClient, namespace: string): Promise<PodView[]> {
  return (JSON.parse(await client.kubectl('get', 'pods', '-n', namespace, '-o', 'json')) as { items: PodView[] }).items;
}

export const ready = (pod: PodView): boolean => pod.status.containerStatuses?.every((status) => status.ready) === true;

/** The installed providers as `<namespace>/<name>@<version>`, sorted. */
export async function providers(client: ClusterClient): Promise<string[]> {
  const list = JSON.parse(await client.kubectl('get', 'providers.clusterctl.cluster.x-k8s.io', '-A', '-o', 'json')) as {
    items: { metadata: { name: string; namespace: string }; version: string }[];
  };
  return list.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}@${item.version}`).sort();
}

/** Ironhook's three pods ready: --wait-providers waits for the Deployments; Metacontroller is a StatefulSet. */
export async function waitForIronhookPods(client: ClusterClient): Promise<void> {
  await waitFor(
    'Ironhook pods ready',
    async () => {
      const current = await pods(client, PROVIDER_NAMESPACE);
      return current.length === 3 && current.every(ready);
    },
    300_000,
    1000,
  );
}
