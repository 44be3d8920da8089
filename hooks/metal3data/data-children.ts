// The children of a Metal3Data: one claim per IP pool (`<data>-<pool>`: an IPClaim, or a Cluster
// API IPAddressClaim for pools of other kinds, data-claims.ts) and the rendered Secrets
// (`<m3m>-metadata`, `<m3m>-networkdata`). All are updated OnDelete and an existing one is
// returned as observed: an allocation is never moved, a Secret never rewritten.
import { CLUSTER_NAME_LABEL, INFRA_GROUP } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import { Kind, SECRET_TYPE, type Metal3DataStatus } from '../../domain/metal3data/types.js';
import { addressFor, echoClaim, poolOfClaim } from './data-claims.js';
import type { DataView, NeededSecret } from './data-view.js';
import { echoChild, isDeleting, named, ownerOf } from '../kit/index.js';

/** What one sync decides: the complete child list and the status (no state table, so not a kit Outcome). */
export interface DesiredData {
  children: KObject[];
  status: Metal3DataStatus;
}

export function echoSecret(obj: KObject): KObject {
  return echoChild(obj, ['type', 'data']);
}

/** Every observed child as it is: what a sync returns while it cannot decide anything new. */
export function keepAll(v: DataView): KObject[] {
  return [...allClaims(v).map(echoClaim), ...v.secrets.map(echoSecret)];
}

/** Every claim child, IPClaims first. */
export function allClaims(v: DataView): KObject[] {
  return [...v.ipClaims, ...v.capiClaims];
}

/** Pool name → address of every claim child that has one. */
export function heldAddresses(v: DataView): Record<string, string> | undefined {
  const held: [string, string][] = [];
  for (const claim of allClaims(v)) {
    const pool = poolOfClaim(claim);
    const found = addressFor(v, pool);
    if ('address' in found) held.push([pool.name, found.address.address]);
  }
  return held.length === 0 ? undefined : Object.fromEntries(held);
}

function ironhookStatus(v: DataView, waitingFor?: string): Metal3DataStatus['ironhook'] | undefined {
  const addresses = heldAddresses(v);
  const block = { ...(addresses !== undefined && { addresses }), ...(waitingFor !== undefined && { waitingFor }) };
  return Object.keys(block).length === 0 ? undefined : block;
}

export function statusOf(v: DataView, ready: boolean, waitingFor?: string): Metal3DataStatus {
  const ironhook = ironhookStatus(v, waitingFor);
  return ironhook === undefined ? { ready } : { ready, ironhook };
}

export function readyStatus(v: DataView): Metal3DataStatus {
  return statusOf(v, true);
}

export function waiting(v: DataView, waitingFor: string, ready = false): DesiredData {
  return { children: keepAll(v), status: statusOf(v, ready, waitingFor) };
}

export type SecretState = { kind: 'owned'; obj: KObject } | { kind: 'foreign' } | { kind: 'blocked'; reason: string } | { kind: 'missing' };

/**
 * A needed Secret: ours (a child), someone else's that upstream would use as is (no Metal3Data
 * owns it), one that is in the way (being deleted, or another Metal3Data's), or missing.
 */
export function secretState(v: DataView, secret: NeededSecret): SecretState {
  const owned = named(v.secrets, secret.name);
  if (owned !== undefined) return { kind: 'owned', obj: owned };
  const other = named(v.related.secrets, secret.name);
  if (other === undefined) return { kind: 'missing' };
  if (isDeleting(other)) return { kind: 'blocked', reason: `Secret ${secret.name} to finish deleting` };
  const owner = ownerOf(other, Kind.Metal3Data, INFRA_GROUP);
  if (owner !== undefined && owner.uid !== v.data.metadata.uid)
    return { kind: 'blocked', reason: `Secret ${secret.name} to be released by Metal3Data ${owner.name}` };
  return { kind: 'foreign' };
}

/** A rendered Secret; the cluster-name label comes from the template's label. */
export function newSecret(v: DataView, secret: NeededSecret, text: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret.name, labels: { [CLUSTER_NAME_LABEL]: v.template?.metadata.labels?.[CLUSTER_NAME_LABEL] ?? '' } },
    type: SECRET_TYPE,
    data: { [secret.key]: Buffer.from(text, 'utf8').toString('base64') },
  };
}
