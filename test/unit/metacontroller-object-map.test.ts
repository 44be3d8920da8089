// The Metacontroller stand-in's object maps (reference §5.1): outer keys `Kind.apiVersion`,
// inner keys by hook version and scope, every declared type present.
import { describe, expect, it } from 'vitest';
import { buildObjectMap, innerKey, mapObjects, splitTypeKey, typeKey } from '../support/metacontroller/core/object-map.js';
import type { HookVersion } from '../support/metacontroller/core/object-map.js';
import type { KObject } from '../support/metacontroller/kube/objects.js';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): KObject => ({ apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }), uid: `${kind}-${name}` } });

describe('type keys', () => {
  it.each([
    [{ apiVersion: 'v1', kind: 'ConfigMap' }, 'ConfigMap.v1'],
    [{ apiVersion: 'apps/v1', kind: 'Deployment' }, 'Deployment.apps/v1'],
    [{ apiVersion: 'platform.acme/v1alpha1', kind: 'Widget' }, 'Widget.platform.acme/v1alpha1'],
  ])('%j -> %s and back', (type, key) => {
    expect(typeKey(type)).toBe(key);
    expect(splitTypeKey(key)).toEqual(type);
  });
});

describe('inner keys', () => {
  it.each<[HookVersion, boolean, string | undefined, string]>([
    ['v2', true, 'team-a', 'team-a/blue'],
    ['v2', false, 'team-a', 'team-a/blue'],
    ['v2', true, undefined, 'blue'],
    ['v2', false, undefined, 'blue'],
    ['v1', true, 'team-a', 'blue'],
    ['v1', false, 'team-a', 'team-a/blue'],
    ['v1', true, undefined, 'blue'],
    ['v1', false, undefined, 'blue'],
  ])('%s hook, parent namespaced=%s, object namespace %s -> %s', (version, parentNamespaced, namespace, key) => {
    expect(innerKey(obj('v1', 'ConfigMap', 'blue', namespace), version, parentNamespaced)).toBe(key);
  });
});

describe('buildObjectMap', () => {
  const types = [
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { apiVersion: 'v1', kind: 'Namespace' },
  ];

  it('lists every declared type, even without objects', () => {
    expect(buildObjectMap(types, [], { version: 'v2', parentNamespaced: true })).toEqual({ 'ConfigMap.v1': {}, 'Deployment.apps/v1': {}, 'Namespace.v1': {} });
  });

  it('puts each object, unchanged, under its type with v2 keys', () => {
    const cm = { ...obj('v1', 'ConfigMap', 'cfg', 'ns'), data: { a: 'b' }, status: { x: 1 } };
    const ns = obj('v1', 'Namespace', 'shared');
    const map = buildObjectMap(types, [cm, ns], { version: 'v2', parentNamespaced: true });
    expect(map).toEqual({ 'ConfigMap.v1': { 'ns/cfg': cm }, 'Deployment.apps/v1': {}, 'Namespace.v1': { shared: ns } });
    expect(map['ConfigMap.v1']?.['ns/cfg']).toBe(cm);
  });

  it('uses v1 keys relative to a cluster-scoped parent', () => {
    const map = buildObjectMap(types, [obj('v1', 'ConfigMap', 'cfg', 'ns')], { version: 'v1', parentNamespaced: false });
    expect(Object.keys(map['ConfigMap.v1'] ?? {})).toEqual(['ns/cfg']);
  });

  it('leaves out objects of undeclared types or another version (footgun F4)', () => {
    const map = buildObjectMap(types, [obj('apps/v1beta1', 'Deployment', 'd', 'ns'), obj('v1', 'Secret', 's', 'ns')], { version: 'v2', parentNamespaced: true });
    expect(map).toEqual({ 'ConfigMap.v1': {}, 'Deployment.apps/v1': {}, 'Namespace.v1': {} });
  });

  it('flattens back in key order', () => {
    const a = obj('v1', 'ConfigMap', 'a', 'ns');
    const b = obj('v1', 'ConfigMap', 'b', 'ns');
    const d = obj('apps/v1', 'Deployment', 'd', 'ns');
    expect(mapObjects(buildObjectMap(types, [d, b, a], { version: 'v2', parentNamespaced: true }))).toEqual([a, b, d]);
  });
});
