// Metal3MachineTemplate requests by scenario: rows of test/unit/m3mt-sync.test.ts and the fixtures.
import type { KObject } from '../../../domain/k8s.js';
import { controller, INFRA, IRONHOOK, obj, objectMap, type CompositeRequest } from './builders.js';

const TEMPLATE = 'workers';

export function m3m(name: string, o: { mode?: string; template?: string | null; rv?: string; deleting?: boolean } = {}): KObject {
  const template = o.template === undefined ? TEMPLATE : o.template;
  return obj(
    INFRA,
    'Metal3Machine',
    {
      name,
      resourceVersion: o.rv ?? '100',
      ...(template !== null && {
        annotations: {
          'cluster.x-k8s.io/cloned-from-name': template,
          'cluster.x-k8s.io/cloned-from-groupkind': 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io',
        },
      }),
      ...(o.deleting === true && { deletionTimestamp: '2026-11-29T15:10:00Z' }),
    },
    { spec: { image: { url: 'http://example/img' }, ...(o.mode !== undefined && { automatedCleaningMode: o.mode }) } },
  );
}

export function cleaningPatch(machine: string, sequence: number, o: { testedRv?: string; phase?: string; reason?: string; mode?: string } = {}): KObject {
  return obj(
    IRONHOOK,
    'ObjectPatch',
    {
      name: `${TEMPLATE}-cleaning-${machine}-${sequence}`,
      labels: { 'controller-uid': 'uid-m3mt', 'ironhook.dev/purpose': 'cleaning-mode', 'ironhook.dev/requested-by': 'Metal3MachineTemplate.workers' },
    },
    {
      spec: {
        target: { apiVersion: INFRA, kind: 'Metal3Machine', name: machine, namespace: 'metal3' },
        operations: [
          { op: 'test', path: '/metadata/resourceVersion', value: o.testedRv ?? '100' },
          { op: 'replace', path: '/spec/automatedCleaningMode', value: o.mode ?? 'disabled' },
        ],
      },
      ...(o.phase !== undefined && { status: { phase: o.phase, ...(o.reason !== undefined && { reason: o.reason }) } }),
    },
  );
}

export function templateRequest(o: { mode?: string; paused?: boolean; machines?: KObject[]; patches?: KObject[] }): CompositeRequest {
  return {
    controller: controller('ironhook-metal3machinetemplate', 'metal3machinetemplates', ['objectpatches']),
    parent: obj(
      INFRA,
      'Metal3MachineTemplate',
      { name: TEMPLATE, uid: 'uid-m3mt', ...(o.paused === true && { annotations: { 'cluster.x-k8s.io/paused': '' } }) },
      { spec: { template: { spec: { image: { url: 'http://example/img' }, ...(o.mode !== undefined && { automatedCleaningMode: o.mode }) } } } },
    ),
    children: objectMap(o.patches ?? [], ['ObjectPatch.ironhook.dev/v1alpha1']),
    related: objectMap(o.machines ?? [], ['Metal3Machine.infrastructure.cluster.x-k8s.io/v1beta2']),
    finalizing: false,
  };
}
