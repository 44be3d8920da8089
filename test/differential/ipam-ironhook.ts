// Ironhook's side of the IPAM sweep: the same pool and steps as the oracle's area `ipam`, driven
// through the IPPool hook request path (ippoolSync/ippoolFinalize via the Metacontroller model
// in test/fixtures/ippool/world.ts), the IPClaim hooks and the IPAddressClaim decorator. After
// every step the hooks run until nothing changes (Metacontroller re-syncs on every change), then
// the step's snapshot reads what a user sees: each claim's status and its IPAddress, and the
// pool's status.indexes. Claims left without an address are then deleted, as on the oracle side.
import { ipaddressclaimSync } from '../../hooks/ipam/ipaddressclaim.js';
import type { IPPoolSpec } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import { NS } from '../../devenv/builders/ippool.js';
import { PoolWorld } from '../fixtures/ippool/world.js';

const FOREIGN_FINALIZER = 'metal3data.infrastructure.cluster.x-k8s.io';

export type ClaimKind = 'IPClaim' | 'IPAddressClaim';

export interface ClaimInput {
  readonly name: string;
  readonly kind?: ClaimKind;
  readonly ipAddress?: string;
}

/** One step: create claims (one batch, one creation second), start deleting one, or release one. */
export type Step =
  | { readonly create: readonly ClaimInput[] }
  | { readonly delete: string; readonly kind?: ClaimKind; readonly foreign?: boolean }
  | { readonly release: string; readonly kind?: ClaimKind }
  | { readonly deletePool: true }
  | { readonly updatePool: IPPoolSpec };

export interface IPAMCase {
  readonly pool: IPPoolSpec;
  readonly steps: readonly Step[];
  /** Leave failed claims in place (pinned cases); by default they are deleted after each snapshot. */
  readonly keepFailed?: boolean;
}

/** A claim's outcome: its address (with the IPAddress's prefix, gateway, DNS), an error, or pending. */
export interface Outcome {
  /** The IPAddress a metal3 claim's status names. */
  name?: string;
  address?: string;
  prefix?: number;
  gateway?: string;
  dnsServers?: string[];
  error?: string;
  reason?: string;
  pending?: true;
}

export interface Snapshot {
  claims: Record<string, Outcome>;
  indexes: Record<string, string>;
}

const CAPI_VERSION = 'v1beta2';
const CAPI_API = `ipam.cluster.x-k8s.io/${CAPI_VERSION}`;
const METAL3_API = 'ipam.metal3.io/v1alpha1';
const MAX_ROUNDS = 12;

type Rec = Record<string, unknown>;
const rec = (value: unknown): Rec => (typeof value === 'object' && value !== null ? (value as Rec) : {});
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function capiRequest(world: PoolWorld, claim: KObject): Record<string, unknown> {
  const address = world.objects.get(`${CAPI_API}|${claim.metadata.name ?? ''}`);
  return {
    controller: {},
    object: claim,
    attachments: {},
    related: {
      'IPPool.ipam.metal3.io/v1alpha1': { [`${NS}/pool1`]: world.pool },
      [`IPAddress.ipam.cluster.x-k8s.io/${CAPI_VERSION}`]: address === undefined ? {} : { [`${NS}/${address.metadata.name ?? ''}`]: address },
    },
    finalizing: false,
  };
}

/** The IPAddressClaim decorator, for every Cluster API claim. */
function syncCapiClaims(world: PoolWorld): void {
  for (const claim of world.capiClaims.values()) {
    const response = ipaddressclaimSync(capiRequest(world, claim));
    if (response.status !== null) claim.status = response.status;
  }
}

/** Everything a hook round can change (plain JSON: the same objects in the same order each time). */
function worldState(world: PoolWorld): string {
  return JSON.stringify({
    pool: world.pool.status ?? null,
    objects: [...world.objects.keys()].sort(),
    claims: [...world.claims.values()].map((c) => [c.metadata.name, c.status ?? null, c.metadata.finalizers ?? []]),
    capi: [...world.capiClaims.values()].map((c) => [c.metadata.name, c.status ?? null]),
  });
}

/** Pool, claims and decorator hooks until a round changes nothing (bounded). */
function settle(world: PoolWorld): void {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = worldState(world);
    world.syncPool();
    world.syncClaims();
    syncCapiClaims(world);
    if (worldState(world) === before) return;
  }
}

function addressOutcome(object: KObject | undefined): Outcome {
  if (object === undefined) return { pending: true };
  const spec = rec(object.spec);
  const out: Outcome = { address: str(spec.address) ?? '', prefix: typeof spec.prefix === 'number' ? spec.prefix : 0 };
  const gateway = str(spec.gateway);
  if (gateway !== undefined && gateway !== '') out.gateway = gateway;
  if (Array.isArray(spec.dnsServers) && spec.dnsServers.length > 0) out.dnsServers = spec.dnsServers.map(String);
  return out;
}

function metal3Outcome(world: PoolWorld, claim: KObject): Outcome {
  const status = rec(claim.status);
  const name = str(rec(status.address).name);
  if (name !== undefined) {
    const object = world.objects.get(`${METAL3_API}|${name}`);
    return object === undefined ? { pending: true } : { name, ...addressOutcome(object) };
  }
  const error = str(status.errorMessage);
  return error === undefined ? { pending: true } : { error };
}

function capiOutcome(world: PoolWorld, claim: KObject): Outcome {
  const status = rec(claim.status);
  const name = str(rec(status.addressRef).name);
  if (name !== undefined) return addressOutcome(world.objects.get(`${CAPI_API}|${name}`));
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const reason = str(ready?.reason);
  if (ready?.status !== 'False' || reason === 'WaitingForAllocation' || reason === 'PoolNotReady') return { pending: true };
  return { error: str(ready.message) ?? '', reason: reason ?? '' };
}

function snapshot(world: PoolWorld): Snapshot {
  const claims: Record<string, Outcome> = {};
  for (const claim of world.claims.values()) claims[`IPClaim/${claim.metadata.name ?? ''}`] = metal3Outcome(world, claim);
  for (const claim of world.capiClaims.values()) claims[`IPAddressClaim/${claim.metadata.name ?? ''}`] = capiOutcome(world, claim);
  const indexes: Record<string, string> = {};
  const committed = rec(rec(world.pool.status).indexes);
  for (const key of Object.keys(committed)) indexes[key] = str(committed[key]) ?? '';
  return { claims, indexes };
}

function applyStep(world: PoolWorld, step: Step): void {
  if ('create' in step) {
    for (const claim of step.create) {
      const options = claim.ipAddress === undefined ? {} : { requested: claim.ipAddress };
      if (claim.kind === 'IPAddressClaim') world.addCapiClaim(claim.name, options);
      else world.addClaim(claim.name, options);
    }
  } else if ('delete' in step) {
    world.deleteClaim(step.delete, step.foreign === true ? [FOREIGN_FINALIZER] : []);
  } else if ('release' in step) {
    world.dropForeignFinalizers(step.release);
  } else if ('updatePool' in step) {
    world.pool = { ...world.pool, spec: step.updatePool };
  } else {
    world.pool.metadata.deletionTimestamp ??= world.now();
    world.pool.metadata.finalizers = ['metacontroller.io/compositecontroller-ironhook-ippool'];
  }
}

/** Claims left without an address and not being deleted: the user deletes them (upstream never retries them). */
function deleteFailed(world: PoolWorld, snap: Snapshot): boolean {
  let any = false;
  for (const [key, outcome] of Object.entries(snap.claims).sort()) {
    if (outcome.address !== undefined) continue;
    const [kind, name = ''] = key.split('/');
    const obj = kind === 'IPClaim' ? world.claims.get(name) : world.capiClaims.get(name);
    if (obj === undefined || obj.metadata.deletionTimestamp !== undefined) continue;
    world.deleteClaim(name);
    any = true;
  }
  return any;
}

/** An outcome as both sides are compared: prefix 0 when absent, no empty DNS list, pending as such. */
function normalOutcome(raw: Record<string, unknown>): Outcome {
  if (typeof raw.address === 'string') {
    const out: Outcome = {
      ...(typeof raw.name === 'string' && { name: raw.name }),
      address: raw.address,
      prefix: typeof raw.prefix === 'number' ? raw.prefix : 0,
    };
    if (typeof raw.gateway === 'string') out.gateway = raw.gateway;
    if (Array.isArray(raw.dnsServers) && raw.dnsServers.length > 0) out.dnsServers = raw.dnsServers.map(String);
    return out;
  }
  if (typeof raw.error === 'string') return { error: raw.error, ...(typeof raw.reason === 'string' && raw.reason !== '' && { reason: raw.reason }) };
  return { pending: true };
}

/** Snapshots (either side's) with normalised outcomes and keys in order. */
export function normalSnapshots(raw: readonly Snapshot[]): Snapshot[] {
  return raw.map((snap) => ({
    claims: Object.fromEntries(
      Object.keys(snap.claims)
        .sort()
        .map((key) => [key, normalOutcome(snap.claims[key] as unknown as Rec)]),
    ),
    indexes: Object.fromEntries(
      Object.keys(rec(snap.indexes))
        .sort()
        .map((key) => [key, snap.indexes[key] ?? '']),
    ),
  }));
}

/** Ironhook's snapshots for a case, one per step. */
export function runIronhook(c: IPAMCase): Snapshot[] {
  const world = new PoolWorld(c.pool, CAPI_VERSION);
  const snapshots: Snapshot[] = [];
  for (const step of c.steps) {
    world.tick();
    applyStep(world, step);
    settle(world);
    const snap = snapshot(world);
    snapshots.push(snap);
    if (c.keepFailed !== true && deleteFailed(world, snap)) {
      world.tick();
      settle(world);
    }
  }
  return snapshots;
}
