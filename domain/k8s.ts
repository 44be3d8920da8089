// Minimal Kubernetes object shapes shared by hooks and drivers (no client code here).

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A typed object: spec and status shapes of one kind. */
export interface TypedObject<Spec, Status> extends KObject {
  spec: Spec;
  status?: Status;
}

/** Reference to a Secret; namespace empty means "the referencing object's namespace". */
export interface SecretReference {
  name?: string;
  namespace?: string;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** metav1.Condition */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Metacontroller's child label (generateSelector): the uid of the parent that made the object. */
export const CONTROLLER_UID_LABEL = 'controller-uid';

/** The uid of the object's controller owner reference (Kubernetes allows one at most). */
function controllerUid(object: KObject): string | undefined {
  return (object.metadata.ownerReferences ?? []).find((ref) => ref.controller === true)?.uid;
}

/**
 * A child its controller no longer owns: it carries Metacontroller's `controller-uid` label but no
 * controller owner reference with that uid. `clusterctl move` re-creates parents with new uids and
 * their children with the old label, which Metacontroller then releases; a parent deleted with
 * orphaning leaves its children so too. Objects without the label (made by hand) are never stale.
 */
export function isStaleChild(object: KObject): boolean {
  const madeBy = object.metadata.labels?.[CONTROLLER_UID_LABEL];
  return madeBy !== undefined && controllerUid(object) !== madeBy;
}

/**
 * The uid a moved child's `controller-uid` label should carry: that of its controller owner, when
 * the label names another. `clusterctl move` re-creates a child with its owner reference pointing
 * at the re-created parent but the label still naming the old one.
 */
export function movedChildOwner(object: KObject): string | undefined {
  return isStaleChild(object) ? controllerUid(object) : undefined;
}

/**
 * The object with only the metadata that identifies and relates it (name, namespace, uid,
 * resourceVersion, labels, owner references): what a watch keeps when its handler reads no more.
 * A HardwareData or a BareMetalHost with its hardware details is tens of kilobytes; this is a few hundred bytes.
 */
export function identityOf(object: KObject): KObject {
  const { name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp } = object.metadata;
  const metadata = Object.fromEntries(
    Object.entries({ name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp }).filter(([, value]) => value !== undefined),
  );
  return { apiVersion: object.apiVersion, kind: object.kind, metadata };
}
