// Metal3MachineTemplate hook: automatedCleaningMode propagation rows.
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { metal3machinetemplateCustomize, metal3machinetemplateSync } from '../../hooks/metal3machinetemplate/index.js';
import { cleaningPatch, m3m, templateRequest } from './m3r/template-rows.js';

interface Op {
  op: string;
  path: string;
  value?: unknown;
}

function summary(children: KObject[]): { name: string; target: string; ops: string[] }[] {
  return children.map((child) => {
    const spec = child.spec as { target: { name: string }; operations: Op[] };
    return { name: child.metadata.name ?? '', target: spec.target.name, ops: spec.operations.map((op) => `${op.op} ${op.path} ${String(op.value)}`) };
  });
}

interface Row {
  name: string;
  request: Parameters<typeof templateRequest>[0];
  expected: { name: string; target: string; ops: string[] }[];
}

const rows: Row[] = [
  {
    name: 'differing machine gets its first patch (replace)',
    request: { mode: 'disabled', machines: [m3m('m1', { mode: 'metadata', rv: '7' })] },
    expected: [{ name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 7', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'machine without a value gets add',
    request: { mode: 'disabled', machines: [m3m('m1', { rv: '8' })] },
    expected: [{ name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 8', 'add /spec/automatedCleaningMode disabled'] }],
  },
  { name: 'machine already showing the value: no patch', request: { mode: 'disabled', machines: [m3m('m1', { mode: 'disabled' })] }, expected: [] },
  { name: 'template without a value: nothing is propagated', request: { machines: [m3m('m1', { mode: 'metadata' })] }, expected: [] },
  {
    name: 'machine cloned from another template is left alone',
    request: { mode: 'disabled', machines: [m3m('m1', { mode: 'metadata', template: 'other' })] },
    expected: [],
  },
  {
    name: 'machine not cloned from a template is left alone',
    request: { mode: 'disabled', machines: [m3m('m1', { mode: 'metadata', template: null })] },
    expected: [],
  },
  { name: 'deleting machine is left alone', request: { mode: 'disabled', machines: [m3m('m1', { mode: 'metadata', deleting: true })] }, expected: [] },
  {
    name: 'pending patch is kept, not duplicated',
    request: { mode: 'disabled', machines: [m3m('m1', { mode: 'metadata', rv: '9' })], patches: [cleaningPatch('m1', 1, { testedRv: '7', phase: 'Pending' })] },
    expected: [{ name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 7', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'succeeded patch, cache still shows the tested version: kept, no new one',
    request: {
      mode: 'disabled',
      machines: [m3m('m1', { mode: 'metadata', rv: '7' })],
      patches: [cleaningPatch('m1', 1, { testedRv: '7', phase: 'Succeeded', reason: 'Applied' })],
    },
    expected: [{ name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 7', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'succeeded patch and machine shows the value: patch dropped',
    request: {
      mode: 'disabled',
      machines: [m3m('m1', { mode: 'disabled', rv: '8' })],
      patches: [cleaningPatch('m1', 1, { testedRv: '7', phase: 'Succeeded', reason: 'Applied' })],
    },
    expected: [],
  },
  {
    name: 'test failed, machine changed: next sequence against the new version',
    request: {
      mode: 'disabled',
      machines: [m3m('m1', { mode: 'metadata', rv: '12' })],
      patches: [cleaningPatch('m1', 1, { testedRv: '7', phase: 'Failed', reason: 'TestFailed' })],
    },
    expected: [{ name: 'workers-cleaning-m1-2', target: 'm1', ops: ['test /metadata/resourceVersion 12', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'per-machine override after our patch is reverted (template wins, issue #410)',
    request: {
      mode: 'disabled',
      machines: [m3m('m1', { mode: 'metadata', rv: '20' })],
      patches: [cleaningPatch('m1', 3, { testedRv: '7', phase: 'Succeeded', reason: 'Applied' })],
    },
    expected: [{ name: 'workers-cleaning-m1-4', target: 'm1', ops: ['test /metadata/resourceVersion 20', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'rejected patch and nothing changed since: kept, not retried',
    request: {
      mode: 'disabled',
      machines: [m3m('m1', { mode: 'metadata', rv: '7' })],
      patches: [cleaningPatch('m1', 1, { testedRv: '7', phase: 'Failed', reason: 'Rejected' })],
    },
    expected: [{ name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 7', 'replace /spec/automatedCleaningMode disabled'] }],
  },
  {
    name: 'several machines, sorted by patch name',
    request: { mode: 'metadata', machines: [m3m('m2', { mode: 'disabled' }), m3m('m1', { mode: 'disabled' }), m3m('m3', { mode: 'metadata' })] },
    expected: [
      { name: 'workers-cleaning-m1-1', target: 'm1', ops: ['test /metadata/resourceVersion 100', 'replace /spec/automatedCleaningMode metadata'] },
      { name: 'workers-cleaning-m2-1', target: 'm2', ops: ['test /metadata/resourceVersion 100', 'replace /spec/automatedCleaningMode metadata'] },
    ],
  },
  {
    name: 'paused: observed patches kept as they are, none added',
    request: {
      mode: 'disabled',
      paused: true,
      machines: [m3m('m1', { mode: 'metadata' }), m3m('m2', { mode: 'metadata' })],
      patches: [cleaningPatch('m1', 2, { phase: 'Failed', reason: 'TestFailed' })],
    },
    expected: [{ name: 'workers-cleaning-m1-2', target: 'm1', ops: ['test /metadata/resourceVersion 100', 'replace /spec/automatedCleaningMode disabled'] }],
  },
];

describe('metal3machinetemplate sync', () => {
  for (const row of rows) {
    it(row.name, () => {
      const response = metal3machinetemplateSync(templateRequest(row.request));
      expect(response.status).toEqual({});
      expect(summary(response.children)).toEqual(row.expected);
    });
  }

  it('a new patch is labelled, targets the Metal3Machine and carries no Metacontroller selector label', () => {
    const [child] = metal3machinetemplateSync(templateRequest({ mode: 'disabled', machines: [m3m('m1', { mode: 'metadata' })] })).children;
    expect(child?.metadata.labels).toEqual({ 'ironhook.dev/purpose': 'cleaning-mode', 'ironhook.dev/requested-by': 'Metal3MachineTemplate.workers' });
    expect(child?.spec).toMatchObject({
      target: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'm1', namespace: 'metal3' },
    });
  });

  it('an echoed patch drops the controller-uid label and the status', () => {
    const [child] = metal3machinetemplateSync(
      templateRequest({ mode: 'disabled', machines: [m3m('m1', { mode: 'metadata' })], patches: [cleaningPatch('m1', 1, { phase: 'Pending' })] }),
    ).children;
    expect(child?.metadata.labels?.['controller-uid']).toBeUndefined();
    expect(child?.status).toBeUndefined();
  });
});

describe('metal3machinetemplate customize', () => {
  it("selects the namespace's Metal3Machines", () => {
    expect(metal3machinetemplateCustomize({ parent: templateRequest({}).parent })).toEqual({
      relatedResources: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', namespace: 'metal3', resource: 'metal3machines' }],
    });
  });
});
