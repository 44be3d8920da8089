// The claims of a Metal3Data, one per referenced pool and named `<data>-<pool>` as upstream names
// them: an IPClaim (spec.pool) for a Metal3 IPPool, a Cluster API IPAddressClaim (spec.poolRef,
// upstream's ensureIPClaim) for a pool of any other kind. And what each claim has got: its
// address, its pool's error (IPClaims only: upstream reads no error from an IPAddressClaim, it
// waits) or nothing yet.
import { copiedLabels } from '../../domain/capi/types.js';
import { IPAM_API_VERSION, Kind as IpamKind } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { PoolAddress } from '../../domain/metal3data/context.js';
import { isMetal3Pool, poolUse, type PoolUse } from '../../domain/metal3data/pools.js';
import { DATA_CLAIM_LABEL, DATA_LABEL } from '../../domain/metal3data/types.js';
import { labelValue } from '../../domain/naming.js';
import { echoChild, isDeleting, isRecord, named, rec, str } from '../kit/index.js';
import type { DataView } from './data-view.js';

function claimName(v: DataView, pool: string): string {
  return `${v.name}-${pool}`;
}

export function echoClaim(obj: KObject): KObject {
  return echoChild(obj, ['spec']);
}

/** The data's labels (without the claim label) and the data's name, which the pool copies onto the IPAddress. */
function claimLabels(v: DataView): Record<string, string> {
  const labels = Object.fromEntries(Object.entries(copiedLabels(v.data.metadata.labels)).filter(([key]) => key !== DATA_CLAIM_LABEL));
  return { ...labels, [DATA_LABEL]: labelValue(v.name) };
}

function newIPClaim(v: DataView, pool: PoolUse): KObject {
  return {
    apiVersion: IPAM_API_VERSION,
    kind: IpamKind.IPClaim,
    metadata: { name: claimName(v, pool.name), labels: claimLabels(v) },
    spec: { pool: { name: pool.name, namespace: v.namespace } },
  };
}

/** Upstream's IPAddressClaim: no spec.clusterName (the data's cluster-name label is on it). */
function newCapiClaim(v: DataView, pool: PoolUse, apiVersion: string): KObject {
  return {
    apiVersion,
    kind: IpamKind.IPAddressClaim,
    metadata: { name: claimName(v, pool.name), labels: claimLabels(v) },
    spec: { poolRef: { apiGroup: pool.apiGroup, kind: pool.kind, name: pool.name } },
  };
}

export type PoolClaims = { claims: KObject[] } | { error: string };

function capiUnserved(pool: PoolUse): string {
  return (
    `pool ${pool.name} (${pool.kind}.${pool.apiGroup}) needs a Cluster API IPAddressClaim, and the ironhook-metal3data ` +
    `controller declares no ipaddressclaims.ipam.cluster.x-k8s.io children (chart value metal3data.clusterAPI.enabled)`
  );
}

/** The claims for `pools` (observed ones as they are); claims of other pools are left out (released). */
export function poolClaims(v: DataView, pools: readonly PoolUse[]): PoolClaims {
  const claims: KObject[] = [];
  for (const pool of pools) {
    const name = claimName(v, pool.name);
    if (isMetal3Pool(pool)) {
      const observed = named(v.ipClaims, name);
      claims.push(observed === undefined ? newIPClaim(v, pool) : echoClaim(observed));
      continue;
    }
    if (v.capiApiVersion === undefined) return { error: capiUnserved(pool) };
    const observed = named(v.capiClaims, name);
    claims.push(observed === undefined ? newCapiClaim(v, pool, v.capiApiVersion) : echoClaim(observed));
  }
  return { claims };
}

export type AddressLookup = { address: PoolAddress } | { error: string } | { waitingFor: string };

/** What the IPClaim of a Metal3 IPPool has got (its IPAddress checked to name the claim). */
function ipClaimAddress(v: DataView, pool: string): AddressLookup {
  const claim = named(v.ipClaims, claimName(v, pool));
  const waiting = { waitingFor: `an IP address from IPPool ${pool}` };
  if (claim === undefined || isDeleting(claim)) return waiting;
  const status = rec(claim.status);
  const error = str(status.errorMessage);
  if (error !== '') return { error: `IP Allocation for ${pool} failed : ${error}` };
  const found = named(v.related.addresses, str(rec(status.address).name));
  const spec = rec(found?.spec);
  if (found === undefined || str(rec(spec.claim).name) !== claim.metadata.name) return waiting;
  const dns = Array.isArray(spec.dnsServers) ? spec.dnsServers.filter((s): s is string => typeof s === 'string') : [];
  const prefix = typeof spec.prefix === 'number' ? spec.prefix : 0;
  return { address: { address: str(spec.address), prefix, gateway: str(spec.gateway), dnsServers: dns } };
}

/** The claim's Ready condition when it is not True (`<reason>: <message>`), to say what the wait is about. */
function notReady(claim: KObject): string | undefined {
  const conditions: unknown = rec(claim.status).conditions;
  const ready: unknown = Array.isArray(conditions) ? conditions.find((c: unknown) => isRecord(c) && c.type === 'Ready') : undefined;
  if (!isRecord(ready) || ready.status === 'True') return undefined;
  const message = str(ready.message);
  return message === '' ? str(ready.reason) : `${str(ready.reason)}: ${message}`;
}

/**
 * What the IPAddressClaim of a Cluster API pool has got, as upstream's addressFromClaim reads it:
 * the IPAddress its status.addressRef names gives address, prefix and gateway (no DNS servers);
 * a claim being deleted, unbound or naming an IPAddress not seen yet is waited for.
 */
function capiClaimAddress(v: DataView, pool: PoolUse): AddressLookup {
  const claim = named(v.capiClaims, claimName(v, pool.name));
  const waiting = (why: string | undefined): AddressLookup => ({
    waitingFor: `an IP address from ${pool.kind}.${pool.apiGroup} ${pool.name}${why === undefined || why === '' ? '' : ` (${why})`}`,
  });
  if (claim === undefined) return waiting(undefined);
  if (isDeleting(claim)) return waiting(`IPAddressClaim ${claim.metadata.name ?? ''} is being deleted`);
  const ref = str(rec(rec(claim.status).addressRef).name);
  if (ref === '') return waiting(notReady(claim));
  const found = named(v.related.capiAddresses, ref);
  if (found === undefined) return waiting(`IPAddress ${ref}`);
  const spec = rec(found.spec);
  // The CRD requires prefix (0-128); 0 only stands in for a malformed object.
  const prefix = typeof spec.prefix === 'number' ? spec.prefix : 0;
  return { address: { address: str(spec.address), prefix, gateway: str(spec.gateway), dnsServers: [] } };
}

/** What the claim for `pool` has got: its address, the pool's error, or nothing yet. */
export function addressFor(v: DataView, pool: PoolUse): AddressLookup {
  return isMetal3Pool(pool) ? ipClaimAddress(v, pool.name) : capiClaimAddress(v, pool);
}

/** The pool an observed claim is for. */
export function poolOfClaim(claim: KObject): PoolUse {
  const spec = rec(claim.spec);
  if (claim.kind === IpamKind.IPClaim) return poolUse(str(rec(spec.pool).name));
  const ref = rec(spec.poolRef);
  return poolUse(str(ref.name), str(ref.apiGroup), str(ref.kind));
}

export type PoolAddresses = { addresses: Map<string, PoolAddress> } | { error: string } | { waitingFor: string };

/**
 * Every pool's address by pool name, else the first claim error (upstream reports an error even
 * while other claims are still unanswered), else the first wait.
 */
export function poolAddresses(v: DataView, pools: readonly PoolUse[]): PoolAddresses {
  const addresses = new Map<string, PoolAddress>();
  let wait: { waitingFor: string } | undefined;
  for (const pool of pools) {
    const found = addressFor(v, pool);
    if ('error' in found) return found;
    if ('address' in found) addresses.set(pool.name, found.address);
    else wait ??= found;
  }
  return wait ?? { addresses };
}
