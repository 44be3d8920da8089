// The Cluster API side of the CAPM3 e2e (docs/dev/capm3-e2e.md): one namespace per scenario with
// the workload cluster's kubeconfig Secret, a Cluster and its Metal3Cluster, Metal3MachineTemplates
// and MachineDeployments. Cluster API's own core manager (devenv/capi-manager.ts) creates
// the MachineSets, Machines and Metal3Machines, sets ownerReferences, copies providerIDs and sets
// nodeRefs; the test plays only the kubelet (Nodes) and the MachineHealthCheck (Metal3Remediation).
import { BMC_USERNAME } from '../../devenv/bmcs.js';
import type { Environment } from '../../devenv/environment.js';
import { waitFor } from '../../devenv/processes.js';
import { apiReader } from '../../devenv/workload.js';
import type { APIReader, WorkloadCluster } from '../../devenv/workload.js';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator } from '../../emulators/redfish/index.js';
import { apply, createNamespace } from './support.js';

export const INFRA_API = 'infrastructure.cluster.x-k8s.io/v1beta2';
export const CAPI_API = 'cluster.x-k8s.io/v1beta2';
const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const NODE_REUSE_LABEL = 'infrastructure.cluster.x-k8s.io/node-reuse';
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const HOST_ANNOTATION = 'metal3.io/BareMetalHost';
const DEPLOYMENT_LABEL = 'cluster.x-k8s.io/deployment-name';
const WAIT_MS = 240_000;
const POLL_MS = 1000;

/** API paths of the kinds the scenarios read, by the kubectl name they are written with. */
const RESOURCES: Readonly<Record<string, string>> = {
  baremetalhost: '/apis/metal3.io/v1alpha1/namespaces/{ns}/baremetalhosts',
  metal3machine: `/apis/${INFRA_API}/namespaces/{ns}/metal3machines`,
  metal3cluster: `/apis/${INFRA_API}/namespaces/{ns}/metal3clusters`,
  metal3remediation: `/apis/${INFRA_API}/namespaces/{ns}/metal3remediations`,
  metal3machinetemplate: `/apis/${INFRA_API}/namespaces/{ns}/metal3machinetemplates`,
  cluster: `/apis/${CAPI_API}/namespaces/{ns}/clusters`,
  machine: `/apis/${CAPI_API}/namespaces/{ns}/machines`,
  machineset: `/apis/${CAPI_API}/namespaces/{ns}/machinesets`,
  machinedeployment: `/apis/${CAPI_API}/namespaces/{ns}/machinedeployments`,
  metal3datatemplate: `/apis/${INFRA_API}/namespaces/{ns}/metal3datatemplates`,
  metal3data: `/apis/${INFRA_API}/namespaces/{ns}/metal3datas`,
  metal3dataclaim: `/apis/${INFRA_API}/namespaces/{ns}/metal3dataclaims`,
  ippool: '/apis/ipam.metal3.io/v1alpha1/namespaces/{ns}/ippools',
  ipclaim: '/apis/ipam.metal3.io/v1alpha1/namespaces/{ns}/ipclaims',
  ipaddress: '/apis/ipam.metal3.io/v1alpha1/namespaces/{ns}/ipaddresses',
  hostoperation: '/apis/ironhook.dev/v1alpha1/namespaces/{ns}/hostoperations',
  secret: '/api/v1/namespaces/{ns}/secrets',
};

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ObjectView<Spec = Record<string, unknown>, Status = Record<string, unknown>> {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec: Spec;
  status?: Status & { conditions?: Condition[] };
}

interface HostSpecView {
  online?: boolean;
  consumerRef?: { apiVersion?: string; kind?: string; name?: string; namespace?: string };
  image?: { url?: string; format?: string };
  userData?: { name?: string; namespace?: string };
  automatedCleaningMode?: string;
}
export type BareMetalHostView = ObjectView<HostSpecView, { poweredOn?: boolean; provisioning?: { state?: string } }>;
export type Metal3MachineView = ObjectView<
  { providerID?: string },
  { initialization?: { provisioned?: boolean }; addresses?: { type: string; address: string }[] }
>;

/** What a wait is for (in the timeout message) and when it is over. */
export interface Until<T> {
  what: string;
  check: (view: T) => boolean;
}

export function condition(view: ObjectView, type: string): Condition | undefined {
  return view.status?.conditions?.find((entry) => entry.type === type);
}

/** Extra Redfish systems for the Cluster API scenarios (fast inspection, live ISO: no agent). */
export async function startFleet(password: string, ids: string[], slow: string[] = []): Promise<RedfishEmulator> {
  const systems = ids.map((id, index) => ({
    id,
    username: BMC_USERNAME,
    password,
    powerState: 'Off' as const,
    macs: [`52:54:00:3c:00:${index.toString(16).padStart(2, '0')}`],
    ...(slow.includes(id) ? { powerDelayMs: 6000 } : {}),
  }));
  return startRedfishEmulator({ systems, http: true, powerDelayMs: 100 });
}

/** One namespace with a Cluster, its Metal3Cluster, the kubeconfig Secret and the test playing CAPI. */
export class Scene {
  private readonly reader: APIReader;

  constructor(
    readonly env: Environment,
    readonly workload: WorkloadCluster,
    readonly namespace: string,
    readonly cluster: string,
  ) {
    this.reader = apiReader(env.kubeconfig);
  }

  private path(kind: string, name: string): string {
    const collection = RESOURCES[kind];
    if (collection === undefined) {
      throw new Error(`no API path known for ${kind}`);
    }
    return `${collection.replace('{ns}', this.namespace)}/${encodeURIComponent(name)}`;
  }

  async get<T>(kind: string, name: string): Promise<T> {
    const found = await this.reader.get<T>(this.path(kind, name));
    if (found === undefined) {
      throw new Error(`${kind} ${this.namespace}/${name} not found`);
    }
    return found;
  }

  /** Every object of a kind in the scene's namespace (optionally by label selector), sorted by name. */
  async list<T extends { metadata: { name: string } }>(kind: string, labelSelector?: string): Promise<T[]> {
    const collection = RESOURCES[kind];
    if (collection === undefined) {
      throw new Error(`no API path known for ${kind}`);
    }
    const query = labelSelector === undefined ? '' : `?labelSelector=${encodeURIComponent(labelSelector)}`;
    const found = await this.reader.get<{ items: T[] }>(`${collection.replace('{ns}', this.namespace)}${query}`);
    return (found?.items ?? []).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  async exists(kind: string, name: string): Promise<boolean> {
    return (await this.reader.get(this.path(kind, name))) !== undefined;
  }

  async apply(objects: Record<string, unknown>[]): Promise<void> {
    await apply(this.env, objects.map((object) => JSON.stringify(object)).join('\n---\n'), this.namespace);
  }

  async uid(kind: string, name: string): Promise<string> {
    return (await this.get<ObjectView>(kind, name)).metadata.uid;
  }

  async waitUntil<T>(kind: string, name: string, until: Until<T>, timeoutMs = WAIT_MS): Promise<T> {
    const { what, check } = until;
    let last: T | undefined;
    await waitFor(
      `${kind} ${this.namespace}/${name}: ${what}`,
      async () => {
        last = await this.get<T>(kind, name);
        return check(last);
      },
      timeoutMs,
      POLL_MS,
    );
    return last as T;
  }

  async host(name: string): Promise<BareMetalHostView> {
    return this.get<BareMetalHostView>('baremetalhost', name);
  }

  async waitHostState(name: string, state: string, timeoutMs = WAIT_MS): Promise<BareMetalHostView> {
    return this.waitUntil<BareMetalHostView>(
      'baremetalhost',
      name,
      { what: `state ${state}`, check: (view) => view.status?.provisioning?.state === state },
      timeoutMs,
    );
  }

  async m3m(name: string): Promise<Metal3MachineView> {
    return this.get<Metal3MachineView>('metal3machine', name);
  }

  /** The host a Metal3Machine is associated with (annotation `metal3.io/BareMetalHost`), if any. */
  async claimedHost(machine: string): Promise<string | undefined> {
    const annotation = (await this.m3m(machine)).metadata.annotations?.[HOST_ANNOTATION];
    return annotation?.split('/')[1];
  }

  async waitClaim(machine: string, timeoutMs = WAIT_MS): Promise<string> {
    let host: string | undefined;
    await waitFor(
      `${machine} associated with a host`,
      async () => {
        host = await this.claimedHost(machine);
        return host !== undefined;
      },
      timeoutMs,
      POLL_MS,
    );
    return host ?? '';
  }

  /** A BareMetalHost on an emulated Redfish BMC, with its credentials Secret. */
  async addHost(
    name: string,
    bmc: { address: string; mac: string; password: string },
    extra: { labels?: Record<string, string>; spec?: Record<string, unknown> } = {},
  ): Promise<void> {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-bmc-secret` },
      type: 'Opaque',
      stringData: { username: BMC_USERNAME, password: bmc.password },
    };
    const spec = { online: false, bootMACAddress: bmc.mac, bmc: { address: bmc.address, credentialsName: `${name}-bmc-secret` }, ...extra.spec };
    await this.apply([secret, { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, labels: extra.labels ?? {} }, spec }]);
  }

  /** A Metal3MachineTemplate (`spec.template.spec` is the Metal3Machine spec CAPI clones). */
  async createTemplate(name: string, spec: Record<string, unknown>, nodeReuse = false): Promise<void> {
    await this.apply([{ apiVersion: INFRA_API, kind: 'Metal3MachineTemplate', metadata: { name }, spec: { nodeReuse, template: { spec } } }]);
  }

  /**
   * A MachineDeployment whose Machines take their bootstrap data from one Secret (no bootstrap
   * provider). The fields Cluster API's defaulting webhook would add are written out.
   */
  async createDeployment(name: string, template: string, replicas: number): Promise<void> {
    const selector = { matchLabels: { [DEPLOYMENT_LABEL]: name } };
    const bootstrap = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-bootstrap`, labels: { [CLUSTER_NAME_LABEL]: this.cluster } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: `#cloud-config\nhostname: ${name}\n`, format: 'cloud-config' },
    };
    const machine = {
      metadata: { labels: selector.matchLabels },
      spec: {
        clusterName: this.cluster,
        bootstrap: { dataSecretName: `${name}-bootstrap` },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'Metal3MachineTemplate', name: template },
      },
    };
    const rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } };
    const spec = { clusterName: this.cluster, replicas, selector, template: machine, rollout, deletion: { order: 'Oldest' } };
    await this.apply([
      bootstrap,
      { apiVersion: CAPI_API, kind: 'MachineDeployment', metadata: { name, labels: { [CLUSTER_NAME_LABEL]: this.cluster } }, spec },
    ]);
  }

  async scale(deployment: string, replicas: number): Promise<void> {
    await this.env.kubectl('patch', 'machinedeployment', deployment, '-n', this.namespace, '--type=merge', '-p', JSON.stringify({ spec: { replicas } }));
  }

  /** Names of the Metal3Machines CAPI cloned for a deployment (not being deleted), sorted. */
  async machines(deployment: string): Promise<string[]> {
    const path = `${RESOURCES.metal3machine?.replace('{ns}', this.namespace) ?? ''}?labelSelector=${encodeURIComponent(`${DEPLOYMENT_LABEL}=${deployment}`)}`;
    const list = await this.reader.get<{ items: (Metal3MachineView & { metadata: { deletionTimestamp?: string } })[] }>(path);
    return (list?.items ?? [])
      .filter((item) => item.metadata.deletionTimestamp === undefined)
      .map((item) => item.metadata.name)
      .sort();
  }

  async waitMachines(deployment: string, count: number, timeoutMs = 60_000): Promise<string[]> {
    let names: string[] = [];
    await waitFor(
      `${count} Metal3Machines of ${deployment}`,
      async () => {
        names = await this.machines(deployment);
        return names.length === count;
      },
      timeoutMs,
      POLL_MS,
    );
    return names;
  }

  /** The Machine that owns a Metal3Machine (CAPI sets the ownerReference). */
  async machineOf(metal3Machine: string): Promise<string> {
    const view = await this.get<{ metadata: { ownerReferences?: { kind: string; name: string }[] } }>('metal3machine', metal3Machine);
    const owner = view.metadata.ownerReferences?.find((ref) => ref.kind === 'Machine');
    if (owner === undefined) {
      throw new Error(`Metal3Machine ${metal3Machine} has no Machine owner`);
    }
    return owner.name;
  }

  /** The kubelet of a provisioned host registers its Node (label metal3.io/uuid = the host's uid). */
  async bootNode(node: string, host: string, labels: Record<string, string> = {}): Promise<void> {
    await this.workload.createNode({ name: node, uuid: await this.uid('baremetalhost', host), labels });
  }
}

/** A namespace with the kubeconfig Secret, a Cluster and its Metal3Cluster, infrastructure ready. */
export async function openScene(env: Environment, workload: WorkloadCluster, prefix: string, cluster = 'seed'): Promise<Scene> {
  const namespace = await createNamespace(env, prefix);
  const scene = new Scene(env, workload, namespace, cluster);
  await apply(env, workload.kubeconfigSecret(cluster, namespace), namespace);
  const labels = { [CLUSTER_NAME_LABEL]: cluster };
  await scene.apply([
    {
      apiVersion: CAPI_API,
      kind: 'Cluster',
      metadata: { name: cluster, labels },
      spec: { infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'Metal3Cluster', name: cluster } },
    },
    {
      apiVersion: INFRA_API,
      kind: 'Metal3Cluster',
      metadata: { name: cluster, labels },
      spec: { controlPlaneEndpoint: { host: '127.0.0.1', port: 6443 }, cloudProviderEnabled: false },
    },
  ]);
  await scene.waitUntil<ObjectView<unknown, { initialization?: { provisioned?: boolean } }>>(
    'metal3cluster',
    cluster,
    { what: 'provisioned', check: (view) => view.status?.initialization?.provisioned === true },
    60_000,
  );
  await scene.waitUntil<ObjectView<unknown, { initialization?: { infrastructureProvisioned?: boolean } }>>(
    'cluster',
    cluster,
    { what: 'infrastructure provisioned (Cluster API)', check: (view) => view.status?.initialization?.infrastructureProvisioned === true },
    60_000,
  );
  return scene;
}
