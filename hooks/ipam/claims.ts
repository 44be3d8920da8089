// The claims a pool serves, metal3 IPClaims and Cluster API IPAddressClaims alike, reduced to
// what allocation needs. Matching follows upstream (same namespace, pool by
// name) except that a Cluster API claim must also name our group and kind, as the CAPI IPAM
// contract requires (upstream ignores them).
import type { KObject } from '../../domain/k8s.js';
import {
  CLUSTER_NAME_LABEL,
  IPAM_GROUP,
  IPCLAIM_FINALIZER,
  Kind,
  PAUSED_ANNOTATION,
  REQUESTED_IP_ANNOTATION,
  UpstreamFinalizer,
} from '../../domain/ipam/types.js';
import { compareText, rec } from '../kit/index.js';
import { stringField, stringMap } from './request.js';

export type ClaimKind = typeof Kind.IPClaim | typeof Kind.IPAddressClaim;

export interface PoolClaim {
  readonly kind: ClaimKind;
  readonly name: string;
  readonly apiVersion: string;
  readonly uid?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly created: string;
  readonly deletionTimestamp?: string;
  /** Being deleted: never gets a new address. */
  readonly deleting: boolean;
  /** Being deleted and held only by IPAM's own finalizers: its address is released now. */
  readonly releasable: boolean;
  /** Its Cluster is paused or missing (CAPI contract): nothing changes for it. */
  readonly frozen: boolean;
  /** The `ipAddress` annotation, as written. */
  readonly requested?: string;
  /** `status.address.name` the claim already reports (metal3 claims), used to re-find a lost allocation. */
  readonly reportedName?: string;
}

export function claimKey(kind: ClaimKind, name: string): string {
  return `${kind}/${name}`;
}

export function keyOf(claim: PoolClaim): string {
  return claimKey(claim.kind, claim.name);
}

/** Allocation order: oldest first, then by name; deterministic for claims created in one second. */
export function compareClaims(a: PoolClaim, b: PoolClaim): number {
  return compareText(a.created, b.created) || compareText(a.name, b.name) || compareText(a.kind, b.kind);
}

const METAL3_RELEASE_FINALIZERS = new Set<string>([UpstreamFinalizer.IPClaim, IPCLAIM_FINALIZER]);
const CAPI_RELEASE_FINALIZERS = new Set<string>([UpstreamFinalizer.CapiClaim]);

function releasable(obj: KObject, ours: ReadonlySet<string>): boolean {
  if (obj.metadata.deletionTimestamp === undefined) return false;
  return (obj.metadata.finalizers ?? []).every((finalizer) => ours.has(finalizer));
}

function baseClaim(obj: KObject, kind: ClaimKind, ours: ReadonlySet<string>): PoolClaim {
  const meta = obj.metadata;
  const requested = meta.annotations?.[REQUESTED_IP_ANNOTATION];
  return {
    kind,
    name: meta.name ?? '',
    apiVersion: obj.apiVersion,
    ...(meta.uid !== undefined && { uid: meta.uid }),
    labels: stringMap(meta.labels),
    created: meta.creationTimestamp ?? '',
    ...(meta.deletionTimestamp !== undefined && { deletionTimestamp: meta.deletionTimestamp }),
    deleting: meta.deletionTimestamp !== undefined,
    releasable: releasable(obj, ours),
    frozen: false,
    ...(requested !== undefined && requested !== '' && { requested }),
  };
}

/** The namespace an IPClaim's `spec.pool` names when it is not the claim's own, else undefined. */
export function foreignPoolNamespace(claim: KObject): string | undefined {
  const named = stringField(rec(rec(claim.spec).pool).namespace) ?? '';
  return named !== '' && named !== claim.metadata.namespace ? named : undefined;
}

/**
 * IPClaims whose `spec.pool.name` is the pool. A claim naming another namespace's pool (upstream
 * ignores the namespace and serves it from its own) gets no address here: it is frozen, so an
 * address an older version gave it stays until the claim is deleted.
 */
export function metal3Claims(objects: readonly KObject[], poolName: string): PoolClaim[] {
  const claims: PoolClaim[] = [];
  for (const obj of objects) {
    const pool = rec(rec(obj.spec).pool);
    if (stringField(pool.name) !== poolName) continue;
    const address = rec(rec(obj.status).address);
    const reportedName = stringField(address.name);
    const base = baseClaim(obj, Kind.IPClaim, METAL3_RELEASE_FINALIZERS);
    const claim = { ...base, frozen: foreignPoolNamespace(obj) !== undefined && !base.deleting };
    claims.push(reportedName === undefined ? claim : { ...claim, reportedName });
  }
  return claims;
}

/** What the pool knows about the Clusters in its namespace (only when Cluster API is served). */
export interface ClusterIndex {
  /** Cluster name → paused. */
  readonly paused: ReadonlyMap<string, boolean>;
}

export function clusterIndex(clusters: readonly KObject[]): ClusterIndex {
  const paused = new Map<string, boolean>();
  for (const cluster of clusters) {
    const spec = rec(cluster.spec);
    const annotated = cluster.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
    paused.set(cluster.metadata.name ?? '', annotated || spec.paused === true);
  }
  return { paused };
}

/** Paused or missing Cluster: the CAPI contract says leave the claim alone. */
function clusterBlocks(index: ClusterIndex, clusterName: string | undefined): boolean {
  if (clusterName === undefined || clusterName === '') return false;
  return index.paused.get(clusterName) ?? true;
}

function isOurPool(poolRef: Record<string, unknown>, poolName: string): boolean {
  return stringField(poolRef.apiGroup) === IPAM_GROUP && stringField(poolRef.kind) === Kind.IPPool && stringField(poolRef.name) === poolName;
}

/** IPAddressClaims whose `spec.poolRef` names this pool's group, kind and name. */
export function capiClaims(objects: readonly KObject[], poolName: string, clusters: ClusterIndex): PoolClaim[] {
  const claims: PoolClaim[] = [];
  for (const obj of objects) {
    const spec = rec(obj.spec);
    if (!isOurPool(rec(spec.poolRef), poolName)) continue;
    const clusterName = stringField(spec.clusterName) ?? obj.metadata.labels?.[CLUSTER_NAME_LABEL];
    claims.push({ ...baseClaim(obj, Kind.IPAddressClaim, CAPI_RELEASE_FINALIZERS), frozen: clusterBlocks(clusters, clusterName) });
  }
  return claims;
}

/** One claim per name: the claims a pool serves, and the ones refused because the other kind holds the name. */
export interface NamedClaims {
  readonly claims: PoolClaim[];
  readonly refused: PoolClaim[];
}

/**
 * Which of an IPClaim and an IPAddressClaim with one name keeps it (upstream keys the pool's
 * allocations by name alone): the one whose IPAddress exists, else the older, else the IPClaim.
 * So an address already handed out never moves to the other claim.
 */
function keeperOf(metal3: PoolClaim, capi: PoolClaim, holders: ReadonlySet<string>): PoolClaim {
  const metal3Holds = holders.has(keyOf(metal3));
  if (metal3Holds !== holders.has(keyOf(capi))) return metal3Holds ? metal3 : capi;
  return compareText(metal3.created, capi.created) <= 0 ? metal3 : capi;
}

/** Both kinds of claims, with every name served once; `holders` are the claim keys whose IPAddress exists. */
export function oneClaimPerName(metal3: readonly PoolClaim[], capi: readonly PoolClaim[], holders: ReadonlySet<string>): NamedClaims {
  const byName = new Map(metal3.map((claim) => [claim.name, claim]));
  const refused = new Set<string>();
  for (const claim of capi) {
    const twin = byName.get(claim.name);
    if (twin === undefined) continue;
    const keeper = keeperOf(twin, claim, holders);
    refused.add(keyOf(keeper === twin ? claim : twin));
  }
  const all = [...metal3, ...capi];
  return { claims: all.filter((claim) => !refused.has(keyOf(claim))), refused: all.filter((claim) => refused.has(keyOf(claim))) };
}
