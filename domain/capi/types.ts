// Cluster API names shared by the CAPM3-compatible kinds:
// groups and versions, contract labels, the well-known labels and annotations, and the small
// reference types that differ between v1beta1 and v1beta2.
import type { ObjectReference } from '../k8s.js';

/** The infrastructure provider group Metal3Cluster, Metal3Machine, Metal3Data… live in. */
export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_V1BETA2 = `${INFRA_GROUP}/v1beta2`;

/** Cluster API core (Machine, Cluster); v1beta2 is what Cluster API ≥ 1.11 serves. */
export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_V1BETA2 = `${CAPI_GROUP}/v1beta2`;

export type InfraVersion = 'v1beta1' | 'v1beta2';

export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
/** On a Metal3Machine: `<namespace>/<host name>` of the BareMetalHost it is associated with. */
export const BAREMETALHOST_ANNOTATION = 'metal3.io/BareMetalHost';
/** Metacontroller's selector label (generateSelector); never copied from one object to another. */
export const CONTROLLER_UID_LABEL = 'controller-uid';

export const CapiKind = {
  Machine: 'Machine',
  Metal3Machine: 'Metal3Machine',
} as const;

/** v1beta2's reference to an object in the same group (replaces corev1.ObjectReference). */
export interface Metal3ObjectRef {
  name?: string;
  namespace?: string;
}

/** The parts of a v1beta1 ObjectReference that a v1beta2 Metal3ObjectRef cannot hold. */
export type ReferenceExtras = Omit<ObjectReference, 'name' | 'namespace'>;

/** `group` of an apiVersion (`''` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** `version` of an apiVersion. */
export function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

/** Labels copied from one object to another, minus Metacontroller's selector label, sorted. */
export function copiedLabels(labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels ?? {}).sort()) {
    const value = labels?.[key];
    if (key !== CONTROLLER_UID_LABEL && value !== undefined) out[key] = value;
  }
  return out;
}
