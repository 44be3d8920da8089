// Builders for the Metal3Cluster, Metal3MachineTemplate and Metal3Remediation hook requests in
// Metacontroller v2 format, shared by the unit tables and the golden fixtures.
import type { KObject } from '../../../domain/k8s.js';

const NS = 'metal3';
export const T0 = '2026-11-29T15:00:00Z';

/** `T0 + seconds`, RFC 3339 UTC with second precision. */
export function at(seconds: number): string {
  return new Date(Date.parse(T0) + seconds * 1000).toISOString().replace('.000Z', 'Z');
}

const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const IRONHOOK = 'ironhook.dev/v1alpha1';

type Meta = KObject['metadata'];

export function obj(apiVersion: string, kind: string, metadata: Meta, body: Record<string, unknown> = {}): KObject {
  return {
    apiVersion,
    kind,
    metadata: { namespace: NS, uid: `uid-${kind.toLowerCase()}-${metadata.name ?? ''}`, resourceVersion: '100', creationTimestamp: T0, ...metadata },
    ...body,
  };
}

export function controller(name: string, parent: string, children: string[]): KObject {
  return {
    apiVersion: 'metacontroller.k8s.io/v1alpha1',
    kind: 'CompositeController',
    metadata: { name },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: INFRA, resource: parent },
      childResources: children.map((resource) => ({ apiVersion: IRONHOOK, resource, updateStrategy: { method: 'OnDelete' } })),
    },
  };
}

/** A v2 object map: `Kind.group/version` → `namespace/name` → object. */
export function objectMap(objects: readonly KObject[], kinds: readonly string[] = []): Record<string, Record<string, KObject>> {
  const map: Record<string, Record<string, KObject>> = {};
  for (const key of kinds) map[key] = {};
  for (const o of objects) {
    const key = `${o.kind}.${o.apiVersion}`;
    map[key] = { ...map[key], [`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`]: o };
  }
  return map;
}

export interface CompositeRequest {
  controller: KObject;
  parent: KObject;
  children: Record<string, Record<string, KObject>>;
  related: Record<string, Record<string, KObject>>;
  finalizing: boolean;
}

export function capiCluster(name: string, spec: Record<string, unknown> = {}): KObject {
  return obj(CAPI, 'Cluster', { name, creationTimestamp: at(-60) }, { spec });
}

export function machine(name: string, options: { cluster?: string; nodeName?: string; infra?: string; labels?: Record<string, string> } = {}): KObject {
  const cluster = options.cluster ?? 'c1';
  return obj(
    CAPI,
    'Machine',
    { name, labels: { 'cluster.x-k8s.io/cluster-name': cluster, ...options.labels } },
    {
      spec: { clusterName: cluster, infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: options.infra ?? name } },
      status: options.nodeName === undefined ? {} : { nodeRef: { name: options.nodeName } },
    },
  );
}

export { INFRA, IRONHOOK };
