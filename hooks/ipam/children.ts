// The IPAddress children of a pool: one per held address. A kept allocation returns the observed
// spec unchanged (IPAddresses are immutable upstream; the child rule is OnDelete), a new one is
// built from the range it came from, as upstream does.
import { formatAddress, ipAddressName } from '../../domain/ipam/address.js';
import { CLAIM_LABEL, CONTROLLER_UID_LABEL, IPAM_API_VERSION, IPAM_GROUP, Kind } from '../../domain/ipam/types.js';
import type { KObject, OwnerReference } from '../../domain/k8s.js';
import { labelValue } from '../../domain/naming.js';
import type { Hold } from './plan.js';
import { compareText } from '../kit/index.js';

export interface PoolRef {
  readonly name: string;
  readonly namespace: string;
}

/** The claim's labels (as upstream copies them) minus Metacontroller's selector label, plus ours. */
function childLabels(hold: Hold): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of Object.keys(hold.claim.labels)) {
    const value = hold.claim.labels[key];
    if (key !== CONTROLLER_UID_LABEL && key !== CLAIM_LABEL && value !== undefined) labels[key] = value;
  }
  labels[CLAIM_LABEL] = labelValue(hold.claim.name);
  return labels;
}

/** A non-controller reference to the claim; Metacontroller adds the controller reference to the pool. */
function claimOwner(hold: Hold, blockOwnerDeletion: boolean): OwnerReference[] {
  const uid = hold.claim.uid;
  if (uid === undefined) return [];
  const ref: OwnerReference = { apiVersion: hold.claim.apiVersion, kind: hold.claim.kind, name: hold.claim.name, uid };
  return [blockOwnerDeletion ? { apiVersion: ref.apiVersion, blockOwnerDeletion: true, kind: ref.kind, name: ref.name, uid } : ref];
}

function metadata(name: string, hold: Hold, blockOwnerDeletion: boolean): Record<string, unknown> {
  const owners = claimOwner(hold, blockOwnerDeletion);
  return { labels: childLabels(hold), name, ...(owners.length > 0 && { ownerReferences: owners }) };
}

function metal3Spec(hold: Hold, pool: PoolRef): Record<string, unknown> {
  if (hold.observed !== undefined) return hold.observed.spec;
  const range = hold.range;
  const dnsServers = range?.dnsServers;
  return {
    address: formatAddress(hold.address),
    claim: { name: hold.claim.name, namespace: pool.namespace },
    ...(dnsServers !== undefined && dnsServers.length > 0 && { dnsServers: [...dnsServers] }),
    ...(range?.gateway !== undefined && { gateway: range.gateway }),
    pool: { name: pool.name, namespace: pool.namespace },
    ...(range !== undefined && range.prefix !== 0 && { prefix: range.prefix }),
  };
}

function capiSpec(hold: Hold, pool: PoolRef): Record<string, unknown> {
  if (hold.observed !== undefined) return hold.observed.spec;
  const gateway = hold.range?.gateway;
  return {
    address: formatAddress(hold.address),
    claimRef: { name: hold.claim.name },
    ...(gateway !== undefined && gateway !== '' && { gateway }),
    poolRef: { apiGroup: IPAM_GROUP, kind: Kind.IPPool, name: pool.name },
    prefix: hold.range?.prefix ?? 0,
  };
}

function metal3Child(hold: Hold, pool: PoolRef, namePrefix: string): KObject {
  const name = hold.observed?.objectName ?? ipAddressName(namePrefix, hold.address);
  return {
    apiVersion: IPAM_API_VERSION,
    kind: Kind.IPAddress,
    metadata: metadata(name, hold, false),
    spec: metal3Spec(hold, pool),
  };
}

/** Named after the claim, as the Cluster API IPAM contract asks (upstream names it after the address). */
function capiChild(hold: Hold, pool: PoolRef, apiVersion: string): KObject {
  return {
    apiVersion,
    kind: Kind.IPAddress,
    metadata: metadata(hold.claim.name, hold, true),
    spec: capiSpec(hold, pool),
  };
}

/** Children for every hold, metal3 IPAddresses then Cluster API ones, each sorted by name. */
export function poolChildren(holds: readonly Hold[], pool: PoolRef, namePrefix: string, capiApiVersion: string | undefined): KObject[] {
  const metal3: KObject[] = [];
  const capi: KObject[] = [];
  for (const hold of holds) {
    if (hold.claim.kind === Kind.IPClaim) metal3.push(metal3Child(hold, pool, namePrefix));
    else if (capiApiVersion !== undefined) capi.push(capiChild(hold, pool, capiApiVersion));
  }
  const byName = (a: KObject, b: KObject): number => compareText(a.metadata.name ?? '', b.metadata.name ?? '');
  return [...metal3.sort(byName), ...capi.sort(byName)];
}
