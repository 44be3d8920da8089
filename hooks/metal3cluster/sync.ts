// CompositeController `ironhook-metal3cluster`: parent Metal3Cluster,
// no children, related the namespace's Clusters and Cluster API Machines. Routes
// /hooks/metal3cluster/{sync,finalize,customize}.
//
// No infrastructure is created: the hook validates the endpoint, copies the failure domains and
// reports provisioned once the owner Cluster exists. Deletion waits until the cluster's Machines
// are gone (the finalizer metacontroller.io/compositecontroller-ironhook-metal3cluster plays the
// part of metal3cluster.infrastructure.cluster.x-k8s.io).
import { CAPI_V1BETA2, CLUSTER_NAME_LABEL } from '../../domain/capi/types.js';
import type { Metal3ClusterStatus } from '../../domain/capm3/types.js';
import type { CompositeSyncResponse, CustomizeResponse } from '../../domain/metacontroller.js';
import { parseCustomize, rec, relatedRule, relatedType } from '../kit/index.js';
import { metav1Conditions, v1beta1Conditions, type ConditionSpec } from './conditions.js';
import { clusterView, endpointProblem, METAL3CLUSTER_KIND, type ClusterView } from './view.js';

/** Upstream's v1beta1 condition type for the infrastructure cluster. */
const BAREMETAL_INFRASTRUCTURE_READY = 'BaremetalInfrastructureReady';
/** Upstream requeues every 30 s while Machines keep a cluster from being deleted. */
const DELETE_WAIT_SECONDS = 30;

/**
 * Clusters and Machines of the whole namespace: the owner reference and so the cluster name are
 * set by Cluster API after the Metal3Cluster exists, which does not change its generation, and
 * Metacontroller caches a customize answer per generation.
 */
/** What metal3clusterCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3CLUSTER_RELATED = {
  clusters: relatedType(CAPI_V1BETA2, 'clusters'),
  machines: relatedType(CAPI_V1BETA2, 'machines'),
};

export function metal3clusterCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, METAL3CLUSTER_KIND);
  const namespace = parent.metadata.namespace ?? '';
  return {
    relatedResources: [
      relatedRule(METAL3CLUSTER_RELATED.clusters, namespace),
      relatedRule(METAL3CLUSTER_RELATED.machines, namespace, { labelSelector: { matchExpressions: [{ key: CLUSTER_NAME_LABEL, operator: 'Exists' }] } }),
    ],
  };
}

interface Readiness {
  ready: boolean;
  message: string;
  v1beta1Reason: string;
  severity: 'Error' | 'Warning' | 'Info';
  failure?: { reason: string; message: string };
}

function readiness(view: ClusterView): Readiness {
  if (view.ownerName === '') {
    return {
      ready: false,
      message: 'Waiting for the Cluster controller to set an owner reference on the Metal3Cluster',
      v1beta1Reason: 'WaitingForClusterOwner',
      severity: 'Info',
    };
  }
  if (view.cluster === undefined) {
    return { ready: false, message: `Waiting for the owner Cluster ${view.ownerName}`, v1beta1Reason: 'WaitingForClusterOwner', severity: 'Info' };
  }
  const problem = endpointProblem(view.c.parent.spec);
  if (problem !== undefined) {
    return {
      ready: false,
      message: problem,
      v1beta1Reason: 'InvalidConfiguration',
      severity: 'Error',
      failure: { reason: 'InvalidConfiguration', message: problem },
    };
  }
  return { ready: true, message: '', v1beta1Reason: '', severity: 'Info' };
}

function pausedCondition(view: ClusterView): ConditionSpec {
  return view.pausedBy === undefined
    ? { type: 'Paused', status: 'False', reason: 'NotPaused', message: '' }
    : { type: 'Paused', status: 'True', reason: 'Paused', message: view.pausedBy };
}

function oldConditions(view: ClusterView): { metav1: unknown; v1beta1: unknown } {
  return { metav1: view.oldStatus.conditions, v1beta1: rec(rec(view.oldStatus.deprecated).v1beta1).conditions };
}

function buildStatus(view: ClusterView, r: Readiness): Metal3ClusterStatus {
  const old = oldConditions(view);
  const ready: ConditionSpec = r.ready
    ? { type: 'Ready', status: 'True', reason: 'Ready', message: '' }
    : { type: 'Ready', status: 'False', reason: 'NotReady', message: r.message };
  const infra: ConditionSpec = r.ready
    ? { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'True', reason: '', message: '' }
    : { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'False', reason: r.v1beta1Reason, message: r.message, severity: r.severity };
  const summary: ConditionSpec = { ...infra, type: 'Ready' };
  const failureDomains = rec(view.c.parent.spec).failureDomains;
  return {
    conditions: metav1Conditions([ready, pausedCondition(view)], old.metav1, view.observedTime, view.c.parent.metadata.generation),
    deprecated: {
      v1beta1: {
        conditions: v1beta1Conditions([summary, infra], old.v1beta1, view.observedTime),
        ...(r.failure && { failureMessage: r.failure.message, failureReason: r.failure.reason }),
      },
    },
    ...(Array.isArray(failureDomains) && { failureDomains }),
    initialization: { provisioned: r.ready },
    ...(view.observedTime !== '' && { lastUpdated: view.observedTime }),
  };
}

/** Paused: upstream only sets the Paused condition and leaves everything else as it was. */
function pausedStatus(view: ClusterView): Record<string, unknown> {
  const paused = metav1Conditions([pausedCondition(view)], view.oldStatus.conditions, view.observedTime, view.c.parent.metadata.generation);
  const oldList: unknown[] = Array.isArray(view.oldStatus.conditions) ? view.oldStatus.conditions : [];
  const kept = oldList.map(rec).filter((cond) => cond.type !== 'Paused');
  const rank = (cond: Record<string, unknown>): string => (cond.type === 'Ready' ? '' : String(cond.type));
  const conditions = [...kept, ...paused].sort((a, b) => (rank(a) < rank(b) ? -1 : 1));
  return { ...view.oldStatus, conditions };
}

export function metal3clusterSync(request: unknown): CompositeSyncResponse {
  const view = clusterView(request);
  if (view.externallyManaged) return { children: [], status: view.oldStatus };
  if (view.pausedBy !== undefined) return { children: [], status: pausedStatus(view) };
  return { children: [], status: buildStatus(view, readiness(view)) };
}

function deletingStatus(view: ClusterView): Metal3ClusterStatus {
  const count = view.machines.length;
  const message =
    count === 0 ? 'Deleting: no Machines left' : `Deleting: waiting for ${count} Machine${count === 1 ? '' : 's'} of Cluster ${view.ownerName} to be deleted`;
  const status = buildStatus(view, { ready: false, message, v1beta1Reason: 'Deleting', severity: 'Info' });
  const conditions = (status.conditions ?? []).map((cond) => (cond.type === 'Ready' ? { ...cond, reason: 'Deleting' } : cond));
  return { ...status, conditions };
}

/** Deletion waits while Machines of the cluster exist (upstream requeues every 30 s). */
export function metal3clusterFinalize(request: unknown): CompositeSyncResponse {
  const view = clusterView(request);
  if (view.externallyManaged) return { children: [], finalized: true, status: view.oldStatus };
  if (view.pausedBy !== undefined) return { children: [], finalized: false, status: pausedStatus(view) };
  const finalized = view.machines.length === 0;
  return { children: [], finalized, status: deletingStatus(view), ...(!finalized && { resyncAfterSeconds: DELETE_WAIT_SECONDS }) };
}
