// IPAM and per-node data controllers with a parent one status write behind.
import type { KObject } from '../../../domain/k8s.js';
import type { CompositeSyncRequest } from '../../../domain/metacontroller.js';
import { fixture, rec, type Route, type Scenario } from './harness.js';

/** Cluster API pauses the object while sync N's status write is still on its way. */
function paused(request: CompositeSyncRequest): void {
  request.parent.metadata.annotations = { ...request.parent.metadata.annotations, 'cluster.x-k8s.io/paused': '' };
}

const count = (value: unknown): number => (Array.isArray(value) ? value.length : Object.keys(rec(value)).length);

export const ippoolRoute: Route = { route: 'ippool', progress: (status) => [count(status.indexes)], same: (status) => status.indexes };

export const ippoolScenarios: Scenario[] = [
  { name: 'ranges in order, then exhausted', request: fixture('ippool', 'ranges-in-order-then-exhausted') },
  { name: 'IPv6 pre-allocation and first free', request: fixture('ippool', 'ipv6-preallocation-and-first-free') },
  { name: 'release, keep and requested address', request: fixture('ippool', 'release-keep-and-requested-address') },
  { name: 'upstream docs example', request: fixture('ippool', 'upstream-docs-example') },
  { name: 'Cluster API IPAddressClaim', request: fixture('ippool', 'capi-ipaddressclaim') },
  { name: 'deletion releases the last address', request: fixture('ippool', 'deletion-releases-last-address') },
];

export const ipclaimRoute: Route = { route: 'ipclaim', progress: (status) => [status.address === undefined ? 0 : 1], same: (status) => status.address };

export const ipclaimScenarios: Scenario[] = [
  { name: 'address reported', request: fixture('ipclaim', 'address-reported') },
  { name: 'pool error reported', request: fixture('ipclaim', 'pool-error-reported') },
  { name: 'finalize waits for the release', request: fixture('ipclaim', 'finalize-waits-for-release') },
];

export const metal3dataRoute: Route = {
  route: 'metal3data',
  progress: (status) => [status.ready === true ? 1 : 0],
  same: (status) => rec(status.ironhook).addresses,
};

export const metal3dataScenarios: Scenario[] = [
  { name: 'seed worker 0: rendered', request: fixture('metal3data', 'seed-worker-0') },
  { name: 'claims an address', request: fixture('metal3data', 'upstream-worked-example-claims-an-address') },
  { name: 'waits for the pool', request: fixture('metal3data', 'upstream-worked-example-waits-for-the-pool') },
  { name: 'upstream worked example: rendered', request: fixture('metal3data', 'upstream-worked-example') },
  { name: 'pool exhausted', request: fixture('metal3data', 'pool-exhausted') },
  { name: 'Secrets exist: never rendered again', request: fixture('metal3data', 'secrets-exist-never-rendered-again') },
  { name: 'claim deleted: released', request: fixture('metal3data', 'claim-deleted-releases-finalize') },
  { name: 'paused right after claiming an address', request: fixture('metal3data', 'upstream-worked-example-claims-an-address'), meanwhile: paused },
  { name: 'paused right after rendering', request: fixture('metal3data', 'upstream-worked-example'), meanwhile: paused },
];

export const metal3datatemplateRoute: Route = { route: 'metal3datatemplate', progress: (status) => [count(status.indexes)], same: (status) => status.indexes };

export const metal3datatemplateScenarios: Scenario[] = [
  { name: 'first claims get indexes 0, 1, 2', request: fixture('metal3datatemplate', 'first-claims-get-indexes-0-1-2') },
  { name: 'a gap is reused, nothing moves', request: fixture('metal3datatemplate', 'gap-is-reused-nothing-moves') },
  { name: 'a deleted claim releases its data', request: fixture('metal3datatemplate', 'deleted-claim-releases-its-data') },
  { name: 'a re-created claim gets new data', request: fixture('metal3datatemplate', 'recreated-claim-gets-new-data') },
  { name: 'a committed index survives cache lag', request: fixture('metal3datatemplate', 'committed-index-survives-cache-lag') },
  { name: 'paused: everything kept', request: fixture('metal3datatemplate', 'paused-keeps-everything') },
  { name: 'deletion waits for the data', hook: 'finalize', request: fixture('metal3datatemplate', 'waits-for-data-finalize') },
  { name: 'paused right after the first indexes', request: fixture('metal3datatemplate', 'first-claims-get-indexes-0-1-2'), meanwhile: paused },
];

const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';

function obj(kind: string, name: string, fields: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return {
    apiVersion: kind === 'Machine' ? 'cluster.x-k8s.io/v1beta2' : V2,
    kind,
    metadata: { name, namespace: 'metal3', uid: `uid-${kind}-${name}`, creationTimestamp: '2026-11-29T10:00:00Z', ...meta },
    ...fields,
  };
}

function ref(o: KObject): NonNullable<KObject['metadata']['ownerReferences']>[number] {
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name ?? '', uid: o.metadata.uid ?? '', controller: true };
}

/** A claim whose Metal3Data the template has just created. */
function claimRequest(): CompositeSyncRequest {
  const owner = obj('Machine', 'w-abc-m');
  const m3m = obj('Metal3Machine', 'w-abc', {}, { annotations: { 'metal3.io/BareMetalHost': 'metal3/node-3' }, ownerReferences: [ref(owner)] });
  const claim = obj(
    'Metal3DataClaim',
    'w-abc',
    { spec: { template: { name: 'workers' } }, status: { ironhook: { metal3Machine: 'w-abc', bareMetalHost: 'node-3', machine: 'w-abc-m' } } },
    { ownerReferences: [ref(m3m)] },
  );
  const data = obj(
    'Metal3Data',
    'workers-4',
    { spec: { index: 4, claim: { name: 'w-abc', namespace: 'metal3' }, template: { name: 'workers', namespace: 'metal3' } } },
    { labels: { 'ironhook.dev/metal3dataclaim': 'w-abc' } },
  );
  const related = [obj('Metal3DataTemplate', 'workers'), m3m, data];
  const map: CompositeSyncRequest['related'] = {};
  for (const o of related) map[`${o.kind}.${o.apiVersion}`] = { [`metal3/${o.metadata.name ?? ''}`]: o };
  return {
    controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'ironhook-metal3dataclaim' } },
    parent: claim,
    children: {},
    related: map,
    finalizing: false,
  };
}

export const metal3dataclaimRoute: Route = {
  route: 'metal3dataclaim',
  progress: (status) => [status.renderedData === undefined ? 0 : 1],
  same: (status) => status.renderedData,
};

export const metal3dataclaimScenarios: Scenario[] = [{ name: 'its Metal3Data exists: renderedData reported', request: claimRequest }];
