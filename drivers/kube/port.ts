// The Kubernetes surface the driver pool needs, as a port: the real adapter (client.ts) talks to
// the apiserver through @kubernetes/client-node, the in-memory one (test/support/memory-kube.ts)
// backs unit tests. Objects are plain JSON in the shapes of domain/k8s.ts; failures are
// KubeStatusError (errors.ts) in both.
import type { KObject, ObjectMeta, ObjectReference } from '../../domain/k8s.js';

// Spelled out as literal unions: the chart test derives the pool's RBAC from them (test/support/helm.ts).
export type WatchedResource =
  | 'hostoperations'
  | 'bmcmonitors'
  | 'objectpatches'
  | 'nodeoperations'
  | 'secrets'
  | 'baremetalhosts'
  | 'hardwaredata'
  | 'hostfirmwaresettings'
  | 'metal3dataclaims'
  | 'metal3datas'
  | 'ipclaims'
  | 'ipaddresses';
/** Data children clusterctl move may carry, whose controller-uid label the pool re-points (drivers/pool/moved-children.ts). */
export type AdoptedResource = 'hardwaredata' | 'hostfirmwaresettings' | 'metal3dataclaims' | 'metal3datas' | 'ipclaims' | 'ipaddresses';
export const ADOPTED_RESOURCES: readonly AdoptedResource[] = [
  'hardwaredata',
  'hostfirmwaresettings',
  'metal3dataclaims',
  'metal3datas',
  'ipclaims',
  'ipaddresses',
];
export type StatusResource = 'hostoperations' | 'bmcmonitors' | 'objectpatches' | 'nodeoperations';
/** The request kinds (ironhook.dev/v1alpha1) the pool executes and writes the status of. */
export type RequestResource = StatusResource;
export const REQUEST_GROUP = 'ironhook.dev';
export const REQUEST_VERSION = 'v1alpha1';

const GROUP_VERSIONS: Record<Exclude<WatchedResource, 'secrets'>, { group: string; version: string }> = {
  hostoperations: { group: REQUEST_GROUP, version: REQUEST_VERSION },
  bmcmonitors: { group: REQUEST_GROUP, version: REQUEST_VERSION },
  objectpatches: { group: REQUEST_GROUP, version: REQUEST_VERSION },
  nodeoperations: { group: REQUEST_GROUP, version: REQUEST_VERSION },
  // Read only, for the hosts-per-state gauges (drivers/pool/fleet.ts).
  baremetalhosts: { group: 'metal3.io', version: 'v1alpha1' },
  hardwaredata: { group: 'metal3.io', version: 'v1alpha1' },
  hostfirmwaresettings: { group: 'metal3.io', version: 'v1alpha1' },
  metal3dataclaims: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta2' },
  metal3datas: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta2' },
  ipclaims: { group: 'ipam.metal3.io', version: 'v1alpha1' },
  ipaddresses: { group: 'ipam.metal3.io', version: 'v1alpha1' },
};

/** The API group and version of a watched custom resource (Secrets are core/v1). */
export function groupVersionOf(resource: Exclude<WatchedResource, 'secrets'>): { group: string; version: string } {
  return GROUP_VERSIONS[resource];
}

export interface WatchEvent<T extends KObject = KObject> {
  type: 'added' | 'modified' | 'deleted';
  object: T;
}

export interface WatchOptions {
  /** One namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  /**
   * What of each object the watch keeps and hands on: a watch holds every object it saw, so
   * one whose handler reads a few fields keeps only those (the pool's memory grows with hosts).
   */
  project?: (object: KObject) => KObject;
}

export interface KubeWatch {
  /** Resolves once the initial list has been delivered. */
  start(): Promise<void>;
  stop(): void;
}

export interface Secret extends KObject {
  data?: Record<string, string>;
  type?: string;
}

export interface SecretMetadataPatch {
  /** Precondition: the patch fails with a conflict when the Secret changed since. */
  resourceVersion: string;
  labels?: Record<string, string>;
  ownerReferences?: ObjectMeta['ownerReferences'];
  finalizers?: string[];
}

export interface CoreEvent {
  metadata: { generateName?: string; name?: string; namespace: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
  action?: string;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** An owner of a Lease: the pod of the replica holding it. */
interface LeaseOwner {
  apiVersion: 'v1';
  kind: 'Pod';
  name: string;
  uid: string;
}

export interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string; ownerReferences?: LeaseOwner[] };
  spec: LeaseSpec;
}

export interface KubePort {
  watch(resource: WatchedResource, options: WatchOptions, onEvent: (event: WatchEvent) => void): KubeWatch;
  /** Merge patch of the status subresource (never touches spec). Not found → KubeStatusError 404. */
  patchStatus(resource: StatusResource, namespace: string, name: string, status: Record<string, unknown>): Promise<void>;
  /** Merge patch of metadata.labels (a moved child re-pointed at its new controller). Not found → KubeStatusError 404. */
  patchLabels(resource: AdoptedResource, namespace: string, name: string, labels: Record<string, string>): Promise<void>;
  /** Deletes the object with this uid (a precondition: a newer object of the same name stays); gone already is fine. */
  deleteRequest(resource: StatusResource, namespace: string, name: string, uid: string): Promise<void>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  patchSecretMetadata(namespace: string, name: string, patch: SecretMetadataPatch): Promise<Secret>;
  /** Creates an Event; returns its name. */
  createEvent(namespace: string, event: CoreEvent): Promise<string>;
  patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<void>;
  getLease(namespace: string, name: string): Promise<Lease | undefined>;
  createLease(lease: Lease): Promise<Lease>;
  /** Replaces a Lease; conflict (409) when metadata.resourceVersion is stale. */
  replaceLease(lease: Lease): Promise<Lease>;
  /** Deletes a Lease; conflict (409) when metadata.resourceVersion is stale, 404 when gone. */
  deleteLease(lease: Lease): Promise<void>;
  /** The request resources the apiserver serves (a CRD may not be installed). */
  servedRequestResources(): Promise<string[]>;
}

export function objectKey(object: { metadata: { namespace?: string; name?: string } }): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
