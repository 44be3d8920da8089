// What the Metal3Cluster hooks read from a request: the owner Cluster (ownerReferences), its
// Machines (label cluster.x-k8s.io/cluster-name), pause, external management, the endpoint.
import { CAPI_GROUP, CLUSTER_NAME_LABEL, PAUSED_ANNOTATION } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import { named, objectsOf, ownerOf, parseComposite, rec, str, type CompositeRequest } from '../kit/index.js';
import { newest } from './conditions.js';

export const METAL3CLUSTER_KIND = 'Metal3Cluster';
/** Cluster API's marker for an infrastructure cluster that another controller manages. */
const MANAGED_BY_ANNOTATION = 'cluster.x-k8s.io/managed-by';

export interface ClusterView {
  c: CompositeRequest;
  /** The owner Cluster's name from ownerReferences ('' while Cluster API has not set one). */
  ownerName: string;
  cluster: KObject | undefined;
  /** Cluster API Machines of the owner cluster in this namespace. */
  machines: KObject[];
  pausedBy: string | undefined;
  externallyManaged: boolean;
  /** The newest timestamp seen in the request (no clock is read). */
  observedTime: string;
  oldStatus: Record<string, unknown>;
}

function pausedBy(parent: KObject, cluster: KObject | undefined): string | undefined {
  if (rec(cluster?.spec).paused === true) return `Cluster ${cluster?.metadata.name ?? ''} has spec.paused set to true`;
  if (parent.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined) return `Metal3Cluster has the ${PAUSED_ANNOTATION} annotation`;
  return undefined;
}

export function clusterView(request: unknown): ClusterView {
  const c = parseComposite(request, METAL3CLUSTER_KIND);
  const ownerName = ownerOf(c.parent, 'Cluster', CAPI_GROUP)?.name ?? '';
  const cluster = named(objectsOf(c.related, 'Cluster', CAPI_GROUP, c.namespace), ownerName);
  const machines =
    ownerName === '' ? [] : objectsOf(c.related, 'Machine', CAPI_GROUP, c.namespace).filter((m) => m.metadata.labels?.[CLUSTER_NAME_LABEL] === ownerName);
  const oldStatus = Object.fromEntries(Object.entries(rec(c.parent.status)).filter(([key]) => key !== 'observedGeneration'));
  const observedTime = newest([
    c.parent.metadata.creationTimestamp,
    c.parent.metadata.deletionTimestamp,
    cluster?.metadata.creationTimestamp,
    cluster?.metadata.deletionTimestamp,
    str(oldStatus.lastUpdated),
  ]);
  return {
    c,
    ownerName,
    cluster,
    machines,
    pausedBy: pausedBy(c.parent, cluster),
    externallyManaged: c.parent.metadata.annotations?.[MANAGED_BY_ANNOTATION] !== undefined,
    observedTime: observedTime ?? '',
    oldStatus,
  };
}

/** Why the control plane endpoint cannot be used, or undefined when it can. */
export function endpointProblem(spec: unknown): string | undefined {
  const endpoint = rec(rec(spec).controlPlaneEndpoint);
  const host = str(endpoint.host);
  const port = endpoint.port;
  if (host === '') return 'spec.controlPlaneEndpoint.host is not set';
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    return `spec.controlPlaneEndpoint.port must be between 1 and 65535, got ${JSON.stringify(port ?? null)}`;
  }
  return undefined;
}
