// ironhook.dev/v1alpha1 request objects of the Cluster API provider (issue 7, docs/capm3.md).
//
// Metacontroller writes only a parent's own children and status, so the Metal3Machine,
// Metal3MachineTemplate and Metal3Remediation hooks express every write on an object they do not
// own as a child request that the driver pool carries out and reports on:
//
//   ObjectPatch    an RFC 6902 JSON patch (with `test` operations as preconditions) on one object
//                  of the management cluster, sent as application/json-patch+json, plus condition
//                  upserts on a status list. A failed `test` is reported, never retried: it means
//                  somebody else changed the object first (another machine claimed the host).
//   NodeOperation  a read/write on a Node of a workload cluster, reached through the
//                  `<cluster>-kubeconfig` Secret (key `value`) in the request's namespace;
//                  or `Wait`, a timer that touches nothing.
//
// Requests are immutable (updateStrategy OnDelete) and named `<owner>-<purpose>-<sequence>`; a new
// attempt is a new sequence. The pool writes only their status.
import type { KObject, TypedObject } from '../k8s.js';
import type { NodeOperationSpec, NodeOperationStatus } from '../api/ironhook.dev/v1alpha1/nodeoperation.js';
import type { ObjectPatchSpec, ObjectPatchStatus } from '../api/ironhook.dev/v1alpha1/objectpatch.js';

export const OBJECT_PATCH_KIND = 'ObjectPatch';
export const NODE_OPERATION_KIND = 'NodeOperation';
/** On a request: the kind/name of the object whose hook asked for it (`Metal3Machine/<name>`). */
export const REQUESTED_BY_LABEL = 'ironhook.dev/requested-by';
/** On a request: what it is for (`claim`, `host-spec`, `release`, `fence`, …). */
export const PURPOSE_LABEL = 'ironhook.dev/purpose';

// The request shapes are generated from manifests/crds (scripts/api-types.ts).
export type { ObjectPatchSpec, ObjectPatchStatus } from '../api/ironhook.dev/v1alpha1/objectpatch.js';
export type { NodeOperationSpec, NodeOperationStatus } from '../api/ironhook.dev/v1alpha1/nodeoperation.js';

/** One RFC 6902 operation. `path` and `from` are JSON pointers (RFC 6901: `~1` for `/`). */
export type JsonPatchOperation = ObjectPatchSpec['operations'][number];
export type PatchTarget = ObjectPatchSpec['target'];
/**
 * Upsert `condition` (by type) in the list at JSON pointer `path` of the target, creating the
 * list and its parents when missing. The pool stamps `lastTransitionTime` when the status changes.
 */
export type ConditionUpsert = NonNullable<ObjectPatchSpec['conditions']>[number];
/** A Kubernetes condition (metav1.Condition, or Cluster API v1beta1 with `severity`). */
export type ConditionValue = ConditionUpsert['condition'];

export const PatchReason = {
  /** The patch is in the object now; `resourceVersion` is the object's version after it. */
  Applied: 'Applied',
  /** A `test` operation failed: the object changed since the hook looked. Not retried. */
  TestFailed: 'TestFailed',
  /** The target does not exist. Not retried. */
  NotFound: 'NotFound',
  /** The API server rejected the patched object (validation, admission). Not retried. */
  Rejected: 'Rejected',
} as const;
export type PatchReason = (typeof PatchReason)[keyof typeof PatchReason];

export type ObjectPatch = TypedObject<ObjectPatchSpec, ObjectPatchStatus>;

export const NodeAction = {
  /**
   * Find the workload Node (label `metal3.io/uuid=<node.uuid>`, else `kubernetes.io/hostname` in
   * `node.hostnames`) and set `spec.providerID` when empty. Keeps checking (updating
   * `observedTime`) while no Node matches; a Node with a different providerID or two matching
   * Nodes fail the request.
   */
  SetProviderID: 'SetProviderID',
  /** Save the Node's labels and annotations into status, then delete it. A missing Node succeeds. */
  Fence: 'Fence',
  /**
   * Wait until the Node named `node.name` exists, then add the saved labels/annotations it lacks,
   * and `providerID` (the fenced Node's) when the Node has none: a kubelet re-registers without one.
   */
  Restore: 'Restore',
  /**
   * Make the labels of Node `node.name` under `syncLabels.prefixes` equal to `syncLabels.labels`
   * (upstream's BareMetalHost → Node label sync): add or change those, remove the Node's other
   * labels under the prefixes. Waits while the Node does not exist.
   */
  SyncLabels: 'SyncLabels',
  /**
   * Remediation's out-of-service mode: add `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`
   * to Node `node.name`, then wait until no pod on it is terminating and no VolumeAttachment names
   * it. A missing Node succeeds without `status.node`.
   */
  AddOutOfServiceTaint: 'AddOutOfServiceTaint',
  /** Remove that taint from Node `node.name` (a missing Node or taint succeeds). */
  RemoveOutOfServiceTaint: 'RemoveOutOfServiceTaint',
  /**
   * Succeed once `until` has passed on the pool's clock, touching nothing. Hooks read no clock:
   * this is the remediation's timeout, written as the request's completionTime when it is due.
   */
  Wait: 'Wait',
} as const;
export type NodeAction = (typeof NodeAction)[keyof typeof NodeAction];

/** SetProviderID: the Node found; Fence: the Node deleted, with what was saved. */
export type ObservedNode = NonNullable<NodeOperationStatus['node']>;

export type NodeOperation = TypedObject<NodeOperationSpec, NodeOperationStatus>;

/** The kubeconfig Secret Cluster API writes for a cluster, and the key that holds it. */
export function kubeconfigSecretName(cluster: string): string {
  return `${cluster}-kubeconfig`;
}
export const KUBECONFIG_SECRET_KEY = 'value';

/** RFC 6901 escaping of one path segment (`a/b` → `a~1b`), for label and annotation keys. */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/gu, '~0').replace(/\//gu, '~1');
}

export function isObjectPatch(obj: KObject): obj is ObjectPatch {
  return obj.kind === OBJECT_PATCH_KIND;
}

export function isNodeOperation(obj: KObject): obj is NodeOperation {
  return obj.kind === NODE_OPERATION_KIND;
}
