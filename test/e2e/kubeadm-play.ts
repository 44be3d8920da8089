// What a booted host does in the workload cluster, played by the seed-story test: the hosts are
// emulated, so no kubeadm or kubelet runs on them. Kept to what Cluster API reads:
//   - kubeadm init uploads kube-system/kubeadm-config (KubeadmControlPlane counts the control plane
//     as initialized once it exists); its ClusterConfiguration is the one the bootstrap provider
//     wrote into the host's user data (/run/kubeadm/kubeadm.yaml);
//   - the kubelet registers the Node with the labels of its node-labels (metal3.io/uuid) and, on a
//     control-plane host, kubeadm's role label and taint, and reports it Ready with no pressure;
//   - on a control-plane host, the kubelet's mirror pods of the static kube-apiserver,
//     kube-controller-manager and kube-scheduler pods, Ready (KubeadmControlPlane's per-machine
//     health conditions read them);
//   - a host that stops answering: its Node's Ready condition turns Unknown, as the node lifecycle
//     controller would set it (for the MachineHealthCheck).
// Etcd is external in this story (the workload cluster's own etcd): KubeadmControlPlane reads a
// managed etcd's members through a port-forward to the etcd pod, which needs a kubelet on the host.
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { KubeletNode, WorkloadCluster } from '../../devenv/workload.js';
import { formatTime } from '../../domain/backoff.js';

const CONTROL_PLANE_ROLE = 'node-role.kubernetes.io/control-plane';
const STATIC_PODS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
/** A time for the played statuses: fixed, since nothing here orders by it. */
const SINCE = '2026-01-01T00:00:00Z';

interface CloudConfig {
  write_files?: { path: string; content: string }[];
}

/** The ClusterConfiguration document of the kubeadm config the bootstrap provider wrote into `userData`. */
function clusterConfigurationOf(userData: string): string {
  const cloudConfig = parse(userData) as CloudConfig;
  const file = cloudConfig.write_files?.find((entry) => entry.path === '/run/kubeadm/kubeadm.yaml');
  if (file === undefined) throw new Error('the user data writes no /run/kubeadm/kubeadm.yaml');
  const documents = parseAllDocuments(file.content).map((doc) => doc.toJS() as { kind?: string } | null);
  const configuration = documents.find((doc) => doc?.kind === 'ClusterConfiguration');
  if (configuration === undefined || configuration === null) throw new Error('/run/kubeadm/kubeadm.yaml has no ClusterConfiguration');
  return stringify(configuration);
}

/** The kubelet's view of a healthy node: Ready, and none of the pressure conditions. */
function nodeConditions(ready = readyCondition()): Record<string, string>[] {
  const pressure = (type: string): Record<string, string> => ({
    type,
    status: 'False',
    reason: `KubeletHas${type.replace('Pressure', '')}`,
    lastHeartbeatTime: SINCE,
    lastTransitionTime: SINCE,
  });
  return [ready, pressure('MemoryPressure'), pressure('DiskPressure'), pressure('PIDPressure')];
}

function readyCondition(status = 'True', reason = 'KubeletReady', since = SINCE): Record<string, string> {
  return { type: 'Ready', status, reason, message: 'played by the test', lastHeartbeatTime: since, lastTransitionTime: since };
}

/** The kubelet's status report: the Node's conditions. */
async function reportConditions(workload: WorkloadCluster, name: string, conditions: Record<string, string>[]): Promise<void> {
  await workload.kubectl('patch', 'node', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions } }));
}

/** The kubelet registers its Node and reports it Ready. */
async function readyNode(workload: WorkloadCluster, node: KubeletNode): Promise<void> {
  await workload.createNode(node);
  await reportConditions(workload, node.name, nodeConditions());
}

async function createFromJSON(workload: WorkloadCluster, obj: unknown): Promise<void> {
  await workload.kubectlInput(['create', '-f', '-'], JSON.stringify(obj));
}

async function mirrorPod(workload: WorkloadCluster, component: string, node: string): Promise<void> {
  const name = `${component}-${node}`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'kube-system', labels: { component, tier: 'control-plane' }, annotations: { 'kubernetes.io/config.mirror': name } },
    spec: { nodeName: node, containers: [{ name: component, image: `registry.k8s.io/${component}:played` }] },
  };
  await createFromJSON(workload, pod);
  const ready = { type: 'Ready', status: 'True', lastTransitionTime: SINCE };
  const status = { status: { phase: 'Running', conditions: [ready, { ...ready, type: 'ContainersReady' }, { ...ready, type: 'PodScheduled' }] } };
  await workload.kubectl('patch', 'pod', name, '-n', 'kube-system', '--subresource=status', '--type=merge', '-p', JSON.stringify(status));
}

/** kubeadm init on the first control-plane host, and its kubelet. */
export async function playKubeadmInit(workload: WorkloadCluster, node: { name: string; uuid: string; userData: string }): Promise<void> {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kubeadm-config', namespace: 'kube-system' },
    data: { ClusterConfiguration: clusterConfigurationOf(node.userData) },
  };
  await createFromJSON(workload, configMap);
  // kubeadm init labels and taints the control-plane Node.
  await readyNode(workload, {
    name: node.name,
    uuid: node.uuid,
    labels: { [CONTROL_PLANE_ROLE]: '' },
    taints: [{ key: CONTROL_PLANE_ROLE, effect: 'NoSchedule' }],
  });
  for (const component of STATIC_PODS) await mirrorPod(workload, component, node.name);
}

/** kubeadm join on a worker host: its kubelet registers the Node. */
export async function playKubeletJoin(workload: WorkloadCluster, node: { name: string; uuid: string }): Promise<void> {
  await readyNode(workload, node);
}

/**
 * The host stops answering: the node lifecycle controller sets Ready to Unknown once the kubelet's
 * heartbeats stop (no controller manager runs in the played cluster). `since` is the transition
 * time, from which a MachineHealthCheck counts its timeout.
 */
export async function playNodeUnreachable(workload: WorkloadCluster, name: string, since: Date): Promise<void> {
  await reportConditions(workload, name, nodeConditions(readyCondition('Unknown', 'NodeStatusUnknown', formatTime(since.getTime()))));
}
