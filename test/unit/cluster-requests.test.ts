// The pure parts of the Cluster API request runner (drivers/cluster): which ObjectPatch targets
// are allowed, condition upserts, and how a refused patch is judged (already applied, which
// test fails). The API-facing parts run against real apiservers in
// test/integration/cluster-requests.test.ts.
import { describe, expect, it } from 'vitest';
import type { ConditionUpsert, JsonPatchOperation, ObjectPatch, PatchTarget } from '../../domain/capi/requests.js';
import { upsertConditions } from '../../drivers/cluster/conditions.js';
import { alreadyApplied, failingTest } from '../../drivers/cluster/json-pointer.js';
import { checkTarget, refPath } from '../../drivers/cluster/targets.js';

const NS = 'metal3';
const T0 = '2026-11-29T15:00:00Z';
const T1 = '2026-11-29T15:05:00Z';

function patch(target: Partial<PatchTarget>, operations: JsonPatchOperation[] = [], conditions?: ConditionUpsert[]): ObjectPatch {
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'ObjectPatch',
    metadata: { name: 'p', namespace: NS },
    spec: { target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: NS, name: 'h', ...target }, operations, ...(conditions && { conditions }) },
  };
}

describe('checkTarget', () => {
  const label: JsonPatchOperation = { op: 'add', path: '/metadata/labels/a~1b', value: 'c' };
  const ROWS: [string, ObjectPatch, string][] = [
    ['BareMetalHost', patch({}), '/apis/metal3.io/v1alpha1/namespaces/metal3/baremetalhosts/h'],
    ['Machine status v1beta2', patch({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', subresource: 'status' }), '/apis/cluster.x-k8s.io/v1beta2/namespaces/metal3/machines/h/status'],
    ['Metal3Machine v1beta1', patch({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine' }), '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/metal3/metal3machines/h'],
    ['Metal3Remediation', patch({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Remediation' }), '/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/metal3/metal3remediations/h'],
    ['Secret labels', patch({ apiVersion: 'v1', kind: 'Secret' }, [label, { op: 'add', path: '/metadata/labels', value: {} }]), '/api/v1/namespaces/metal3/secrets/h'],
    ['other namespace', patch({ namespace: 'kube-system' }), "is not the request's namespace"],
    ['unknown version', patch({ apiVersion: 'metal3.io/v1beta9' }), 'not a kind the driver pool patches'],
    ['Node', patch({ apiVersion: 'v1', kind: 'Node' }), 'not a kind the driver pool patches'],
    ['host status', patch({ subresource: 'status' }), 'does not patch the status'],
    ['Secret data', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'add', path: '/data/x', value: 'eA==' }]), 'may only touch /metadata/labels'],
    ['Secret move from data', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'move', from: '/data/x', path: '/metadata/labels/x' }]), 'may only touch /metadata/labels'],
    ['Secret label of a label', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'add', path: '/metadata/labels/a/b', value: 'c' }]), 'may only touch /metadata/labels'],
    ['Secret conditions', patch({ apiVersion: 'v1', kind: 'Secret' }, [label], [{ path: '/status/conditions', condition: { type: 'X', status: 'True' } }]), 'has no conditions'],
  ];

  it.each(ROWS)('%s', (_name, request, want) => {
    const check = checkTarget(request);
    expect(check.kind === 'allowed' ? refPath(check.ref) : check.message).toContain(want);
    expect(check.kind).toBe(want.startsWith('/') ? 'allowed' : 'rejected');
  });
});

describe('upsertConditions', () => {
  const ready = (status: 'True' | 'False', message = ''): ConditionUpsert => ({ path: '/status/conditions', condition: { type: 'Ready', status, reason: 'R', message } });
  const ROWS: { name: string; before: Record<string, unknown>; upserts: ConditionUpsert[]; kind: string; after?: unknown }[] = [
    { name: 'creates status and the list', before: {}, upserts: [ready('True')], kind: 'changed', after: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T1 }] } } },
    { name: 'same content: unchanged', before: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0 }] } }, upserts: [ready('True')], kind: 'unchanged' },
    { name: 'message only: time kept', before: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0 }] } }, upserts: [ready('True', 'm')], kind: 'changed', after: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm', lastTransitionTime: T0 }] } } },
    { name: 'status flips: time moves, others kept', before: { status: { conditions: [{ type: 'A', status: 'True', reason: 'x', message: '', lastTransitionTime: T0 }, { type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0, observedGeneration: 2 }] } }, upserts: [ready('False')], kind: 'changed', after: { status: { conditions: [{ type: 'A', status: 'True', reason: 'x', message: '', lastTransitionTime: T0 }, { type: 'Ready', status: 'False', reason: 'R', message: '', lastTransitionTime: T1, observedGeneration: 2 }] } } },
    { name: 'path through a string', before: { status: 'x' }, upserts: [ready('True')], kind: 'invalid' },
    { name: 'list is an object', before: { status: { conditions: {} } }, upserts: [ready('True')], kind: 'invalid' },
    { name: 'root pointer', before: {}, upserts: [{ ...ready('True'), path: '' }], kind: 'invalid' },
  ];

  it.each(ROWS)('$name → $kind', (row) => {
    const document = structuredClone(row.before);
    expect(upsertConditions(document, row.upserts, T1).kind).toBe(row.kind);
    if (row.after !== undefined) {
      expect(document).toEqual(row.after);
    }
  });
});

describe('judging a refused patch', () => {
  const host = { metadata: { resourceVersion: '7', labels: { 'a/b': 'c' } }, spec: { online: true, consumerRef: { name: 'm1' } } };
  const ROWS: { name: string; operations: JsonPatchOperation[]; applied: boolean; failing?: string }[] = [
    { name: 'claim already there', operations: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }, { op: 'add', path: '/spec/consumerRef', value: { name: 'm1' } }], applied: true, failing: '/metadata/resourceVersion' },
    { name: 'claimed by another', operations: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }, { op: 'add', path: '/spec/consumerRef', value: { name: 'm2' } }], applied: false, failing: '/metadata/resourceVersion' },
    { name: 'removal done', operations: [{ op: 'remove', path: '/spec/image' }], applied: true },
    { name: 'escaped label present', operations: [{ op: 'replace', path: '/metadata/labels/a~1b', value: 'c' }], applied: true },
    { name: 'append is unknowable', operations: [{ op: 'add', path: '/spec/list/-', value: 1 }], applied: false },
    { name: 'copy is unknowable', operations: [{ op: 'copy', from: '/spec/online', path: '/spec/other' }], applied: false },
    { name: 'only tests', operations: [{ op: 'test', path: '/spec/online', value: true }], applied: false },
    { name: 'null test of a missing path passes', operations: [{ op: 'test', path: '/spec/image', value: null }], applied: false },
    { name: 'value test of a missing path fails', operations: [{ op: 'test', path: '/spec/image', value: {} }], applied: false, failing: '/spec/image' },
  ];

  it.each(ROWS)('$name', (row) => {
    expect(alreadyApplied(host, row.operations)).toBe(row.applied);
    expect(failingTest(host, row.operations)?.path).toBe(row.failing);
  });
});
