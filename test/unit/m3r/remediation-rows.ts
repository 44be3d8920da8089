// Metal3Remediation requests by scenario, for test/unit/m3r-states.test.ts and the fixtures.
import type { KObject } from '../../../domain/k8s.js';
import { at, controller, INFRA, IRONHOOK, machine, obj, objectMap, type CompositeRequest } from './builders.js';

const M3R_UID = 'uid-m3r-1';
export const POWER_KEY = `reboot.metal3.io/metal3-remediation-${M3R_UID}`;

export interface World {
  phase?: string;
  retryCount?: number;
  lastRemediated?: string;
  strategy?: Record<string, unknown>;
  online?: boolean;
  poweredOn?: boolean;
  annotated?: boolean;
  hostAnnotations?: Record<string, string> | null;
  hostLastUpdated?: string;
  monitorTime?: string;
  nodeName?: string | null;
  noMachine?: boolean;
  noMetal3Machine?: boolean;
  noHost?: boolean;
  hostByConsumerRef?: boolean;
  /** The namespace in the host's consumerRef (default the machine's, metal3). */
  consumerNamespace?: string;
  /** The Metal3Machine's metal3.io/BareMetalHost annotation (default metal3/host-0). */
  hostAnnotation?: string;
  children?: KObject[];
  deleting?: boolean;
}

export function remediation(w: World): KObject {
  return obj(
    INFRA,
    'Metal3Remediation',
    {
      name: 'worker-0',
      uid: M3R_UID,
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'worker-0', uid: 'uid-machine-worker-0', controller: true }],
      ...(w.deleting === true && { deletionTimestamp: at(5000) }),
    },
    {
      spec: { strategy: w.strategy ?? { type: 'Reboot', retryLimit: 1, timeoutSeconds: 300 } },
      status: {
        ...(w.phase !== undefined && { phase: w.phase }),
        ...(w.retryCount !== undefined && { retryCount: w.retryCount }),
        ...(w.lastRemediated !== undefined && { lastRemediated: w.lastRemediated }),
      },
    },
  );
}

export function host(w: World): KObject {
  const annotations = w.hostAnnotations === null ? undefined : { ...w.hostAnnotations, ...(w.annotated === true && { [POWER_KEY]: '{"mode":"hard"}' }) };
  return obj(
    'metal3.io/v1alpha1',
    'BareMetalHost',
    { name: 'host-0', resourceVersion: '555', ...(annotations && { annotations }) },
    {
      spec: {
        online: w.online ?? true,
        consumerRef: { apiVersion: INFRA, kind: 'Metal3Machine', name: 'worker-0-m3m', namespace: w.consumerNamespace ?? 'metal3' },
      },
      status: { poweredOn: w.poweredOn ?? true, lastUpdated: w.hostLastUpdated ?? at(0), provisioning: { state: 'provisioned' } },
    },
  );
}

export function m3mFor(w: World): KObject {
  return obj(
    INFRA,
    'Metal3Machine',
    { name: 'worker-0-m3m', ...(w.hostByConsumerRef !== true && { annotations: { 'metal3.io/BareMetalHost': w.hostAnnotation ?? 'metal3/host-0' } }) },
    { spec: {} },
  );
}

function monitor(time: string): KObject {
  return obj(IRONHOOK, 'BMCMonitor', { name: 'host-0' }, { spec: {}, status: { observedTime: time, changedTime: at(0), poweredOn: true } });
}

export function nodeOp(action: 'Fence' | 'Restore', attempt: number, status: Record<string, unknown> = {}): KObject {
  const purpose = action.toLowerCase();
  return obj(
    IRONHOOK,
    'NodeOperation',
    {
      name: `worker-0-${purpose}-${attempt}`,
      labels: { 'controller-uid': M3R_UID, 'ironhook.dev/purpose': purpose, 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' },
    },
    {
      spec: {
        action,
        cluster: { name: 'c1' },
        node: { name: 'node-0' },
        ...(action === 'Restore' && { restore: { labels: { role: 'worker' }, annotations: {} } }),
      },
      status,
    },
  );
}

/** An out-of-service mode request: `taint` (AddOutOfServiceTaint) or `untaint` (RemoveOutOfServiceTaint). */
export function taintOp(purpose: 'taint' | 'untaint', attempt: number, status: Record<string, unknown> = {}): KObject {
  return obj(
    IRONHOOK,
    'NodeOperation',
    {
      name: `worker-0-${purpose}-${attempt}`,
      labels: { 'controller-uid': M3R_UID, 'ironhook.dev/purpose': purpose, 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' },
    },
    {
      spec: { action: purpose === 'taint' ? 'AddOutOfServiceTaint' : 'RemoveOutOfServiceTaint', cluster: { name: 'c1' }, node: { name: 'node-0' } },
      status,
    },
  );
}

/** The attempt's timeout clock: a Wait due at lastRemediated + timeoutSeconds (300 s from at(0)). */
export function timeoutOp(attempt: number, status: Record<string, unknown> = {}): KObject {
  return obj(
    IRONHOOK,
    'NodeOperation',
    {
      name: `worker-0-timeout-${attempt}`,
      labels: { 'controller-uid': M3R_UID, 'ironhook.dev/purpose': 'timeout', 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' },
    },
    { spec: { action: 'Wait', cluster: { name: 'c1' }, node: {}, until: at(300) }, status },
  );
}

export const tainted = (attempt: number): KObject => taintOp('taint', attempt, { phase: 'Succeeded', completionTime: at(20), node: { name: 'node-0' } });

export const fenced = (attempt: number, time: string = at(20)): KObject =>
  nodeOp('Fence', attempt, { phase: 'Succeeded', completionTime: time, node: { name: 'node-0', labels: { role: 'worker' }, annotations: { note: 'a' } } });
export const fencedNoNode = (attempt: number): KObject => nodeOp('Fence', attempt, { phase: 'Succeeded', completionTime: at(20) });
export const restored = (attempt: number, time: string = at(60)): KObject =>
  nodeOp('Restore', attempt, { phase: 'Succeeded', completionTime: time, node: { name: 'node-0' } });

export function patch(purpose: 'owner-remediated' | 'unhealthy-host', sequence: number, status: Record<string, unknown>): KObject {
  return obj(
    IRONHOOK,
    'ObjectPatch',
    { name: `worker-0-${purpose}-${sequence}`, labels: { 'ironhook.dev/purpose': purpose, 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' } },
    { spec: { target: { apiVersion: 'v1', kind: 'X', name: 'x', namespace: 'metal3' }, operations: [] }, status },
  );
}

export function remediationRequest(w: World): CompositeRequest {
  const related: KObject[] = [];
  if (w.noMachine !== true) related.push(machine('worker-0', { infra: 'worker-0-m3m', ...(w.nodeName !== null && { nodeName: w.nodeName ?? 'node-0' }) }));
  if (w.noMetal3Machine !== true) related.push(m3mFor(w));
  if (w.noHost !== true) related.push(host(w));
  if (w.monitorTime !== undefined) related.push(monitor(w.monitorTime));
  return {
    controller: controller('ironhook-metal3remediation', 'metal3remediations', ['nodeoperations', 'objectpatches']),
    parent: remediation(w),
    children: objectMap(w.children ?? [], ['NodeOperation.ironhook.dev/v1alpha1', 'ObjectPatch.ironhook.dev/v1alpha1']),
    related: objectMap(related, [
      'Machine.cluster.x-k8s.io/v1beta2',
      'Metal3Machine.infrastructure.cluster.x-k8s.io/v1beta2',
      'BareMetalHost.metal3.io/v1alpha1',
      'BMCMonitor.ironhook.dev/v1alpha1',
    ]),
    finalizing: w.deleting === true,
  };
}
