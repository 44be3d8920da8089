// The JSON patches the Metal3Machine asks the driver pool to apply on objects it cannot write
// itself: the BareMetalHost (claim, host spec, pause, deprovision, release), the host's BMC
// credentials Secret (cluster-name label) and the Metal3Machine's own metadata and spec.
// Every host patch but the claim tests that the host is still consumed by this machine; the
// claim tests the resourceVersion the hook saw, so only one of two racing machines can win.
import { pointerSegment, type JsonPatchOperation, type PatchTarget } from '../../domain/capi/requests.js';
import { BAREMETALHOST_ANNOTATION, CLUSTER_NAME_LABEL, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import { canonicalJSON } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import { rec, str } from '../kit/index.js';
import type { MachineContext } from './context.js';
import { HOST_PAUSED_ANNOTATION, HOST_STATUS_ANNOTATION, NODE_REUSE_LABEL, PAUSED_BY_CAPM3 } from './names.js';
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

/** Claim: consumerRef, cluster-name label, node-reuse label removed; guarded by resourceVersion. */
export function claimOps(ctx: MachineContext, host: KObject): Ops {
  const labels: Record<string, string> = ctx.clusterName === '' ? {} : { [CLUSTER_NAME_LABEL]: ctx.clusterName };
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: host.metadata.resourceVersion ?? '' },
    { op: 'add', path: '/spec/consumerRef', value: consumerRef(ctx) },
    ...setEntries(host, 'labels', labels),
    ...removeEntry(host, 'labels', NODE_REUSE_LABEL),
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

/** Pause: paused by the provider, with the host status (less hardware) kept for clusterctl move. */
export function pauseOps(ctx: MachineContext, host: KObject): Ops {
  const status = Object.fromEntries(Object.entries(rec(host.status)).filter(([key]) => key !== 'hardware'));
  return [
    ...stillMine(ctx),
    ...setEntries(host, 'annotations', { [HOST_PAUSED_ANNOTATION]: PAUSED_BY_CAPM3, [HOST_STATUS_ANNOTATION]: canonicalJSON(status) }),
  ];
}

export function unpauseOps(host: KObject): Ops {
  return [
    { op: 'test', path: `/metadata/annotations/${pointerSegment(HOST_PAUSED_ANNOTATION)}`, value: PAUSED_BY_CAPM3 },
    ...removeEntry(host, 'annotations', HOST_PAUSED_ANNOTATION),
  ];
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
 * Release: consumerRef and cluster-name label gone, reuse label set. The provider's pause
 * annotation is not touched here: the unpause request (run first on every sync) lifts it,
 * and a second removal of the same key would make this patch fail.
 */
export function releaseOps(ctx: MachineContext, host: KObject, reuse: string | undefined): Ops {
  return [
    ...stillMine(ctx),
    { op: 'remove', path: '/spec/consumerRef' },
    ...removeEntry(host, 'labels', CLUSTER_NAME_LABEL),
    ...(reuse === undefined ? [] : setEntries(host, 'labels', { [NODE_REUSE_LABEL]: reuse })),
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
