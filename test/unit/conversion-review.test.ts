// The conversion webhook (hooks/conversion/review.ts): the ConversionReview v1 envelope, the
// v1beta1 ↔ v1beta2 field mapping of Metal3DataTemplate, Metal3Data and Metal3DataClaim, and
// round trips in both directions (fast-check) that lose nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversionAnnotation, convertObject } from '../../domain/capi/conversion.js';
import { metal3DataConverters } from '../../domain/metal3data/conversion.js';
import type { KObject } from '../../domain/k8s.js';
import { convertReview } from '../../hooks/conversion/review.js';
import { HookInputError } from '../../hooks/types.js';

const V1 = 'infrastructure.cluster.x-k8s.io/v1beta1';
const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
const meta = (name: string, annotations?: Record<string, string>): KObject['metadata'] => ({
  name,
  namespace: 'metal3',
  uid: `uid-${name}`,
  resourceVersion: '7',
  generation: 2,
  ...(annotations && { annotations }),
});
const to = (obj: KObject, version: string): KObject => convertObject(obj, version, metal3DataConverters);

function review(objects: unknown[], desiredAPIVersion = V2): unknown {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'r-1', desiredAPIVersion, objects } };
}

describe('ConversionReview v1', () => {
  const claimV1: KObject = { apiVersion: V1, kind: 'Metal3DataClaim', metadata: meta('w-abc'), spec: { template: { name: 'workers' } } };

  it('converts every object, echoes the uid and reports Success', () => {
    const answer = convertReview(review([claimV1, { ...claimV1, metadata: meta('w-def') }]));
    expect(answer).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'r-1',
        result: { status: 'Success' },
        convertedObjects: [
          { apiVersion: V2, kind: 'Metal3DataClaim', metadata: meta('w-abc'), spec: { template: { name: 'workers' } } },
          { apiVersion: V2, kind: 'Metal3DataClaim', metadata: meta('w-def'), spec: { template: { name: 'workers' } } },
        ],
      },
    });
  });

  it('returns an object already in the desired version unchanged', () => {
    const v2: KObject = { apiVersion: V2, kind: 'Metal3DataClaim', metadata: meta('x'), spec: { template: { name: 't' } } };
    expect(convertReview(review([v2])).response.convertedObjects).toEqual([v2]);
  });

  it('metadata other than the conversion annotations is untouched (labels, finalizers, owners)', () => {
    const metadata = {
      ...meta('m', { keep: 'me' }),
      labels: { a: 'b' },
      finalizers: ['f'],
      ownerReferences: [{ apiVersion: V1, kind: 'Metal3Machine', name: 'm', uid: 'u' }],
    };
    const [converted] = convertReview(review([{ ...claimV1, metadata }])).response.convertedObjects;
    expect(converted?.metadata).toEqual(metadata);
  });

  it.each<[string, unknown[], string, string]>([
    [
      'an unknown kind',
      [{ apiVersion: V1, kind: 'Metal3Widget', metadata: meta('x') }],
      V2,
      'no conversion for kind Metal3Widget in group infrastructure.cluster.x-k8s.io',
    ],
    [
      'another group',
      [{ apiVersion: 'ipam.metal3.io/v1alpha1', kind: 'IPClaim', metadata: meta('x') }],
      V2,
      'cannot convert ipam.metal3.io/v1alpha1 to infrastructure.cluster.x-k8s.io/v1beta2: different groups',
    ],
    [
      'an unknown version',
      [claimV1],
      'infrastructure.cluster.x-k8s.io/v1alpha5',
      'cannot convert Metal3DataClaim from infrastructure.cluster.x-k8s.io/v1beta1 to infrastructure.cluster.x-k8s.io/v1alpha5',
    ],
    ['something that is not an object', [claimV1, 'nope'], V2, 'objects[1] is not a Kubernetes object'],
  ])('fails the whole review for %s', (_name, objects, desired, message) => {
    expect(convertReview(review(objects, desired)).response).toEqual({ uid: 'r-1', convertedObjects: [], result: { status: 'Failure', message } });
  });

  it.each<[string, unknown]>([
    ['not an object', 'x'],
    ['another kind', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'AdmissionReview', request: {} }],
    ['v1beta1 reviews', { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: V2, objects: [] } }],
    ['no request', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }],
    ['no objects', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: V2 } }],
  ])('rejects %s as malformed (HTTP 400)', (_name, body) => {
    expect(() => convertReview(body)).toThrow(HookInputError);
  });
});

describe('Metal3DataTemplate v1beta1 ↔ v1beta2', () => {
  const v1: KObject = {
    apiVersion: V1,
    kind: 'Metal3DataTemplate',
    metadata: meta('workers-tpl'),
    spec: {
      clusterName: 'test1',
      templateReference: 'old-template',
      metaData: {
        ipAddressesFromIPPool: [{ key: 'ip', name: 'pool1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
        prefixesFromIPPool: [{ key: 'prefix', name: 'pool1' }],
        gatewaysFromIPPool: [{ key: 'gw', name: 'pool1' }],
        dnsServersFromIPPool: [{ key: 'dns', name: 'pool1' }],
        fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }],
        strings: [{ key: 's', value: 'v' }],
      },
      networkData: { links: { bonds: [{ id: 'bond0', bondMode: '802.3ad', bondLinks: ['a', 'b'], parameters: { updelay: 200, miimon: 100 } }] } },
    },
    status: { indexes: { 'w-b': 1, 'w-a': 0 }, lastUpdated: '2026-11-29T10:00:00Z' },
  };
  const v2: KObject = {
    apiVersion: V2,
    kind: 'Metal3DataTemplate',
    metadata: meta('workers-tpl', { [conversionAnnotation('v1beta1')]: '{"templateReference":"old-template"}' }),
    spec: {
      clusterName: 'test1',
      metaData: {
        ipAddressesFromPool: [{ key: 'ip', name: 'pool1', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
        prefixesFromPool: [{ key: 'prefix', name: 'pool1' }],
        gatewaysFromPool: [{ key: 'gw', name: 'pool1' }],
        dnsServersFromPool: [{ key: 'dns', name: 'pool1' }],
        fromHostInterfaces: [{ key: 'mac', interface: 'eth0' }],
        strings: [{ key: 's', value: 'v' }],
      },
      networkData: {
        links: {
          bonds: [
            {
              id: 'bond0',
              bondMode: '802.3ad',
              bondLinks: ['a', 'b'],
              parameters: [
                { name: 'miimon', value: 100 },
                { name: 'updelay', value: 200 },
              ],
            },
          ],
        },
      },
    },
    status: {
      indexes: [
        { index: 0, name: 'w-a' },
        { index: 1, name: 'w-b' },
      ],
      lastUpdated: '2026-11-29T10:00:00Z',
    },
  };

  it('up: *FromIPPool → *FromPool, bond parameters map → list by name, indexes map → list by index, templateReference kept', () => {
    expect(to(v1, V2)).toEqual(v2);
  });

  it('down restores v1beta1 exactly', () => {
    expect(to(v2, V1)).toEqual(v1);
  });

  it('fromBootMAC (v1beta2 only) survives a trip through v1beta1', () => {
    const withBoot: KObject = {
      apiVersion: V2,
      kind: 'Metal3DataTemplate',
      metadata: meta('t'),
      spec: {
        metaData: {
          fromHostInterfaces: [
            { key: 'boot', fromBootMAC: true },
            { key: 'mac', interface: 'eth0' },
          ],
        },
      },
    };
    const down = to(withBoot, V1);
    expect(down.spec).toEqual({ metaData: { fromHostInterfaces: [{ key: 'boot' }, { key: 'mac', interface: 'eth0' }] } });
    expect(down.metadata.annotations).toEqual({ [conversionAnnotation('v1beta2')]: '{"fromHostInterfaces":[{"fromBootMAC":true,"key":"boot"}]}' });
    expect(to(down, V2)).toEqual(withBoot);
  });

  it('kept data is dropped when the entry it belonged to changed', () => {
    const down = to(
      { apiVersion: V2, kind: 'Metal3DataTemplate', metadata: meta('t'), spec: { metaData: { fromHostInterfaces: [{ key: 'boot', fromBootMAC: true }] } } },
      V1,
    );
    const edited = { ...down, spec: { metaData: { fromHostInterfaces: [{ key: 'renamed' }] } } };
    expect(to(edited, V2)).toEqual({
      apiVersion: V2,
      kind: 'Metal3DataTemplate',
      metadata: meta('t'),
      spec: { metaData: { fromHostInterfaces: [{ key: 'renamed' }] } },
    });
  });

  it('an unreadable conversion annotation is ignored', () => {
    const broken: KObject = { ...v2, metadata: meta('workers-tpl', { [conversionAnnotation('v1beta1')]: '{not json' }) };
    const spec = Object.fromEntries(Object.entries(v1.spec as Record<string, unknown>).filter(([key]) => key !== 'templateReference'));
    expect(to(broken, V1)).toEqual({ ...v1, spec });
  });
});

describe('Metal3Data and Metal3DataClaim v1beta1 ↔ v1beta2', () => {
  const dataV1: KObject = {
    apiVersion: V1,
    kind: 'Metal3Data',
    metadata: meta('workers-tpl-0'),
    spec: {
      index: 0,
      templateReference: 'old',
      template: { name: 'workers-tpl', namespace: 'metal3', kind: 'Metal3DataTemplate', apiVersion: V1 },
      claim: { name: 'w-abc', namespace: 'metal3', uid: 'claim-uid' },
      metaData: { name: 'w-abc-metadata', namespace: 'metal3' },
      networkData: { name: 'w-abc-networkdata', namespace: 'metal3' },
    },
    status: { ready: true },
  };

  it('Metal3Data up: references narrowed to name/namespace, the rest kept; down restores them', () => {
    const up = to(dataV1, V2);
    expect(up.spec).toEqual({
      index: 0,
      template: { name: 'workers-tpl', namespace: 'metal3' },
      claim: { name: 'w-abc', namespace: 'metal3' },
      metaData: { name: 'w-abc-metadata', namespace: 'metal3' },
      networkData: { name: 'w-abc-networkdata', namespace: 'metal3' },
    });
    expect(JSON.parse(up.metadata.annotations?.[conversionAnnotation('v1beta1')] ?? '')).toEqual({
      'spec.claim': { extras: { uid: 'claim-uid' }, name: 'w-abc', namespace: 'metal3' },
      'spec.template': { extras: { apiVersion: V1, kind: 'Metal3DataTemplate' }, name: 'workers-tpl', namespace: 'metal3' },
      templateReference: 'old',
    });
    expect(to(up, V1)).toEqual(dataV1);
  });

  it('kept reference extras are not put back on a reference that now names something else', () => {
    const up = to(dataV1, V2);
    const moved = { ...up, spec: { ...(up.spec as object), claim: { name: 'other', namespace: 'metal3' } } };
    expect((to(moved, V1).spec as { claim: unknown }).claim).toEqual({ name: 'other', namespace: 'metal3' });
  });

  it('Metal3DataClaim: spec.template and status.renderedData', () => {
    const claimV1: KObject = {
      apiVersion: V1,
      kind: 'Metal3DataClaim',
      metadata: meta('w-abc'),
      spec: { template: { name: 'workers-tpl', kind: 'Metal3DataTemplate' } },
      status: { renderedData: { name: 'workers-tpl-0', namespace: 'metal3', uid: 'd-uid' }, errorMessage: 'x' },
    };
    const up = to(claimV1, V2);
    expect(up.spec).toEqual({ template: { name: 'workers-tpl' } });
    expect(up.status).toEqual({ renderedData: { name: 'workers-tpl-0', namespace: 'metal3' }, errorMessage: 'x' });
    expect(to(up, V1)).toEqual(claimV1);
  });
});

// --- Round trips (fast-check) --------------------------------------------------------------

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/u);
const uniqueBy = <T>(arb: fc.Arbitrary<T>, key: (t: T) => string, max = 4): fc.Arbitrary<T[]> => fc.uniqueArray(arb, { selector: key, maxLength: max });
const fromPool = fc.record(
  { key: word, name: word, apiGroup: fc.constantFrom('ipam.metal3.io', ''), kind: fc.constantFrom('IPPool', '') },
  { requiredKeys: ['key', 'name'] },
);
const json = fc.oneof(fc.integer(), word, fc.boolean(), fc.array(word, { maxLength: 2 }));

function specCommon(poolNames: [string, string, string, string]): fc.Arbitrary<Record<string, unknown>> {
  const [ip, prefix, gw, dns] = poolNames;
  return fc.record(
    {
      [ip]: fc.array(fromPool, { maxLength: 3 }),
      [prefix]: fc.array(fromPool, { maxLength: 2 }),
      [gw]: fc.array(fromPool, { maxLength: 2 }),
      [dns]: fc.array(fromPool, { maxLength: 2 }),
      strings: fc.array(fc.record({ key: word, value: word }), { maxLength: 3 }),
      indexes: fc.array(fc.record({ key: word, offset: fc.nat(100), step: fc.nat(4), prefix: word }, { requiredKeys: ['key'] }), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  );
}

const bondV1 = fc.record(
  { id: word, bondMode: fc.constant('802.3ad'), parameters: fc.dictionary(word, json, { maxKeys: 3 }) },
  { requiredKeys: ['id', 'bondMode'] },
);
const bondV2 = fc.record(
  {
    id: word,
    bondMode: fc.constant('802.3ad'),
    parameters: uniqueBy(fc.record({ name: word, value: json }), (p) => p.name).map((l) => [...l].sort((a, b) => (a.name < b.name ? -1 : 1))),
  },
  { requiredKeys: ['id', 'bondMode'] },
);
const hostInterfacesV2 = uniqueBy(fc.record({ key: word, interface: word, fromBootMAC: fc.boolean() }, { requiredKeys: ['key'] }), (h) => h.key);

const templateV1 = fc
  .record(
    {
      spec: fc.record(
        {
          clusterName: word,
          templateReference: word,
          metaData: fc
            .tuple(
              specCommon(['ipAddressesFromIPPool', 'prefixesFromIPPool', 'gatewaysFromIPPool', 'dnsServersFromIPPool']),
              fc.array(fc.record({ key: word, interface: word }), { maxLength: 2 }),
            )
            .map(([m, h]) => ({ ...m, fromHostInterfaces: h })),
          networkData: fc.record({ links: fc.record({ bonds: fc.array(bondV1, { maxLength: 2 }) }) }),
        },
        { requiredKeys: ['clusterName'] },
      ),
      status: fc.record({ indexes: fc.dictionary(word, fc.nat(50), { maxKeys: 4 }), lastUpdated: fc.constant('2026-11-29T10:00:00Z') }, { requiredKeys: [] }),
    },
    { requiredKeys: ['spec'] },
  )
  .map((body): KObject => ({ apiVersion: V1, kind: 'Metal3DataTemplate', metadata: meta('t'), ...body }));

const indexList = uniqueBy(fc.record({ index: fc.nat(50), name: word }), (e) => e.name, 5)
  .filter((l) => new Set(l.map((e) => e.index)).size === l.length)
  .map((l) => [...l].sort((a, b) => a.index - b.index));

const templateV2 = fc
  .record(
    {
      spec: fc.record(
        {
          clusterName: word,
          metaData: fc
            .tuple(specCommon(['ipAddressesFromPool', 'prefixesFromPool', 'gatewaysFromPool', 'dnsServersFromPool']), hostInterfacesV2)
            .map(([m, h]) => ({ ...m, fromHostInterfaces: h })),
          networkData: fc.record({ links: fc.record({ bonds: fc.array(bondV2, { maxLength: 2 }) }) }),
        },
        { requiredKeys: [] },
      ),
      status: fc.record({ indexes: indexList, lastUpdated: fc.constant('2026-11-29T10:00:00Z') }, { requiredKeys: [] }),
    },
    { requiredKeys: ['spec'] },
  )
  .map((body): KObject => ({ apiVersion: V2, kind: 'Metal3DataTemplate', metadata: meta('t'), ...body }));

const refV1 = fc.record(
  { name: word, namespace: word, kind: word, apiVersion: word, uid: word, resourceVersion: word, fieldPath: word },
  { requiredKeys: ['name'] },
);
const refV2 = fc.record({ name: word, namespace: word }, { requiredKeys: ['name'] });

const dataV1 = fc
  .record({ index: fc.nat(99), template: refV1, claim: refV1, templateReference: word, metaData: refV2 }, { requiredKeys: ['template', 'claim'] })
  .map((spec): KObject => ({ apiVersion: V1, kind: 'Metal3Data', metadata: meta('d'), spec, status: { ready: false } }));
const dataV2 = fc
  .record({ index: fc.nat(99), template: refV2, claim: refV2 }, { requiredKeys: ['template', 'claim'] })
  .map((spec): KObject => ({ apiVersion: V2, kind: 'Metal3Data', metadata: meta('d'), spec }));
const claimV1 = fc.record({ template: refV1, renderedData: refV1 }, { requiredKeys: ['template'] }).map(({ template, renderedData }): KObject => ({
  apiVersion: V1,
  kind: 'Metal3DataClaim',
  metadata: meta('c'),
  spec: { template },
  ...(renderedData && { status: { renderedData } }),
}));
const claimV2 = fc.record({ template: refV2 }).map((spec): KObject => ({ apiVersion: V2, kind: 'Metal3DataClaim', metadata: meta('c'), spec }));

describe('round trips lose nothing (fast-check)', () => {
  it.each<[string, fc.Arbitrary<KObject>, string, string]>([
    ['Metal3DataTemplate v1beta1 → v1beta2 → v1beta1', templateV1, V2, V1],
    ['Metal3DataTemplate v1beta2 → v1beta1 → v1beta2', templateV2, V1, V2],
    ['Metal3Data v1beta1 → v1beta2 → v1beta1', dataV1, V2, V1],
    ['Metal3Data v1beta2 → v1beta1 → v1beta2', dataV2, V1, V2],
    ['Metal3DataClaim v1beta1 → v1beta2 → v1beta1', claimV1, V2, V1],
    ['Metal3DataClaim v1beta2 → v1beta1 → v1beta2', claimV2, V1, V2],
  ])('%s', (_name, arb, via, back) => {
    fc.assert(
      fc.property(arb, (original) => {
        const there = to(original, via);
        expect(there.apiVersion).toBe(via);
        expect(to(there, back)).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it('converting is deterministic and does not modify its input', () => {
    fc.assert(
      fc.property(templateV1, (original) => {
        const copy = structuredClone(original);
        expect(to(original, V2)).toEqual(to(original, V2));
        expect(original).toEqual(copy);
      }),
      { numRuns: 100 },
    );
  });
});
