// Metal3Cluster requests by scenario: the rows of test/unit/m3c-sync.test.ts and the fixtures.
import type { KObject } from '../../../domain/k8s.js';
import { at, capiCluster, controller, INFRA, machine, obj, objectMap, type CompositeRequest } from './builders.js';

export interface ClusterOptions {
  owner?: boolean;
  spec?: Record<string, unknown>;
  annotations?: Record<string, string>;
  status?: Record<string, unknown>;
  deleting?: boolean;
  clusterSpec?: Record<string, unknown>;
  clusterMissing?: boolean;
  machines?: KObject[];
}

export const VALID_SPEC = { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } };

function metal3Cluster(o: ClusterOptions = {}): KObject {
  const owner = o.owner ?? true;
  return obj(
    INFRA,
    'Metal3Cluster',
    {
      name: 'm3c',
      generation: 2,
      ...(o.annotations && { annotations: o.annotations }),
      ...(owner && { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'uid-cluster-c1', controller: true }] }),
      ...(o.deleting === true && { deletionTimestamp: at(120) }),
    },
    { spec: o.spec ?? VALID_SPEC, status: o.status ?? {} },
  );
}

export function clusterRequest(o: ClusterOptions = {}): CompositeRequest {
  const related: KObject[] = [...(o.clusterMissing === true ? [] : [capiCluster('c1', o.clusterSpec ?? {})]), ...(o.machines ?? [])];
  return {
    controller: controller('ironhook-metal3cluster', 'metal3clusters', []),
    parent: metal3Cluster(o),
    children: {},
    related: objectMap(related, ['Cluster.cluster.x-k8s.io/v1beta2', 'Machine.cluster.x-k8s.io/v1beta2']),
    finalizing: o.deleting === true,
  };
}

export const twoMachines = [machine('c1-cp-0'), machine('c1-md-0')];
export const otherClusterMachine = [machine('c2-cp-0', { cluster: 'c2' })];
