// Selector matching in the stand-in: label selectors, annotation selectors, the parent
// selector used to claim children, child label validation, --target-label-selector, and the
// customize rules of reference §5.5.
import { describe, expect, it } from 'vitest';
import { validateChildLabels } from '../support/metacontroller/controllers/composite-sync.js';
import { mergeStringMap } from '../support/metacontroller/controllers/decorator-sync.js';
import type { RelatedRule } from '../support/metacontroller/core/decode.js';
import { ruleSelects, validateRule } from '../support/metacontroller/core/related.js';
import type { RuleContext } from '../support/metacontroller/core/related.js';
import { annotationMatcher, labelMatcher, parentSelector } from '../support/metacontroller/core/selector.js';
import type { LabelSelector } from '../support/metacontroller/core/selector.js';
import { targetMatcher } from '../support/metacontroller/flags.js';
import type { KObject } from '../support/metacontroller/kube/objects.js';

const labels = { app: 'web', tier: 'gold', empty: '' };

describe('labelMatcher', () => {
  it.each<[string, LabelSelector | undefined, boolean]>([
    ['undefined matches everything', undefined, true],
    ['{} matches everything', {}, true],
    ['matchLabels equal', { matchLabels: { app: 'web' } }, true],
    ['matchLabels different', { matchLabels: { app: 'db' } }, false],
    ['matchLabels missing key', { matchLabels: { zone: 'a' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] }, true],
    ['In without the key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] }, false],
    ['NotIn without the key matches', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists with an empty value', { matchExpressions: [{ key: 'empty', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    ['all requirements must hold', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver'] }] }, false],
  ])('%s', (_what, selector, expected) => {
    expect(labelMatcher(selector)(labels)).toBe(expected);
  });

  it.each([
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, /not a valid label selector operator/u],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, /must be non-empty/u],
  ])('refuses %j', (selector, error) => {
    expect(() => labelMatcher(selector)).toThrow(error);
  });
});

describe('annotationMatcher', () => {
  it.each([
    [{ matchAnnotations: { 'svc-per-pod/ports': '80' } }, true],
    [{ matchAnnotations: { 'svc-per-pod/ports': '81' } }, false],
    [{ matchExpressions: [{ key: 'svc-per-pod/ports', operator: 'Exists' }] }, true],
  ])('%j -> %s', (selector, expected) => {
    expect(annotationMatcher(selector)({ 'svc-per-pod/ports': '80' })).toBe(expected);
  });
});

describe('parentSelector', () => {
  const parent = (spec?: unknown) => ({ metadata: { uid: 'u-1' }, spec });

  it.each([
    ['generateSelector ignores spec.selector', parent({ selector: { matchLabels: { a: 'b' } } }), true, { matchLabels: { 'controller-uid': 'u-1' } }],
    ['spec.selector otherwise', parent({ selector: { matchLabels: { a: 'b' } } }), false, { matchLabels: { a: 'b' } }],
  ])('%s', (_what, p, generate, expected) => {
    expect(parentSelector(p, generate)).toEqual(expected);
  });

  it.each([parent(), parent({}), parent({ selector: {} }), parent({ selector: { matchLabels: {} } })])('an empty selector is an error (%j)', (p) => {
    expect(() => parentSelector(p, false)).toThrow('.spec.selector must have either matchLabels, matchExpressions, or both');
  });
});

describe('validateChildLabels', () => {
  const parent: KObject = { apiVersion: 'x/v1', kind: 'P', metadata: { name: 'p', uid: 'u-1' }, spec: { selector: { matchLabels: { app: 'p' } } } };
  const child = (childLabels?: Record<string, string>): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(childLabels === undefined ? {} : { labels: childLabels }) } });

  it('adds controller-uid with generateSelector', () => {
    expect(validateChildLabels([child({ x: 'y' })], parent, true)[0]?.metadata.labels).toEqual({ x: 'y', 'controller-uid': 'u-1' });
  });

  it('refuses a conflicting controller-uid with generateSelector', () => {
    expect(() => validateChildLabels([child({ 'controller-uid': 'other' })], parent, true)).toThrow("labels on desired child ConfigMap c don't match parent selector");
  });

  it('requires labels that match spec.selector without generateSelector', () => {
    expect(validateChildLabels([child({ app: 'p' })], parent, false)).toHaveLength(1);
    expect(() => validateChildLabels([child()], parent, false)).toThrow("don't match parent selector");
  });
});

describe('mergeStringMap (decorator labels/annotations)', () => {
  it.each<[Record<string, string> | undefined, Record<string, string | null>, Record<string, string> | undefined]>([
    [{ a: '1' }, { b: '2' }, { a: '1', b: '2' }],
    [{ a: '1', b: '2' }, { b: null }, { a: '1' }],
    [{ a: '1' }, { a: '1' }, undefined],
    [{ a: '1' }, { gone: null }, undefined],
    [undefined, {}, undefined],
  ])('%j + %j -> %j', (current, changes, expected) => {
    expect(mergeStringMap(current, changes)).toEqual(expected);
  });
});

describe('targetMatcher (--target-label-selector)', () => {
  const obj = (objLabels: Record<string, string>): KObject => ({ apiVersion: 'v1', kind: 'X', metadata: { labels: objLabels } });
  it.each([
    ['', {}, true],
    ['shard=a', { shard: 'a' }, true],
    ['shard==a', { shard: 'b' }, false],
    ['shard!=a', { shard: 'b' }, true],
    ['shard', {}, false],
    ['!shard', {}, true],
    ['shard=a, team', { shard: 'a', team: 'x' }, true],
  ])('%s on %j -> %s', (selector, objLabels, expected) => {
    expect(targetMatcher(selector)(obj(objLabels))).toBe(expected);
  });
});

describe('customize rules', () => {
  const context = (overrides: Partial<RuleContext> = {}): RuleContext => ({
    version: 'v2',
    parentNamespaced: true,
    parentNamespace: 'app',
    relatedNamespaced: true,
    namespaceLabels: (namespace) => (({ shared: { team: 'blue' }, other: {} }) as Record<string, Record<string, string>>)[namespace],
    ...overrides,
  });
  const cm = (namespace: string, name: string, cmLabels: Record<string, string> = {}): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels: cmLabels } });
  const rule = (extra: Partial<RelatedRule>): RelatedRule => ({ apiVersion: 'v1', resource: 'configmaps', ...extra });

  it.each<[string, RelatedRule, KObject, Partial<RuleContext>, boolean]>([
    ['names in one namespace', rule({ namespace: 'shared', names: ['defaults'] }), cm('shared', 'defaults'), {}, true],
    ['names in another namespace', rule({ namespace: 'shared', names: ['defaults'] }), cm('other', 'defaults'), {}, false],
    ['names in any namespace', rule({ names: ['defaults'] }), cm('other', 'defaults'), {}, true],
    ['a name not listed', rule({ names: ['defaults'] }), cm('shared', 'x'), {}, false],
    ['namespace + labelSelector', rule({ namespace: 'shared', labelSelector: { matchLabels: { a: 'b' } } }), cm('shared', 'x', { a: 'b' }), {}, true],
    ['labelSelector cluster-wide', rule({ labelSelector: { matchLabels: { a: 'b' } } }), cm('other', 'x', { a: 'b' }), {}, true],
    ['labelSelector mismatch', rule({ labelSelector: { matchLabels: { a: 'b' } } }), cm('other', 'x', { a: 'c' }), {}, false],
    ['no selector selects all', rule({}), cm('other', 'x'), {}, true],
    ['namespaceSelector', rule({ namespaceSelector: { matchLabels: { team: 'blue' } } }), cm('shared', 'x'), {}, true],
    ['namespaceSelector other namespace', rule({ namespaceSelector: { matchLabels: { team: 'blue' } } }), cm('other', 'x'), {}, false],
    ['namespaceSelector unknown namespace', rule({ namespaceSelector: { matchLabels: { team: 'blue' } } }), cm('nowhere', 'x'), {}, false],
    ['v1 namespaced parent: only its namespace', rule({}), cm('other', 'x'), { version: 'v1' }, false],
    ['v1 namespaced parent: its namespace', rule({}), cm('app', 'x'), { version: 'v1' }, true],
    ['v1 namespaced parent: no cluster-scoped objects', rule({ resource: 'namespaces' }), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }, { version: 'v1', relatedNamespaced: false }, false],
    ['v2: cluster-scoped objects', rule({ resource: 'namespaces' }), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }, { relatedNamespaced: false }, true],
  ])('%s', (...[, r, obj, overrides, expected]) => {
    expect(ruleSelects(r, obj, context(overrides))).toBe(expected);
  });

  it.each<[string, RelatedRule, Partial<RuleContext>, RegExp]>([
    ['names with labelSelector', rule({ names: ['a'], labelSelector: {} }), {}, /names cannot be combined/u],
    ['names with namespaceSelector', rule({ names: ['a'], namespaceSelector: {} }), {}, /names cannot be combined/u],
    ['namespace with namespaceSelector', rule({ namespace: 'a', namespaceSelector: {} }), {}, /namespace cannot be combined/u],
    ['namespaceSelector on a cluster-scoped type', rule({ namespaceSelector: {} }), { relatedNamespaced: false }, /only allowed for namespaced resources/u],
    ['namespaceSelector for a v1 namespaced parent', rule({ namespaceSelector: {} }), { version: 'v1' }, /not allowed for a namespaced parent/u],
    ['another namespace for a v1 namespaced parent', rule({ namespace: 'shared' }), { version: 'v1' }, /differs from the parent's namespace/u],
  ])('refuses %s', (_what, r, overrides, error) => {
    expect(() => {
      validateRule(r, context(overrides));
    }).toThrow(error);
  });

  it('accepts the same rules under v2', () => {
    expect(() => {
      validateRule(rule({ namespace: 'shared', labelSelector: {} }), context());
    }).not.toThrow();
  });
});
