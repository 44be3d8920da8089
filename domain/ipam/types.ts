// ipam.metal3.io/v1alpha1 IPPool, IPClaim and IPAddress, and the Cluster API IPAM kinds the
// pools also serve. Field names are upstream's.
import type { IPPoolSpec, IPPoolStatus } from '../api/ipam.metal3.io/v1alpha1/ippool.js';
import type { TypedObject } from '../k8s.js';

export const IPAM_GROUP = 'ipam.metal3.io';
export const IPAM_API_VERSION = 'ipam.metal3.io/v1alpha1';
export const CAPI_IPAM_GROUP = 'ipam.cluster.x-k8s.io';
export const CAPI_GROUP = 'cluster.x-k8s.io';

export const Kind = {
  IPPool: 'IPPool',
  IPClaim: 'IPClaim',
  IPAddress: 'IPAddress',
  IPAddressClaim: 'IPAddressClaim',
  Cluster: 'Cluster',
} as const;

/** Upstream's finalizer names; Ironhook's equivalents are Metacontroller's, below. */
export const UpstreamFinalizer = {
  IPPool: 'ippool.ipam.metal3.io',
  IPClaim: 'ipclaim.ipam.metal3.io',
  IPAddress: 'ipaddress.ipam.metal3.io',
  CapiClaim: 'ipam.metal3.io/ipaddressclaim',
  CapiAddress: 'ipam.metal3.io/ipaddress',
} as const;

/** Metacontroller object names; they also name the finalizers Metacontroller adds. */
const ControllerName = {
  IPPool: 'ironhook-ippool',
  IPClaim: 'ironhook-ipclaim',
  CapiClaim: 'ipaddressclaim-ipam',
} as const;

export const IPCLAIM_FINALIZER = `metacontroller.io/compositecontroller-${ControllerName.IPClaim}`;

/** Annotation on an IPClaim / IPAddressClaim asking for one exact address. */
export const REQUESTED_IP_ANNOTATION = 'ipAddress';
/** Label Ironhook puts on every IPAddress it creates: the claim's name (hashed when long). */
export const CLAIM_LABEL = 'ironhook.dev/ipclaim';
/** Metacontroller's selector label (generateSelector); never copied from a claim. */
export const CONTROLLER_UID_LABEL = 'controller-uid';
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';

// The metal3 IPAM kinds' shapes are generated from manifests/crds (scripts/api-types.ts).
export type { IPPoolSpec, IPPoolStatus } from '../api/ipam.metal3.io/v1alpha1/ippool.js';
export type { IPClaimStatus } from '../api/ipam.metal3.io/v1alpha1/ipclaim.js';

export type AllocationStrategy = NonNullable<IPPoolSpec['allocationStrategy']>;
/** One entry of `spec.pools`: a range, consumed in order. */
export type IPPoolRange = NonNullable<IPPoolSpec['pools']>[number];
/** Ironhook's additions to the pool status (status.ironhook); upstream clients ignore the block. */
export type IPPoolIronhookStatus = NonNullable<IPPoolStatus['ironhook']>;

export type IPPool = TypedObject<IPPoolSpec, IPPoolStatus>;

/** How many claim errors the pool status lists by name (etcd objects are limited to ~1.5 MiB). */
export const CLAIM_ERROR_LIMIT = 1000;

/** Claim error texts; the first four are upstream's, the others are Ironhook's. */
export const ClaimError = {
  Exhausted: 'Exhausted IP Pools',
  // Upstream's spelling (ip-address-manager v1.13.2), kept: CAPM3 copies it into Metal3Data errors.
  PreAllocationOutOfBounds: 'Pre-allocated IP out of bond',
  RequestedNotAvailable: 'Requested IP not available',
  Conflicting: 'PreAllocation and requested ip address are conflicting',
  InvalidRequested: 'Requested IP address is not a valid IP address',
  PreAllocationInUse: 'Pre-allocated IP is in use by another claim',
  DuplicateClaimName: 'An IPClaim with the same name already uses this pool',
  DuplicateCapiClaimName: 'An IPAddressClaim with the same name already uses this pool',
} as const;
