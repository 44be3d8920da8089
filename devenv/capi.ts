// Cluster API's own CRDs for the local environment, from the sigs.k8s.io/cluster-api Go module
// (the module zip carries core/config/crd/bases). IPAM serves Cluster API IPAddressClaims and
// watches Clusters; the Cluster API provider (Metal3Machine & co.) needs Clusters and Machines, and
// node reuse follows a Machine's MachineSet to its MachineDeployment (ownerReferences the garbage
// collector would cut if those objects could not exist); remediation starts from a
// MachineHealthCheck.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Cluster API release whose CRDs the tests install (contract v1beta2). */
const CLUSTER_API_VERSION = 'v1.14.2';

const CRD_FILES = [
  'cluster.x-k8s.io_clusters.yaml',
  'cluster.x-k8s.io_machines.yaml',
  'cluster.x-k8s.io_machinesets.yaml',
  'cluster.x-k8s.io_machinedeployments.yaml',
  'cluster.x-k8s.io_machinehealthchecks.yaml',
  'ipam.cluster.x-k8s.io_ipaddresses.yaml',
  'ipam.cluster.x-k8s.io_ipaddressclaims.yaml',
];

const KUBEADM_CRD_FILES = [
  'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigs.yaml',
  'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml',
  'controlplane/kubeadm/config/crd/bases/controlplane.cluster.x-k8s.io_kubeadmcontrolplanes.yaml',
  'controlplane/kubeadm/config/crd/bases/controlplane.cluster.x-k8s.io_kubeadmcontrolplanetemplates.yaml',
];

/** The module's directory in the Go module cache, downloading it if needed. */
async function moduleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `sigs.k8s.io/cluster-api@${CLUSTER_API_VERSION}`], { maxBuffer: 8 * 1024 * 1024 });
  const { Dir: dir } = JSON.parse(stdout) as { Dir?: string };
  if (!dir) {
    throw new Error(`go mod download sigs.k8s.io/cluster-api@${CLUSTER_API_VERSION} gave no directory: ${stdout}`);
  }
  return dir;
}

/** Paths of Cluster API's CRD files, downloading the module into the Go module cache if needed. */
export async function clusterAPICRDFiles(): Promise<string[]> {
  const dir = await moduleDir();
  return CRD_FILES.map((file) => join(dir, 'core', 'config', 'crd', 'bases', file));
}

/** Paths of the kubeadm bootstrap and control-plane providers' CRD files (same module and release). */
export async function kubeadmCRDFiles(): Promise<string[]> {
  const dir = await moduleDir();
  return KUBEADM_CRD_FILES.map((file) => join(dir, file));
}
