// The Kubernetes surface the pool needs, as a port: the real adapter (client.ts) talks to the
// apiserver through @kubernetes/client-node, the in-memory one (memory.ts) backs unit tests.
// Objects are plain JSON in the shapes of domain/k8s.ts.
import type { KObject, ObjectMeta, ObjectReference } from '../../../domain/k8s.js';

export type WatchedResource = 'hostoperations' | 'bmcmonitors' | 'secrets';
export type StatusResource = 'hostoperations' | 'bmcmonitors';

export interface WatchEvent<T extends KObject = KObject> {
  type: 'added' | 'modified' | 'deleted';
  object: T;
}

export interface WatchOptions {
  /** One namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
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

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

export interface KubePort {
  watch(resource: WatchedResource, options: WatchOptions, onEvent: (event: WatchEvent) => void): KubeWatch;
  /** Merge patch of the status subresource (never touches spec). Not found → KubeStatusError 404. */
  patchStatus(resource: StatusResource, namespace: string, name: string, status: Record<string, unknown>): Promise<void>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  patchSecretMetadata(namespace: string, name: string, patch: SecretMetadataPatch): Promise<Secret>;
  /** Creates an Event; returns its name. */
  createEvent(namespace: string, event: CoreEvent): Promise<string>;
  patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<void>;
  getLease(namespace: string, name: string): Promise<Lease | undefined>;
  createLease(lease: Lease): Promise<Lease>;
  /** Replaces a Lease; conflict (409) when metadata.resourceVersion is stale. */
  replaceLease(lease: Lease): Promise<Lease>;
}

/** An apiserver answer other than success, with its HTTP status. */
export class KubeStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeStatusError';
  }
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof KubeStatusError) {
    return error.status;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return statusOf(error) === 409;
}

export function objectKey(object: { metadata: { namespace?: string; name?: string } }): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
