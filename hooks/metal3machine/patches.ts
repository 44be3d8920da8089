// The JSON patches the Metal3Machine asks the driver pool to apply on objects it cannot write
// itself: the BareMetalHost (claim, host spec, pause, deprovision, release), the host's BMC
// credentials Secret (cluster-name label) and the Metal3Machine's own metadata and spec.
// Every host patch but the claim tests that the host is still consumed by this machine; the
// claim tests the resourceVersion the hook saw, so only one of two racing machines can win. The
// pause and the block-move writes test it too: they are decided on what the host showed (its
// state, its status, its annotations), and a cache that lags must never write an older picture.
import { pointerSegment, type JsonPatchOperation, type PatchTarget } from '../../domain/capi/requests.js';
import { BAREMETALHOST_ANNOTATION, CLUSTER_NAME_LABEL, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import { canonicalJSON } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import { rec, str } from '../kit/index.js';
import type { MachineContext } from './context.js';
import { BLOCK_MOVE_ANNOTATION, HOST_PAUSED_ANNOTATION, HOST_STATUS_ANNOTATION, NODE_REUSE_LABEL, PAUSED_BY_CAPM3 } from './names.js';
import { hostSpec } from './observed.js';

type MapField = 'labels' | 'annotations';
type Ops = JsonPatchOperation[];

export function hostTarget(host: KObject): PatchTarget {
  return { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: host.metadata.namespace ?? '', name: host.metadata.name ?? '' };
}

export function selfTarget(ctx: MachineContext): PatchTarget {
  return { apiVersion: INFRA_V1BETA2, kind: 'Metal3Machine', namespace: ctx.namespace, name: ctx.name };
}

export function credentialsName(host: KObject): string {
  return str(rec(hostSpec(host).bmc).credentialsName);
}

export function secretTarget(host: KObject): PatchTarget {
  return { apiVersion: 'v1', kind: 'Secret', namespace: host.metadata.namespace ?? '', name: credentialsName(host) };
}

/** Adds `entries` to a metadata map, creating the map when the observed object has none. */
function setEntries(obj: KObject, field: MapField, entries: Readonly<Record<string, string>>): Ops {
  if (Object.keys(entries).length === 0) return [];
  if (obj.metadata[field] === undefined) return [{ op: 'add', path: `/metadata/${field}`, value: { ...entries } }];
  return Object.entries(entries).map(([key, value]) => ({ op: 'add', path: `/metadata/${field}/${pointerSegment(key)}`, value }));
}

/** Removes `key` from a metadata map when the observed object has it. */
function removeEntry(obj: KObject, field: MapField, key: string): Ops {
  return obj.metadata[field]?.[key] === undefined ? [] : [{ op: 'remove', path: `/metadata/${field}/${pointerSegment(key)}` }];
}

/** The host is still at the resourceVersion the hook saw. */
function unchanged(host: KObject): Ops {
  return [{ op: 'test', path: '/metadata/resourceVersion', value: host.metadata.resourceVersion ?? '' }];
}

/** The host is still consumed by this machine (name and kind; the namespace is the host's). */
export function stillMine(ctx: MachineContext): Ops {
  return [
    { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
    { op: 'test', path: '/spec/consumerRef/name', value: ctx.name },
  ];
}

function consumerRef(ctx: MachineContext): Record<string, string> {
  return { apiVersion: INFRA_V1BETA2, kind: 'Metal3Machine', name: ctx.name, namespace: ctx.namespace };
}

/**
 * Claim: consumerRef, cluster-name label, node-reuse label removed and clusterctl's block-move
 * annotation set (an associated host that is not paused keeps it); guarded by resourceVersion.
 */
export function claimOps(ctx: MachineContext, host: KObject): Ops {
  const labels: Record<string, string> = ctx.clusterName === '' ? {} : { [CLUSTER_NAME_LABEL]: ctx.clusterName };
  return [
    ...unchanged(host),
    { op: 'add', path: '/spec/consumerRef', value: consumerRef(ctx) },
    ...setEntries(host, 'labels', labels),
    ...removeEntry(host, 'labels', NODE_REUSE_LABEL),
    ...setEntries(host, 'annotations', { [BLOCK_MOVE_ANNOTATION]: '' }),
  ];
}

/** The Metal3Machine's own annotation `metal3.io/BareMetalHost: <ns>/<host>`; guarded by UID. */
export function associateOps(ctx: MachineContext, hostName: string): Ops {
  return [
    { op: 'test', path: '/metadata/uid', value: ctx.uid },
    ...setEntries(ctx.m3m, 'annotations', { [BAREMETALHOST_ANNOTATION]: `${ctx.namespace}/${hostName}` }),
  ];
}

export function providerIDOps(ctx: MachineContext, id: string): Ops {
  return [
    { op: 'test', path: '/metadata/uid', value: ctx.uid },
    { op: 'add', path: '/spec/providerID', value: id },
  ];
}

/**
 * Pause, in one patch guarded by the resourceVersion the status was read at: paused by the
 * provider, the host status (less hardware) kept for clusterctl move, and block-move removed (the
 * host is now really paused, so the move may go on).
 */
export function pauseOps(ctx: MachineContext, host: KObject): Ops {
  const status = Object.fromEntries(Object.entries(rec(host.status)).filter(([key]) => key !== 'hardware'));
  return [
    ...unchanged(host),
    ...stillMine(ctx),
    ...setEntries(host, 'annotations', { [HOST_PAUSED_ANNOTATION]: PAUSED_BY_CAPM3, [HOST_STATUS_ANNOTATION]: canonicalJSON(status) }),
    ...removeEntry(host, 'annotations', BLOCK_MOVE_ANNOTATION),
  ];
}

/**
 * Unpause: the provider's pause lifted; with `blockMove` (the host is still this machine's and
 * stays so) block-move set again in the same patch, so the host never runs without it.
 */
export function unpauseOps(ctx: MachineContext, host: KObject, blockMove: boolean): Ops {
  return [
    ...(blockMove ? stillMine(ctx) : []),
    { op: 'test', path: `/metadata/annotations/${pointerSegment(HOST_PAUSED_ANNOTATION)}`, value: PAUSED_BY_CAPM3 },
    ...removeEntry(host, 'annotations', HOST_PAUSED_ANNOTATION),
    ...(blockMove ? setEntries(host, 'annotations', { [BLOCK_MOVE_ANNOTATION]: '' }) : []),
  ];
}

/** Block-move set (`present`) or removed, guarded by the resourceVersion it was decided on. */
export function blockMoveOps(ctx: MachineContext, host: KObject, present: boolean): Ops {
  const change = present ? setEntries(host, 'annotations', { [BLOCK_MOVE_ANNOTATION]: '' }) : removeEntry(host, 'annotations', BLOCK_MOVE_ANNOTATION);
  return [...unchanged(host), ...stillMine(ctx), ...change];
}

/** Deprovision: what deprovisioning clears, and the power the host should stay in. */
export function deprovisionOps(ctx: MachineContext, host: KObject): Ops {
  const spec = hostSpec(host);
  const removals: Ops = ['image', 'customDeploy', 'userData', 'metaData', 'networkData']
    .filter((field) => spec[field] !== undefined && spec[field] !== null)
    .map((field) => ({ op: 'remove', path: `/spec/${field}` }));
  const online = deprovisionedOnline(host);
  const power: Ops = spec.online === online ? [] : [{ op: 'add', path: '/spec/online', value: online }];
  const changes = [...removals, ...power];
  return changes.length === 0 ? [] : [...stillMine(ctx), ...changes];
}

/** Upstream main: stays on only when the host may not be powered off (no fast-track setting here). */
function deprovisionedOnline(host: KObject): boolean {
  return hostSpec(host).disablePowerOff === true;
}

/**
 * Release: consumerRef, cluster-name label and block-move gone (a released host never blocks a
 * move), reuse label set. The provider's pause annotation is not touched here: the unpause request
 * (run first on every sync) lifts it, and a second removal of the same key would make this patch fail.
 */
export function releaseOps(ctx: MachineContext, host: KObject, reuse: string | undefined): Ops {
  return [
    ...stillMine(ctx),
    { op: 'remove', path: '/spec/consumerRef' },
    ...removeEntry(host, 'labels', CLUSTER_NAME_LABEL),
    ...(reuse === undefined ? [] : setEntries(host, 'labels', { [NODE_REUSE_LABEL]: reuse })),
    ...removeEntry(host, 'annotations', BLOCK_MOVE_ANNOTATION),
  ];
}

export function credentialsLabelOps(ctx: MachineContext): Ops {
  return [{ op: 'add', path: `/metadata/labels/${pointerSegment(CLUSTER_NAME_LABEL)}`, value: ctx.clusterName }];
}

export function credentialsReleaseOps(ctx: MachineContext): Ops {
  const path = `/metadata/labels/${pointerSegment(CLUSTER_NAME_LABEL)}`;
  return [
    { op: 'test', path, value: ctx.clusterName },
    { op: 'remove', path },
  ];
}
