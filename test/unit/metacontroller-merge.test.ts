// The stand-in's client-side apply (reference §6.4): 3-way merge of observed, last-applied and
// desired; list merging by conventional keys; status and read-only metadata reverted; the
// last-applied annotation; "no change" detection.
import { describe, expect, it } from 'vitest';
import { detectListMapKey, revertReadOnly, threeWayMerge } from '../support/metacontroller/core/merge.js';
import { mergedUpdate } from '../support/metacontroller/controllers/apply.js';
import { LAST_APPLIED_ANNOTATION } from '../support/metacontroller/core/types.js';
import type { JsonObject, KObject } from '../support/metacontroller/kube/objects.js';
import { stableStringify } from '../support/metacontroller/kube/objects.js';

describe('threeWayMerge', () => {
  interface Row {
    what: string;
    observed: JsonObject;
    lastApplied: JsonObject | undefined;
    desired: JsonObject;
    expected: JsonObject;
  }

  const row = (...[what, observed, lastApplied, desired, expected]: [string, JsonObject, JsonObject | undefined, JsonObject, JsonObject]): Row => ({ what, observed, lastApplied, desired, expected });

  it.each<Row>([
    row('sets desired scalars', { a: 1, b: 2 }, { a: 1 }, { a: 3 }, { a: 3, b: 2 }),
    row('keeps keys others added', { a: 1, other: 'x' }, { a: 1 }, { a: 1 }, { a: 1, other: 'x' }),
    row('removes keys dropped from desired', { a: 1, b: 2 }, { a: 1, b: 2 }, { a: 1 }, { a: 1 }),
    row('keeps dropped keys that were never applied', { a: 1, b: 2 }, { a: 1 }, {}, { b: 2 }),
    row('without last-applied removes nothing', { a: 1, b: 2 }, undefined, { c: 3 }, { a: 1, b: 2, c: 3 }),
    row('merges maps recursively', { m: { x: 1, y: 2 } }, { m: { x: 1 } }, { m: { x: 5, z: 6 } }, { m: { x: 5, y: 2, z: 6 } }),
    row('removes nested keys', { m: { x: 1, y: 2 } }, { m: { x: 1, y: 2 } }, { m: { x: 1 } }, { m: { x: 1 } }),
    row('replaces a map with a scalar', { m: { x: 1 } }, {}, { m: 'flat' }, { m: 'flat' }),
    row('sets null when desired says null', { a: 1 }, {}, { a: null }, { a: null }),
    row('replaces lists of scalars', { l: [1, 2, 3] }, { l: [1, 2] }, { l: [4] }, { l: [4] }),
    row('replaces lists of objects without a common key', { l: [{ v: 1 }] }, { l: [{ v: 1 }] }, { l: [{ v: 2 }] }, { l: [{ v: 2 }] }),
  ])('$what', ({ observed, lastApplied, desired, expected }) => {
    expect(threeWayMerge(observed, lastApplied, desired)).toEqual(expected);
  });

  it('merges containers by name: keeps fields the API server defaulted, drops removed items, appends new ones', () => {
    const observed = {
      containers: [
        { name: 'web', image: 'nginx:1', imagePullPolicy: 'IfNotPresent' },
        { name: 'old', image: 'busybox' },
        { name: 'injected', image: 'sidecar' },
      ],
    };
    const lastApplied = { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'old', image: 'busybox' }] };
    const desired = { containers: [{ name: 'web', image: 'nginx:2' }, { name: 'new', image: 'redis' }] };
    expect(threeWayMerge(observed, lastApplied, desired)).toEqual({
      containers: [
        { name: 'web', image: 'nginx:2', imagePullPolicy: 'IfNotPresent' },
        { name: 'new', image: 'redis' },
        { name: 'injected', image: 'sidecar' },
      ],
    });
  });

  it('merges ports by containerPort before name', () => {
    const observed = { ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }] };
    const desired = { ports: [{ containerPort: 80, name: 'web' }] };
    expect(threeWayMerge(observed, desired, desired)).toEqual({ ports: [{ containerPort: 80, name: 'web', protocol: 'TCP' }] });
  });

  it('does not modify its inputs', () => {
    const observed = { a: { b: 1 } };
    const desired = { a: { c: 2 } };
    threeWayMerge(observed, undefined, desired);
    expect(observed).toEqual({ a: { b: 1 } });
    expect(desired).toEqual({ a: { c: 2 } });
  });
});

describe('detectListMapKey', () => {
  it.each<[string, unknown[][], string | undefined]>([
    ['containerPort first', [[{ containerPort: 1, name: 'a', port: 2 }]], 'containerPort'],
    ['port before name', [[{ port: 1, name: 'a' }]], 'port'],
    ['mountPath', [[{ mountPath: '/x', name: 'v' }]], 'mountPath'],
    ['name when common to all lists', [[{ name: 'a', ip: '1' }], [{ name: 'b' }]], 'name'],
    ['ip, then path', [[{ ip: '1', path: '/' }]], 'ip'],
    ['none when one item lacks every key', [[{ name: 'a' }, { other: 1 }]], undefined],
    ['none for scalars', [['a', 'b']], undefined],
    ['none for empty lists', [[], []], undefined],
  ])('%s', (_what, lists, key) => {
    expect(detectListMapKey(...lists)).toBe(key);
  });
});

const observedChild = (): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cm',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '10',
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'metacontroller' }],
    labels: { 'controller-uid': 'p' },
    annotations: { [LAST_APPLIED_ANNOTATION]: stableStringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { 'controller-uid': 'p' } }, data: { a: '1' } }) },
    ownerReferences: [{ apiVersion: 'x/v1', kind: 'P', name: 'p', uid: 'p', controller: true }],
  },
  data: { a: '1' },
});

describe('revertReadOnly and mergedUpdate', () => {
  it('puts back status and read-only metadata, drops ones observed does not have', () => {
    const observed = { ...observedChild(), status: { phase: 'Ready' } };
    const merged: KObject = { ...observed, metadata: { ...observed.metadata, uid: 'changed', generation: 9, resourceVersion: '1' }, status: { phase: 'Hacked' } };
    const reverted = revertReadOnly(merged, observed);
    expect(reverted.metadata).toEqual(observed.metadata);
    expect(reverted.status).toEqual({ phase: 'Ready' });
  });

  it('is undefined when the desired object is what was applied last', () => {
    const desired: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { 'controller-uid': 'p' } }, data: { a: '1' } };
    expect(mergedUpdate(observedChild(), desired)).toBeUndefined();
  });

  it('writes the change, the new last-applied annotation, and keeps what others own', () => {
    const observed = observedChild();
    observed.metadata.annotations = { ...observed.metadata.annotations, 'other/keep': 'yes' };
    const desired: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { 'controller-uid': 'p' } }, data: { b: '2' } };
    const merged = mergedUpdate(observed, desired);
    expect(merged?.data).toEqual({ b: '2' });
    expect(merged?.metadata.annotations?.['other/keep']).toBe('yes');
    expect(merged?.metadata.ownerReferences).toEqual(observed.metadata.ownerReferences);
    expect(merged?.metadata.resourceVersion).toBe('10');
    expect(JSON.parse(merged?.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '')).toEqual(desired);
  });

  it('never sets a child status (footgun F11)', () => {
    const desired: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { 'controller-uid': 'p' } }, data: { a: '1' }, status: { x: 1 } };
    const merged = mergedUpdate(observedChild(), desired);
    expect(merged?.status).toBeUndefined();
  });
});
