// DecoratorController `ipaddressclaim-ipam` on Cluster API IPAddressClaims: Metacontroller can only
// write a parent's status, and these claims belong to Cluster API, so a decorator (whose `status:
// null` leaves claims of other providers untouched) reports what the pool allocated: the
// `status.addressRef` of the CAPI IPAM contract and a Ready condition. The pool does the work.
// Routes: /hooks/ipaddressclaim-ipam/{sync,customize}.
import { newestTimestamp } from '../../domain/ipam/json.js';
import { CAPI_IPAM_GROUP, ClaimError, IPAM_API_VERSION, IPAM_GROUP, Kind } from '../../domain/ipam/types.js';
import type { Condition, KObject } from '../../domain/k8s.js';
import type { CustomizeResponse, DecoratorSyncResponse } from '../../domain/metacontroller.js';
import { isRecord, objectsOf, parseCustomize, parseDecorator, rec, relatedRule, relatedType, versionOf, type RelatedType } from '../kit/index.js';
import { stringField, stringMap } from './request.js';

function poolRefName(claim: KObject): string | undefined {
  const ref = rec(rec(claim.spec).poolRef);
  const ours = stringField(ref.apiGroup) === IPAM_GROUP && stringField(ref.kind) === Kind.IPPool;
  const name = stringField(ref.name);
  return ours && name !== undefined && name !== '' ? name : undefined;
}

/**
 * What ipaddressclaimCustomize names (and so what the chart's RBAC lets Metacontroller read). The
 * claim's IPAddress is asked for in the claim's own version.
 */
export const IPADDRESSCLAIM_RELATED = {
  pools: relatedType(IPAM_API_VERSION, 'ippools'),
  addresses: { group: CAPI_IPAM_GROUP, resource: 'ipaddresses' } satisfies RelatedType,
};

export function ipaddressclaimCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, Kind.IPAddressClaim);
  const poolName = poolRefName(parent);
  if (poolName === undefined) return { relatedResources: [] };
  const namespace = parent.metadata.namespace ?? '';
  return {
    relatedResources: [
      relatedRule(IPADDRESSCLAIM_RELATED.pools, namespace, { names: [poolName] }),
      relatedRule(IPADDRESSCLAIM_RELATED.addresses, namespace, { names: [parent.metadata.name ?? ''] }, versionOf(parent.apiVersion)),
    ],
  };
}

interface Readiness {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

function readiness(claim: KObject, pool: KObject | undefined, address: KObject | undefined): Readiness {
  if (address !== undefined) return { status: 'True', reason: 'Ready', message: '' };
  if (pool === undefined) return { status: 'False', reason: 'PoolNotReady', message: `IPPool ${poolRefName(claim) ?? ''} not found` };
  const status = rec(pool.status);
  const name = claim.metadata.name ?? '';
  const ironhook = rec(status.ironhook);
  // Listed errors first: an IPClaim of the same name may hold the name in status.indexes.
  const listed = stringMap(ironhook.addressClaimErrors)[name];
  const error = listed ?? (stringMap(status.indexes)[name] === undefined ? stringField(ironhook.unlistedClaimMessage) : undefined);
  if (error === undefined) return { status: 'False', reason: 'WaitingForAllocation', message: 'waiting for the IPPool to allocate an address' };
  return { status: 'False', reason: error === ClaimError.Exhausted ? 'PoolExhausted' : 'AllocationFailed', message: error };
}

function oldConditions(claim: KObject): Condition[] {
  const status = rec(claim.status);
  const v1beta2 = claim.apiVersion.endsWith('/v1beta1') ? rec(status.v1beta2).conditions : status.conditions;
  return Array.isArray(v1beta2) ? v1beta2.filter((c): c is Condition => isRecord(c) && typeof c.type === 'string') : [];
}

function readyCondition(claim: KObject, ready: Readiness, since: string): Condition {
  const old = oldConditions(claim).find((c) => c.type === 'Ready');
  const unchanged = old?.status === ready.status && old.reason === ready.reason;
  return {
    lastTransitionTime: unchanged ? old.lastTransitionTime : since,
    message: ready.message,
    ...(claim.metadata.generation !== undefined && { observedGeneration: claim.metadata.generation }),
    reason: ready.reason,
    status: ready.status,
    type: 'Ready',
  };
}

/** Cluster API v1beta1 condition (severity instead of observedGeneration; no reason when True). */
function legacyCondition(condition: Condition): Record<string, unknown> {
  if (condition.status === 'True') return { lastTransitionTime: condition.lastTransitionTime, status: 'True', type: 'Ready' };
  const severity = condition.reason === 'WaitingForAllocation' || condition.reason === 'PoolNotReady' ? 'Info' : 'Error';
  return { ...condition, observedGeneration: undefined, severity };
}

function claimStatus(claim: KObject, ready: Condition, address: KObject | undefined): Record<string, unknown> {
  const addressRef = address === undefined ? undefined : { name: address.metadata.name };
  if (claim.apiVersion.endsWith('/v1beta1')) {
    return { addressRef, conditions: [legacyCondition(ready)], v1beta2: { conditions: [ready] } };
  }
  return { addressRef, conditions: [ready], deprecated: { v1beta1: { conditions: [legacyCondition(ready)] } } };
}

export function ipaddressclaimSync(request: unknown): DecoratorSyncResponse {
  const req = parseDecorator(request, Kind.IPAddressClaim);
  const claim = req.object;
  const poolName = poolRefName(claim);
  if (poolName === undefined) return { attachments: [], status: null };
  const namespace = claim.metadata.namespace ?? '';
  const pool = objectsOf(req.related, Kind.IPPool, IPAM_GROUP, namespace).find((p) => p.metadata.name === poolName);
  const address = objectsOf(req.related, Kind.IPAddress, CAPI_IPAM_GROUP, namespace).find((obj) => {
    const spec = rec(obj.spec);
    return (
      obj.metadata.name === claim.metadata.name &&
      obj.metadata.deletionTimestamp === undefined &&
      stringField(rec(spec.claimRef).name) === claim.metadata.name &&
      stringField(rec(spec.poolRef).name) === poolName
    );
  });
  const since = newestTimestamp([claim.metadata.creationTimestamp, address?.metadata.creationTimestamp]) ?? '1970-01-01T00:00:00Z';
  const ready = readyCondition(claim, readiness(claim, pool, address), since);
  return { attachments: [], status: claimStatus(claim, ready, address) };
}
