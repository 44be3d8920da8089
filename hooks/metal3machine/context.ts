// Reading one Metacontroller v2 request for a Metal3Machine into what the state handlers need:
// the machine, its owner Machine, Cluster, Metal3Cluster, template, the namespace's hosts, its
// Metal3Data and the request children it already asked for. Nothing here decides anything.
import { CAPI_GROUP, CLUSTER_NAME_LABEL, CapiKind, INFRA_GROUP, PAUSED_ANNOTATION } from '../../domain/capi/types.js';
import { NODE_OPERATION_KIND, OBJECT_PATCH_KIND, PURPOSE_LABEL } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { DATA_CLAIM_LABEL, Kind as DataKind } from '../../domain/metal3data/types.js';
import { labelValue } from '../../domain/naming.js';
import { isDeleting, named, objectsOf, ownerOf, rec, str, type CompositeRequest, type Rec } from '../kit/index.js';
import { CLONED_FROM_NAME_ANNOTATION, MachineState, type Purpose } from './names.js';
import { sequenceOf } from './observed.js';

const IRONHOOK_GROUP = 'ironhook.dev';

export interface MachineContext {
  m3m: KObject;
  name: string;
  namespace: string;
  uid: string;
  generation: number;
  spec: Rec;
  /** The status committed by the previous sync (possibly stale: Metacontroller's cache may lag). */
  status: Rec;
  previousState: string;
  deleting: boolean;
  machine?: KObject;
  /** The MachineSet owning the Machine (workers of a MachineDeployment). */
  machineSet?: KObject;
  cluster?: KObject;
  clusterName: string;
  metal3Cluster?: KObject;
  template?: KObject;
  hosts: KObject[];
  datas: KObject[];
  claimChild?: KObject;
  /** ObjectPatch and NodeOperation children, sorted by name. */
  requests: KObject[];
  /** The highest request sequence used so far (status or children). */
  sequence: number;
  /** The newest timestamp observed anywhere in the request: Ironhook's stand-in for "now". */
  observedTime: string;
}

function timesOf(obj: KObject | undefined): string[] {
  if (obj === undefined) return [];
  return [obj.metadata.creationTimestamp ?? '', obj.metadata.deletionTimestamp ?? ''];
}

/** The newest RFC 3339 timestamp among the machine, its owners and its finished requests (no clock). */
function newestTime(ctx: MachineContext): string {
  const candidates = [
    ...timesOf(ctx.m3m),
    str(ctx.status.lastUpdated),
    ...timesOf(ctx.machine),
    ...timesOf(ctx.cluster),
    ...ctx.requests.map((r) => str(rec(r.status).completionTime)),
  ];
  return (
    candidates
      .filter((t) => t !== '')
      .sort()
      .at(-1) ?? ''
  );
}

function machineOf(c: CompositeRequest): KObject | undefined {
  const ref = ownerOf(c.parent, CapiKind.Machine, CAPI_GROUP);
  return ref === undefined
    ? undefined
    : objectsOf(c.related, CapiKind.Machine, CAPI_GROUP, c.namespace).find(
        (m) => m.metadata.name === ref.name && (ref.uid === '' || m.metadata.uid === ref.uid),
      );
}

/** The cluster name: the Machine's label, else the Metal3Machine's (both carry it, CAPI copies it). */
function clusterNameOf(m3m: KObject, machine: KObject | undefined): string {
  return machine?.metadata.labels?.[CLUSTER_NAME_LABEL] ?? m3m.metadata.labels?.[CLUSTER_NAME_LABEL] ?? '';
}

function metal3ClusterOf(c: CompositeRequest, cluster: KObject | undefined): KObject | undefined {
  const name = str(rec(rec(cluster?.spec).infrastructureRef).name);
  return named(objectsOf(c.related, 'Metal3Cluster', INFRA_GROUP, c.namespace), name);
}

/** The claim's Metal3Data: names this machine's claim, not being deleted first. */
function datasOf(c: CompositeRequest): KObject[] {
  const name = c.parent.metadata.name ?? '';
  const mine = objectsOf(c.related, DataKind.Metal3Data, INFRA_GROUP, c.namespace).filter(
    (data) => data.metadata.labels?.[DATA_CLAIM_LABEL] === labelValue(name) && str(rec(rec(data.spec).claim).name) === name,
  );
  return [...mine.filter((d) => !isDeleting(d)), ...mine.filter(isDeleting)];
}

function requestsOf(c: CompositeRequest): KObject[] {
  const patches = objectsOf(c.children, OBJECT_PATCH_KIND, IRONHOOK_GROUP, c.namespace);
  const nodes = objectsOf(c.children, NODE_OPERATION_KIND, IRONHOOK_GROUP, c.namespace);
  return [...patches, ...nodes].sort((a, b) => sequenceOf(a) - sequenceOf(b));
}

function highestSequence(status: Rec, requests: readonly KObject[]): number {
  const recorded = rec(status.ironhook).sequence;
  const fromStatus = typeof recorded === 'number' ? recorded : 0;
  return Math.max(fromStatus, ...requests.map(sequenceOf));
}

type Optional = Pick<MachineContext, 'machine' | 'machineSet' | 'cluster' | 'metal3Cluster' | 'template' | 'claimChild'>;

function machineSetOf(c: CompositeRequest, machine: KObject | undefined): KObject | undefined {
  const ref = machine === undefined ? undefined : ownerOf(machine, 'MachineSet', CAPI_GROUP);
  if (ref === undefined) return undefined;
  return objectsOf(c.related, 'MachineSet', CAPI_GROUP, c.namespace).find(
    (set) => set.metadata.name === ref.name && (ref.uid === '' || set.metadata.uid === ref.uid),
  );
}

/**
 * The machine's Metal3MachineTemplate, as upstream main finds it: the one its MachineSet's
 * `spec.template.spec.infrastructureRef` names; else (control-plane machines, whose control plane
 * object the hook does not watch, or a MachineSet not in the cache) the
 * `cluster.x-k8s.io/cloned-from-name` annotation, as upstream 1.12.
 */
function templateOf(c: CompositeRequest, machineSet: KObject | undefined): KObject | undefined {
  const templates = objectsOf(c.related, 'Metal3MachineTemplate', INFRA_GROUP, c.namespace);
  const ref = rec(rec(rec(rec(machineSet?.spec).template).spec).infrastructureRef);
  const fromSet = str(ref.kind) === 'Metal3MachineTemplate' ? named(templates, str(ref.name)) : undefined;
  return fromSet ?? named(templates, c.parent.metadata.annotations?.[CLONED_FROM_NAME_ANNOTATION] ?? '');
}

/** The objects a machine may lack, as present-or-absent keys (exactOptionalPropertyTypes). */
function optionalObjects(c: CompositeRequest, machine: KObject | undefined, cluster: KObject | undefined): Optional {
  const machineSet = machineSetOf(c, machine);
  const found: Record<keyof Optional, KObject | undefined> = {
    machine,
    machineSet,
    cluster,
    metal3Cluster: metal3ClusterOf(c, cluster),
    template: templateOf(c, machineSet),
    claimChild: named(objectsOf(c.children, DataKind.Metal3DataClaim, INFRA_GROUP, c.namespace), c.parent.metadata.name ?? ''),
  };
  return Object.fromEntries(Object.entries(found).filter(([, obj]) => obj !== undefined));
}

export function readContext(c: CompositeRequest): MachineContext {
  const m3m = c.parent;
  const status = rec(m3m.status);
  const machine = machineOf(c);
  const clusterName = clusterNameOf(m3m, machine);
  const cluster = named(objectsOf(c.related, 'Cluster', CAPI_GROUP, c.namespace), clusterName);
  const requests = requestsOf(c);
  const ctx: MachineContext = {
    ...optionalObjects(c, machine, cluster),
    m3m,
    name: m3m.metadata.name ?? '',
    namespace: c.namespace,
    uid: m3m.metadata.uid ?? '',
    generation: m3m.metadata.generation ?? 0,
    spec: rec(m3m.spec),
    status,
    previousState: str(rec(status.ironhook).state) || MachineState.WaitingForMachine,
    deleting: c.finalizing || isDeleting(m3m),
    clusterName,
    hosts: objectsOf(c.related, 'BareMetalHost', 'metal3.io', c.namespace),
    datas: datasOf(c),
    requests,
    sequence: highestSequence(status, requests),
    observedTime: '',
  };
  ctx.observedTime = newestTime(ctx);
  return ctx;
}

/** Requests of one purpose, oldest first. */
function requestsFor(ctx: MachineContext, purpose: Purpose): KObject[] {
  return ctx.requests.filter((r) => r.metadata.labels?.[PURPOSE_LABEL] === purpose);
}

/** The newest request of one purpose: the one that counts. */
export function latestRequest(ctx: MachineContext, purpose: Purpose): KObject | undefined {
  return requestsFor(ctx, purpose).at(-1);
}

export function isPausedContext(ctx: MachineContext): boolean {
  return rec(ctx.cluster?.spec).paused === true || ctx.m3m.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
}

export function hostNamed(ctx: MachineContext, name: string): KObject | undefined {
  return named(ctx.hosts, name);
}
