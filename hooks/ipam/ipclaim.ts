// CompositeController `ironhook-ipclaim`: parent IPClaim, no children, related the IPPool it names
// and the IPAddresses labelled with its name. Routes: /hooks/ipclaim/{sync,finalize,customize}.
// The pool decides; the claim only reports what the pool did: `status.address` once its IPAddress
// exists, else the pool's error for it (upstream's texts). The finalize hook holds the claim until
// its address is gone, which is what upstream's `ipclaim.ipam.metal3.io` finalizer is for.
import { CLAIM_LABEL, IPAM_API_VERSION, IPAM_GROUP, Kind, type IPClaimStatus } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse, RelatedResourceRule } from '../../domain/metacontroller.js';
import { labelValue } from '../../domain/naming.js';
import { canonicalAddress } from '../../domain/ipam/address.js';
import { compareCandidates, type Candidate } from './preference.js';
import { foreignPoolNamespace } from './claims.js';
import { objectsOf, parseComposite, parseCustomize, rec, relatedRule, relatedType } from '../kit/index.js';
import { stringField, stringMap } from './request.js';

function poolNameOf(claim: KObject): string | undefined {
  const name = stringField(rec(rec(claim.spec).pool).name);
  return name === '' ? undefined : name;
}

/** What ipclaimCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const IPCLAIM_RELATED = {
  pools: relatedType(IPAM_API_VERSION, 'ippools'),
  addresses: relatedType(IPAM_API_VERSION, 'ipaddresses'),
};

export function ipclaimCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, Kind.IPClaim);
  const namespace = parent.metadata.namespace ?? '';
  const rules: RelatedResourceRule[] = [
    // Label rules of namespaced parents list the parent's namespace; the hook re-checks it anyway.
    relatedRule(IPCLAIM_RELATED.addresses, undefined, { labelSelector: { matchLabels: { [CLAIM_LABEL]: labelValue(parent.metadata.name ?? '') } } }),
  ];
  const poolName = poolNameOf(parent);
  if (poolName !== undefined) rules.unshift(relatedRule(IPCLAIM_RELATED.pools, namespace, { names: [poolName] }));
  return { relatedResources: rules };
}

interface ClaimView {
  claim: KObject;
  namespace: string;
  pool: KObject | undefined;
  addresses: KObject[];
}

function view(request: unknown): ClaimView & { finalizing: boolean } {
  const req = parseComposite(request, Kind.IPClaim);
  const claim = req.parent;
  const namespace = claim.metadata.namespace ?? '';
  const poolName = poolNameOf(claim);
  const pool = objectsOf(req.related, Kind.IPPool, IPAM_GROUP, namespace).find((p) => p.metadata.name === poolName);
  const addresses = objectsOf(req.related, Kind.IPAddress, IPAM_GROUP, namespace).filter((obj) => {
    const spec = rec(obj.spec);
    return stringField(rec(spec.claim).name) === claim.metadata.name && stringField(rec(spec.pool).name) === poolName;
  });
  return { claim, namespace, pool, addresses, finalizing: req.finalizing };
}

/**
 * The live IPAddress that is this claim's address. Cache lag can briefly leave a claim with two
 * objects; the pool keeps one by the order in preference.ts and this picks the same one, so a
 * claim never reports an address that is about to go away, nor changes what it reported.
 */
function chosenAddress(v: ClaimView): KObject | undefined {
  const reported = stringField(rec(rec(v.claim.status).address).name);
  const committed = stringMap(rec(v.pool?.status).indexes)[v.claim.metadata.name ?? ''];
  const rank = (obj: KObject): Candidate => ({
    created: obj.metadata.creationTimestamp ?? '',
    id: `${IPAM_GROUP}/${obj.metadata.name ?? ''}`,
    reported: obj.metadata.name === reported,
    committed: committed !== undefined && canonicalAddress(stringField(rec(obj.spec).address) ?? '') === canonicalAddress(committed),
  });
  const live = v.addresses.filter((obj) => obj.metadata.deletionTimestamp === undefined);
  return live.map((obj) => ({ obj, rank: rank(obj) })).sort((a, b) => compareCandidates(a.rank, b.rank))[0]?.obj;
}

/**
 * The pool's error for this claim: listed by name (first: an IPAddressClaim of the same name may
 * hold the name in status.indexes), else the message for unlisted waiting claims.
 */
function poolError(v: ClaimView): string | undefined {
  const status = rec(v.pool?.status);
  const name = v.claim.metadata.name ?? '';
  const ironhook = rec(status.ironhook);
  const listed = stringMap(ironhook.claimErrors)[name];
  if (listed !== undefined || stringMap(status.indexes)[name] !== undefined) return listed;
  return stringField(ironhook.unlistedClaimMessage);
}

/** Ironhook's rule (upstream serves such a claim from its own namespace's pool): no cross-namespace pool. */
function crossNamespaceError(v: ClaimView): string | undefined {
  const named = foreignPoolNamespace(v.claim);
  if (named === undefined) return undefined;
  return `spec.pool.namespace ${named} differs from the claim's namespace ${v.namespace}: cross-namespace IPPool references are not allowed`;
}

function claimStatus(v: ClaimView): IPClaimStatus {
  const address = chosenAddress(v);
  const foreign = crossNamespaceError(v);
  const held = address === undefined ? {} : { address: { name: address.metadata.name ?? '', namespace: v.namespace } };
  if (foreign !== undefined) return { ...held, errorMessage: foreign };
  if (address !== undefined) return held;
  const error = v.pool === undefined ? undefined : poolError(v);
  return error === undefined ? {} : { errorMessage: error };
}

export function ipclaimSync(request: unknown): CompositeSyncResponse {
  const v = view(request);
  return { children: [], status: claimStatus(v) };
}

/** Finalized once no IPAddress names the claim any more (or its pool is gone). */
export function ipclaimFinalize(request: unknown): CompositeSyncResponse {
  const v = view(request);
  const finalized = v.pool === undefined || v.addresses.length === 0;
  return { children: [], finalized, status: claimStatus(v) };
}
