// CompositeController `ironhook-ippool`: parent IPPool, children IPAddress (ipam.metal3.io, and
// ipam.cluster.x-k8s.io when Cluster API is served), related IPClaims, IPPools, IPAddressClaims
// and Clusters of the pool's namespace. Routes: /hooks/ippool/{sync,finalize,customize}.
import { formatAddress } from '../../domain/ipam/address.js';
import { CAPI_GROUP, CAPI_IPAM_GROUP, ClaimError, IPAM_API_VERSION, IPAM_GROUP, Kind, type IPPool, type IPPoolStatus } from '../../domain/ipam/types.js';
import type { Condition, KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse, RelatedResourceRule } from '../../domain/metacontroller.js';
import { HookInputError } from '../types.js';
import { capiClaims, claimKey, clusterIndex, metal3Claims, oneClaimPerName, type PoolClaim } from './claims.js';
import { poolChildren } from './children.js';
import { observedChildren, type ObservedChildren } from './observed.js';
import { planPool, type ClaimFailure, type Plan } from './plan.js';
import { clusterGate, neighbours, poolConfig } from './pool-context.js';
import { poolStatus } from './pool-status.js';
import {
  type CompositeRequest,
  echoAllChildren,
  objectsOf,
  parseComposite,
  parseCustomize,
  rec,
  relatedRule,
  relatedType,
  type RelatedType,
} from '../kit/index.js';
import { capiVersionsOf, stringMap, type CapiVersions } from './request.js';

function asPool(parent: KObject): IPPool {
  const spec = rec(parent.spec);
  if (typeof spec.namePrefix !== 'string' || spec.namePrefix === '') {
    throw new HookInputError('parent IPPool has no spec.namePrefix');
  }
  return parent as IPPool;
}

/**
 * What ippoolCustomize names (and so what the chart's RBAC lets Metacontroller read). The Cluster
 * API types are asked for in the version of the controller object's CAPI IPAddress child rule.
 */
export const IPPOOL_RELATED = {
  claims: relatedType(IPAM_API_VERSION, 'ipclaims'),
  pools: relatedType(IPAM_API_VERSION, 'ippools'),
  capiClaims: { group: CAPI_IPAM_GROUP, resource: 'ipaddressclaims' } satisfies RelatedType,
  clusters: { group: CAPI_GROUP, resource: 'clusters' } satisfies RelatedType,
};

export function ippoolCustomize(request: unknown): CustomizeResponse {
  const { controller, parent } = parseCustomize(request, Kind.IPPool);
  const namespace = parent.metadata.namespace ?? '';
  const rules: RelatedResourceRule[] = [relatedRule(IPPOOL_RELATED.claims, namespace), relatedRule(IPPOOL_RELATED.pools, namespace)];
  const capi = capiVersionsOf(controller);
  if (capi !== undefined) {
    rules.push(relatedRule(IPPOOL_RELATED.capiClaims, namespace, {}, capi.version));
    rules.push(relatedRule(IPPOOL_RELATED.clusters, namespace, {}, capi.version));
  }
  return { relatedResources: rules };
}

/**
 * Claims of this pool. An IPClaim and an IPAddressClaim sharing a name cannot both be served (names
 * key the status, as upstream's): the one that holds an address, else the older, keeps it.
 */
function poolClaims(req: CompositeRequest, inputs: PoolInputs, observed: ObservedChildren): { claims: PoolClaim[]; duplicates: ClaimFailure[] } {
  const { pool, namespace, capi } = inputs;
  const name = pool.metadata.name ?? '';
  const metal3 = metal3Claims(objectsOf(req.related, Kind.IPClaim, IPAM_GROUP, namespace), name);
  if (capi === undefined) return { claims: metal3, duplicates: [] };
  const clusters = clusterIndex(objectsOf(req.related, Kind.Cluster, CAPI_GROUP, namespace));
  const capiAll = capiClaims(objectsOf(req.related, Kind.IPAddressClaim, CAPI_IPAM_GROUP, namespace), name, clusters);
  const holders = new Set(observed.addresses.map((address) => claimKey(address.kind, address.claimName)));
  const { claims, refused } = oneClaimPerName(metal3, capiAll, holders);
  const duplicates = refused
    .filter((claim) => !claim.deleting)
    .map((claim) => ({ claim, message: claim.kind === Kind.IPClaim ? ClaimError.DuplicateCapiClaimName : ClaimError.DuplicateClaimName, generic: false }));
  return { claims, duplicates };
}

/** lastUpdated: the newest event that drives allocation (pool created, claims created or deleted). */
function timestamps(pool: IPPool, claims: readonly PoolClaim[]): string[] {
  const out = [pool.metadata.creationTimestamp ?? '', pool.status?.lastUpdated ?? ''];
  for (const claim of claims) out.push(claim.created, claim.deletionTimestamp ?? '');
  return out;
}

function outOfRange(plan: Plan): string[] {
  const outside = plan.holds.filter((hold) => hold.range === undefined);
  if (outside.length === 0) return [];
  const sample = outside.slice(0, 5).map((hold) => `${formatAddress(hold.address)} (${hold.claim.name})`);
  return [`${outside.length} allocated address(es) are outside spec.pools and are kept: ${sample.join(', ')}`];
}

/** While the pool is being deleted: why it is not gone yet (nothing when it may go). */
function deletionBlocked(plan: Plan, observed: ObservedChildren): string[] {
  const left = observed.addresses.length + observed.unreadable.length;
  if (plan.holds.length === 0) return left === 0 ? [] : [`deletion waits for ${left} released IPAddress(es) to be deleted`];
  const names = plan.holds.slice(0, 10).map((hold) => `${hold.claim.kind} ${hold.claim.name}`);
  const more = plan.holds.length > 10 ? `, … (${plan.holds.length} in all)` : '';
  return [`deletion blocked: ${plan.holds.length} address(es) still in use by ${names.join(', ')}${more}`];
}

interface Decision {
  readonly holdMessage?: string;
  readonly problems: string[];
  readonly notReadyReason: string;
  readonly foreignNames: string[];
}

function decide(pool: IPPool, req: CompositeRequest, configProblems: readonly string[], ranges: Parameters<typeof neighbours>[1]): Decision {
  const namespace = pool.metadata.namespace ?? '';
  const near = neighbours(pool, ranges, objectsOf(req.related, Kind.IPPool, IPAM_GROUP, namespace));
  const problems = [...configProblems, ...near.problems];
  if (req.finalizing) {
    return { holdMessage: `IPPool ${pool.metadata.name ?? ''} is being deleted`, problems, notReadyReason: 'Deleting', foreignNames: near.foreignNames };
  }
  if (near.blockedBy !== undefined) {
    const holdMessage = `IPPool ${pool.metadata.name ?? ''} overlaps IPPool ${near.blockedBy} with the same namePrefix; no new addresses until that is fixed`;
    return { holdMessage, problems, notReadyReason: 'NamePrefixConflict', foreignNames: near.foreignNames };
  }
  const reason = near.problems.length > 0 ? 'NamePrefixConflict' : 'InvalidPool';
  return { problems, notReadyReason: reason, foreignNames: near.foreignNames };
}

interface PoolInputs {
  readonly pool: IPPool;
  readonly namespace: string;
  readonly capi: CapiVersions | undefined;
}

function holdPart(holdMessage: string | undefined): { holdMessage?: string } {
  return holdMessage === undefined ? {} : { holdMessage };
}

function runPlan(req: CompositeRequest, inputs: PoolInputs): CompositeSyncResponse {
  const { pool, namespace, capi } = inputs;
  const config = poolConfig(pool.spec);
  const decision = decide(pool, req, config.problems, config.ranges);
  const observed = observedChildren(req.children, namespace);
  const { claims, duplicates } = poolClaims(req, inputs, observed);
  const status = pool.status ?? {};
  const plan = planPool({
    poolUid: pool.metadata.uid ?? '',
    namePrefix: pool.spec.namePrefix,
    strategy: pool.spec.allocationStrategy ?? 'sequential',
    ranges: config.ranges,
    preAllocations: config.preAllocations,
    claims,
    observed: observed.addresses,
    statusIndexes: stringMap(status.indexes),
    foreignNames: decision.foreignNames,
    ...holdPart(decision.holdMessage),
  });
  const finalizing = req.finalizing ? deletionBlocked(plan, observed) : [];
  const newStatus = poolStatus({
    plan: { ...plan, failures: [...duplicates, ...plan.failures] },
    ranges: config.ranges,
    problems: [...decision.problems, ...outOfRange(plan), ...finalizing],
    ...holdPart(decision.holdMessage),
    timestamps: timestamps(pool, claims),
    oldConditions: status.conditions ?? [],
    notReadyReason: decision.notReadyReason,
  });
  const children = poolChildren(plan.holds, { name: pool.metadata.name ?? '', namespace }, pool.spec.namePrefix, capi?.ipam);
  // Finalized once nothing is held and every released IPAddress is gone (not left to the garbage collector).
  return req.finalizing ? { children, finalized: finalizing.length === 0, status: newStatus } : { children, status: newStatus };
}

function reconcile(req: CompositeRequest): CompositeSyncResponse {
  const pool = asPool(req.parent);
  const namespace = pool.metadata.namespace ?? '';
  const capi = capiVersionsOf(req.controller);
  const clusters = capi === undefined ? undefined : objectsOf(req.related, Kind.Cluster, CAPI_GROUP, namespace);
  const gate = clusterGate(pool, clusters);
  if (gate.frozen) return frozenResponse(req, pool, gate.reason, gate.message);
  return runPlan(req, { pool, namespace, capi });
}

function frozenCondition(pool: IPPool, reason: string, message: string): Condition {
  const previous = (pool.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const unchanged = previous?.status === 'False' && previous.reason === reason;
  const since = unchanged ? previous.lastTransitionTime : (pool.status?.lastUpdated ?? pool.metadata.creationTimestamp);
  return { lastTransitionTime: since ?? '1970-01-01T00:00:00Z', message, reason, status: 'False', type: 'Ready' };
}

/** Paused or waiting for its Cluster: keep every child, change nothing but the Ready condition. */
function frozenResponse(req: CompositeRequest, pool: IPPool, reason: string, message: string): CompositeSyncResponse {
  const old: IPPoolStatus = Object.fromEntries(Object.entries(pool.status ?? {}).filter(([key]) => key !== 'observedGeneration'));
  const ironhook = { allocatedIPCount: 0, ...(old.ironhook ?? {}), errors: [message] };
  const conditions = [frozenCondition(pool, reason, message)];
  const status: Record<string, unknown> = { ...old, conditions, ironhook };
  const children = echoAllChildren(req.children);
  return req.finalizing ? { children, finalized: false, status } : { children, status };
}

export function ippoolSync(request: unknown): CompositeSyncResponse {
  return reconcile(parseComposite(request, Kind.IPPool));
}

export function ippoolFinalize(request: unknown): CompositeSyncResponse {
  return reconcile({ ...parseComposite(request, Kind.IPPool), finalizing: true });
}
