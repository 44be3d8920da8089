// Fluent fixture builder for Metal3Machine hook tests: a machine with its
// owner Machine, a Cluster with provisioned infrastructure, a Metal3Cluster and a template, to
// which rows add hosts, request children (with the pool's outcome) and Metal3Data.
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncRequest, ObjectMap } from '../../domain/metacontroller.js';
import { PURPOSE_LABEL } from '../../domain/capi/requests.js';

const NS = 'metal3';
const M3M_UID = '7a1b0000-0000-4000-8000-00000000a001';
const T0 = '2026-11-29T10:00:00Z';
const T1 = '2026-11-29T10:05:00Z';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const CAPI = 'cluster.x-k8s.io/v1beta2';

export interface HostOptions {
  state?: string;
  /** `me`: consumerRef names the machine; any other string: a Metal3Machine of that name. */
  consumer?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  errorMessage?: string;
  deleting?: boolean;
  spec?: Record<string, unknown>;
  poweredOn?: boolean;
  hardware?: Record<string, unknown>;
}

export interface RequestOptions {
  /** Target object name (a host, the machine, a Secret). */
  target?: string;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  reason?: string;
  message?: string;
  baseVersion?: string;
  node?: Record<string, unknown>;
  /** The patch's operations (default: none). */
  operations?: Record<string, unknown>[];
}

function hostUID(name: string): string {
  return `host-uid-${name}`;
}

function patchSpec(opts: RequestOptions): Record<string, unknown> {
  return {
    target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: NS, name: opts.target ?? 'host-a' },
    operations: opts.operations ?? [],
  };
}

function defaultReason(phase: string): string {
  return phase === 'Succeeded' ? 'Applied' : 'TestFailed';
}

export class MachineBuilder {
  private readonly m3m: KObject;
  private readonly related = new Map<string, KObject>();
  private readonly children: KObject[] = [];
  private finalizing = false;

  constructor(readonly name = 'w-1') {
    this.m3m = {
      apiVersion: INFRA,
      kind: 'Metal3Machine',
      metadata: {
        name,
        namespace: NS,
        uid: M3M_UID,
        generation: 1,
        resourceVersion: '500',
        creationTimestamp: T0,
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
        annotations: { 'cluster.x-k8s.io/cloned-from-name': 'workers-tpl' },
        ownerReferences: [{ apiVersion: CAPI, kind: 'Machine', name: `${name}-m`, uid: 'machine-uid-1', controller: true }],
      },
      spec: {
        image: {
          url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
          checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256',
          checksumType: 'sha256',
          diskFormat: 'qcow2',
        },
      },
    };
    this.put({
      apiVersion: CAPI,
      kind: 'Machine',
      metadata: {
        name: `${name}-m`,
        namespace: NS,
        uid: 'machine-uid-1',
        creationTimestamp: T0,
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/deployment-name': 'workers' },
        ownerReferences: [{ apiVersion: CAPI, kind: 'MachineSet', name: 'workers-x7k2p', uid: 'machineset-uid-1', controller: true }],
      },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: `${name}-bootstrap` },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name },
      },
    });
    this.put({
      apiVersion: CAPI,
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: NS, uid: 'cluster-uid', creationTimestamp: T0 },
      spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Cluster', name: 'c1' } },
      status: { initialization: { infrastructureProvisioned: true } },
    });
    this.put({
      apiVersion: INFRA,
      kind: 'Metal3Cluster',
      metadata: { name: 'c1', namespace: NS, uid: 'm3c-uid' },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } },
      status: { initialization: { provisioned: true } },
    });
    this.put({
      apiVersion: INFRA,
      kind: 'Metal3MachineTemplate',
      metadata: { name: 'workers-tpl', namespace: NS, uid: 'm3mt-uid' },
      spec: { template: { spec: {} } },
    });
  }

  private key(obj: KObject): string {
    return `${obj.kind}.${obj.apiVersion}|${obj.metadata.name ?? ''}`;
  }

  private put(obj: KObject): this {
    this.related.set(this.key(obj), obj);
    return this;
  }

  private find(kind: string): KObject | undefined {
    return [...this.related.values()].find((obj) => obj.kind === kind);
  }

  private drop(kind: string): this {
    for (const [key, obj] of this.related) if (obj.kind === kind) this.related.delete(key);
    return this;
  }

  uid(value: string): this {
    this.m3m.metadata.uid = value;
    return this;
  }

  spec(patch: Record<string, unknown>): this {
    Object.assign(this.m3m.spec as Record<string, unknown>, patch);
    return this;
  }

  status(patch: Record<string, unknown>): this {
    this.m3m.status = { ...(this.m3m.status as Record<string, unknown> | undefined), ...patch };
    return this;
  }

  annotate(key: string, value: string): this {
    this.m3m.metadata.annotations = { ...this.m3m.metadata.annotations, [key]: value };
    return this;
  }

  /** The machine is associated with `host` (its metal3.io/BareMetalHost annotation). */
  associated(host: string): this {
    return this.annotate('metal3.io/BareMetalHost', `${NS}/${host}`);
  }

  withoutOwner(): this {
    this.m3m.metadata.ownerReferences = [];
    return this.drop('Machine');
  }

  withoutMachine(): this {
    return this.drop('Machine');
  }

  withoutCluster(): this {
    return this.drop('Cluster');
  }

  withoutMetal3Cluster(): this {
    return this.drop('Metal3Cluster');
  }

  clusterInfrastructure(ready: boolean, form: 'v1beta2' | 'v1beta1' = 'v1beta2'): this {
    const cluster = this.find('Cluster');
    if (cluster === undefined) return this;
    const conditions = [{ type: 'InfrastructureReady', status: ready ? 'True' : 'False' }];
    cluster.status = form === 'v1beta2' ? { initialization: { infrastructureProvisioned: ready } } : { deprecated: { v1beta1: { conditions } } };
    return this;
  }

  clusterSpec(patch: Record<string, unknown>): this {
    const cluster = this.find('Cluster');
    if (cluster !== undefined) cluster.spec = { ...(cluster.spec as Record<string, unknown>), ...patch };
    return this;
  }

  clusterDeleting(): this {
    const cluster = this.find('Cluster');
    if (cluster !== undefined) cluster.metadata.deletionTimestamp = T1;
    return this;
  }

  metal3ClusterSpec(patch: Record<string, unknown>): this {
    const m3c = this.find('Metal3Cluster');
    if (m3c !== undefined) m3c.spec = { ...(m3c.spec as Record<string, unknown>), ...patch };
    return this;
  }

  metal3ClusterAnnotate(key: string, value: string): this {
    const m3c = this.find('Metal3Cluster');
    if (m3c !== undefined) m3c.metadata.annotations = { ...m3c.metadata.annotations, [key]: value };
    return this;
  }

  /** The Machine's MachineSet (`workers-x7k2p`), owned by MachineDeployment `deployment`, naming Metal3MachineTemplate `template`. */
  machineSet(deployment: string, template: string): this {
    return this.put({
      apiVersion: CAPI,
      kind: 'MachineSet',
      metadata: {
        name: 'workers-x7k2p',
        namespace: NS,
        uid: 'machineset-uid-1',
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
        ownerReferences: [{ apiVersion: CAPI, kind: 'MachineDeployment', name: deployment, uid: 'md-uid-1', controller: true }],
      },
      spec: { template: { spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3MachineTemplate', name: template } } } },
    });
  }

  /** Another Metal3MachineTemplate in the namespace. */
  extraTemplate(name: string, spec: Record<string, unknown>): this {
    return this.put({ apiVersion: INFRA, kind: 'Metal3MachineTemplate', metadata: { name, namespace: NS, uid: `m3mt-uid-${name}` }, spec });
  }

  /** Removes the `cluster.x-k8s.io/cloned-from-name` annotation (a machine not cloned, or moved). */
  notCloned(): this {
    this.m3m.metadata.annotations = Object.fromEntries(
      Object.entries(this.m3m.metadata.annotations ?? {}).filter(([key]) => key !== 'cluster.x-k8s.io/cloned-from-name'),
    );
    return this;
  }

  templateSpec(patch: Record<string, unknown>): this {
    const template = this.find('Metal3MachineTemplate');
    if (template !== undefined) template.spec = { ...(template.spec as Record<string, unknown>), ...patch };
    return this;
  }

  machine(patch: {
    labels?: Record<string, string>;
    spec?: Record<string, unknown>;
    status?: Record<string, unknown>;
    ownerReferences?: KObject['metadata']['ownerReferences'];
  }): this {
    const machine = this.find('Machine');
    if (machine === undefined) return this;
    if (patch.status !== undefined) machine.status = { ...(machine.status as Record<string, unknown> | undefined), ...patch.status };
    if (patch.labels !== undefined) machine.metadata.labels = patch.labels;
    if (patch.ownerReferences !== undefined) machine.metadata.ownerReferences = patch.ownerReferences;
    if (patch.spec !== undefined) machine.spec = { ...(machine.spec as Record<string, unknown>), ...patch.spec };
    return this;
  }

  private hostMetadata(name: string, opts: HostOptions): KObject['metadata'] {
    const metadata: KObject['metadata'] = { name, namespace: NS, uid: hostUID(name), resourceVersion: opts.resourceVersion ?? '100', creationTimestamp: T0 };
    if (opts.labels !== undefined) metadata.labels = opts.labels;
    if (opts.annotations !== undefined) metadata.annotations = opts.annotations;
    if (opts.deleting === true) metadata.deletionTimestamp = T1;
    return metadata;
  }

  host(name: string, opts: HostOptions = {}): this {
    const consumer =
      opts.consumer === undefined
        ? undefined
        : { apiVersion: INFRA, kind: 'Metal3Machine', name: opts.consumer === 'me' ? this.name : opts.consumer, namespace: NS };
    const metadata = this.hostMetadata(name, opts);
    return this.put({
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata,
      spec: {
        online: false,
        bootMACAddress: '00:11:22:33:44:55',
        bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: `${name}-bmc-secret` },
        ...(consumer && { consumerRef: consumer }),
        ...opts.spec,
      },
      status: {
        operationalStatus: 'OK',
        errorMessage: opts.errorMessage ?? '',
        poweredOn: opts.poweredOn ?? false,
        provisioning: { state: opts.state ?? 'available', ID: hostUID(name) },
        lastUpdated: T0,
        ...(opts.hardware && { hardware: opts.hardware }),
      },
    });
  }

  /** A Metal3Data for this machine's claim (as the template hook creates it). */
  data(ready: boolean, extra: { errorMessage?: string } = {}): this {
    return this.put({
      apiVersion: INFRA,
      kind: 'Metal3Data',
      metadata: { name: 'workers-dt-0', namespace: NS, uid: 'data-uid', labels: { 'ironhook.dev/metal3dataclaim': this.name } },
      spec: {
        index: 0,
        claim: { name: this.name, namespace: NS },
        template: { name: 'workers-dt', namespace: NS },
        metaData: { name: `${this.name}-metadata`, namespace: NS },
        networkData: { name: `${this.name}-networkdata`, namespace: NS },
      },
      status: { ready, ...(extra.errorMessage !== undefined && { errorMessage: extra.errorMessage }) },
    });
  }

  /** The Metal3DataClaim child as Metacontroller created it. */
  claimChild(): this {
    this.children.push({
      apiVersion: INFRA,
      kind: 'Metal3DataClaim',
      metadata: {
        name: this.name,
        namespace: NS,
        uid: 'claim-uid',
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'controller-uid': M3M_UID },
        ownerReferences: [{ apiVersion: INFRA, kind: 'Metal3Machine', name: this.name, uid: M3M_UID, controller: true }],
      },
      spec: { template: { name: 'workers-dt' } },
    });
    return this;
  }

  /** An ObjectPatch child with the pool's outcome (default: Succeeded/Applied). */
  patch(purpose: string, sequence: number, opts: RequestOptions = {}): this {
    const phase = opts.phase ?? 'Succeeded';
    const finished = phase === 'Succeeded' || phase === 'Failed';
    const reason = opts.reason ?? defaultReason(phase);
    const annotations = opts.baseVersion === undefined ? undefined : { 'ironhook.dev/base-resource-version': opts.baseVersion };
    this.children.push({
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'ObjectPatch',
      metadata: {
        name: `${this.name}-${purpose}-${sequence}`,
        namespace: NS,
        uid: `req-${sequence}`,
        labels: { [PURPOSE_LABEL]: purpose, 'ironhook.dev/requested-by': `Metal3Machine.${this.name}`, 'controller-uid': M3M_UID },
        ...(annotations && { annotations }),
      },
      spec: patchSpec(opts),
      status: { phase, ...(finished && { reason, completionTime: T1 }), ...(opts.message !== undefined && { message: opts.message }) },
    });
    return this;
  }

  nodeOperation(sequence: number, opts: RequestOptions = {}): this {
    const phase = opts.phase ?? 'Running';
    const finished = phase === 'Succeeded' || phase === 'Failed';
    this.children.push({
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'NodeOperation',
      metadata: {
        name: `${this.name}-node-provider-id-${sequence}`,
        namespace: NS,
        uid: `req-${sequence}`,
        labels: { [PURPOSE_LABEL]: 'node-provider-id', 'controller-uid': M3M_UID },
      },
      spec: { cluster: { name: 'c1' }, action: 'SetProviderID', node: { uuid: 'host-uid-host-a' }, providerID: `metal3://${NS}/host-a/${this.name}` },
      status: {
        phase,
        ...(finished && { completionTime: T1 }),
        ...(opts.message !== undefined && { message: opts.message }),
        ...(opts.node && { node: opts.node }),
      },
    });
    return this;
  }

  /** A NodeOperation child of `purpose` with this spec and the pool's outcome (default: Succeeded). */
  nodeRequest(purpose: string, sequence: number, spec: Record<string, unknown>, opts: RequestOptions = {}): this {
    const phase = opts.phase ?? 'Succeeded';
    const finished = phase === 'Succeeded' || phase === 'Failed';
    this.children.push({
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'NodeOperation',
      metadata: {
        name: `${this.name}-${purpose}-${sequence}`,
        namespace: NS,
        uid: `req-${sequence}`,
        labels: { [PURPOSE_LABEL]: purpose, 'controller-uid': M3M_UID },
      },
      spec,
      status: { phase, ...(finished && { completionTime: T1 }), ...(opts.message !== undefined && { message: opts.message }) },
    });
    return this;
  }

  deleting(): this {
    this.m3m.metadata.deletionTimestamp = T1;
    this.finalizing = true;
    return this;
  }

  buildMachine(): KObject {
    return structuredClone(this.m3m);
  }

  request(): CompositeSyncRequest {
    const children: ObjectMap = {
      'Metal3DataClaim.infrastructure.cluster.x-k8s.io/v1beta2': {},
      'ObjectPatch.ironhook.dev/v1alpha1': {},
      'NodeOperation.ironhook.dev/v1alpha1': {},
    };
    for (const child of this.children) {
      const key = `${child.kind}.${child.apiVersion}`;
      children[key] = { ...children[key], [`${NS}/${child.metadata.name ?? ''}`]: structuredClone(child) };
    }
    const related: ObjectMap = {};
    for (const obj of this.related.values()) {
      const key = `${obj.kind}.${obj.apiVersion}`;
      related[key] = { ...related[key], [`${NS}/${obj.metadata.name ?? ''}`]: structuredClone(obj) };
    }
    return {
      controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'ironhook-metal3machine' } },
      parent: this.buildMachine(),
      children,
      related,
      finalizing: this.finalizing,
    };
  }
}

export function machine(name?: string): MachineBuilder {
  return new MachineBuilder(name);
}
