// The Metal3DataClaim hook and the Metal3Data hook's decisions that the golden fixtures do not
// show: what a claim reports and waits for, when its finalizer goes, and the data hook's waits,
// user-provided Secrets and pause (Cluster API pools: metal3data-capi-claims.test.ts).
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { metal3dataclaimCustomize, metal3dataclaimFinalize, metal3dataclaimSync } from '../../hooks/metal3data/claim.js';
import { metal3dataCustomize, metal3dataSync } from '../../hooks/metal3data/data.js';
import { metal3datatemplateCustomize } from '../../hooks/metal3data/template.js';
import { HookInputError } from '../../hooks/types.js';
import { objectMap } from '../support/object-map.js';

const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
const NS = 'metal3';

function obj([apiVersion, kind]: [string, string], name: string, fields: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return { apiVersion, kind, metadata: { name, namespace: NS, uid: `uid-${kind}-${name}`, creationTimestamp: '2026-11-29T10:00:00Z', ...meta }, ...fields };
}

const map = objectMap;

const request = (parent: KObject, related: KObject[] = [], children: KObject[] = [], finalizing = false): unknown => ({
  controller: {},
  parent,
  children: map(...children),
  related: map(...related),
  finalizing,
});

// --- the claim ---------------------------------------------------------------------------

const machine = obj(['cluster.x-k8s.io/v1beta2', 'Machine'], 'w-abc-m');
const owner = (o: KObject, controller = true): NonNullable<KObject['metadata']['ownerReferences']>[number] => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name ?? '',
  uid: o.metadata.uid ?? '',
  ...(controller && { controller: true }),
});
const m3m = obj([V2, 'Metal3Machine'], 'w-abc', {}, { annotations: { 'metal3.io/BareMetalHost': 'metal3/node-3' }, ownerReferences: [owner(machine)] });
const claim = obj([V2, 'Metal3DataClaim'], 'w-abc', { spec: { template: { name: 'workers' } } }, { ownerReferences: [owner(m3m)] });
const template = obj([V2, 'Metal3DataTemplate'], 'workers', { spec: { clusterName: 'c1' } });
const data = obj(
  [V2, 'Metal3Data'],
  'workers-4',
  { spec: { index: 4, claim: { name: 'w-abc', namespace: NS }, template: { name: 'workers', namespace: NS } } },
  { ownerReferences: [owner(claim, false)] },
);
const SOURCES = { bareMetalHost: 'node-3', machine: 'w-abc-m', metal3Machine: 'w-abc' };

describe('Metal3DataClaim hook', () => {
  it('customize: its Metal3Data by label, its template and its Metal3Machine by name', () => {
    expect(metal3dataclaimCustomize({ controller: {}, parent: claim })).toEqual({
      relatedResources: [
        { apiVersion: V2, labelSelector: { matchLabels: { 'ironhook.dev/metal3dataclaim': 'w-abc' } }, namespace: NS, resource: 'metal3datas' },
        { apiVersion: V2, names: ['workers'], namespace: NS, resource: 'metal3datatemplates' },
        { apiVersion: V2, names: ['w-abc'], namespace: NS, resource: 'metal3machines' },
      ],
    });
  });

  it('customize: no Metal3Machine rule for a claim nobody owns', () => {
    const orphan = { ...claim, metadata: { ...claim.metadata, ownerReferences: [] } };
    expect(metal3dataclaimCustomize({ controller: {}, parent: orphan }).relatedResources.map((r) => r.resource)).toEqual([
      'metal3datas',
      'metal3datatemplates',
    ]);
  });

  it('sync: renderedData points at its Metal3Data; the sources are reported', () => {
    expect(metal3dataclaimSync(request(claim, [template, m3m, data])).status).toEqual({
      renderedData: { name: 'workers-4', namespace: NS },
      ironhook: SOURCES,
    });
  });

  it.each<[string, KObject, KObject[], Record<string, unknown>]>([
    [
      'no Metal3Machine owner',
      { ...claim, metadata: { ...claim.metadata, ownerReferences: [] } },
      [template],
      { waitingFor: 'a Metal3Machine owner reference on the claim' },
    ],
    ['the Metal3Machine is not there yet', claim, [template], { metal3Machine: 'w-abc', waitingFor: 'Metal3Machine w-abc' }],
    [
      'the Metal3Machine has no host yet',
      claim,
      [template, { ...m3m, metadata: { ...m3m.metadata, annotations: {} } }],
      { machine: 'w-abc-m', metal3Machine: 'w-abc', waitingFor: 'Metal3Machine w-abc to be associated with a BareMetalHost' },
    ],
    [
      'the Metal3Machine has no Machine owner yet',
      claim,
      [template, { ...m3m, metadata: { ...m3m.metadata, ownerReferences: [] } }],
      { bareMetalHost: 'node-3', metal3Machine: 'w-abc', waitingFor: 'Metal3Machine w-abc to be owned by a Machine' },
    ],
    ['the template is missing', claim, [m3m], { ...SOURCES, waitingFor: 'Metal3DataTemplate workers' }],
  ])('sync waits: %s', (_name, parent, related, ironhook) => {
    expect(metal3dataclaimSync(request(parent, related)).status).toEqual({ ironhook });
  });

  it('a cross-namespace template is an error', () => {
    const elsewhere = { ...claim, spec: { template: { name: 'workers', namespace: 'other' } } };
    expect(metal3dataclaimSync(request(elsewhere, [template, m3m])).status).toEqual({
      errorMessage: "spec.template.namespace other differs from the claim's namespace; cross-namespace templates are not allowed",
    });
  });

  it('a Metal3Data of an earlier claim with the same name is not its data', () => {
    const stale = { ...data, metadata: { ...data.metadata, ownerReferences: [{ ...owner(claim, false), uid: 'old-uid' }] } };
    expect(metal3dataclaimSync(request(claim, [template, m3m, stale])).status).toEqual({ ironhook: SOURCES });
  });

  it('a Metal3Data being deleted is no longer rendered data', () => {
    const deleting = { ...data, metadata: { ...data.metadata, deletionTimestamp: '2026-11-29T11:00:00Z' } };
    expect(metal3dataclaimSync(request(claim, [template, m3m, deleting])).status).toEqual({ ironhook: SOURCES });
  });

  it.each<[string, KObject[], boolean]>([
    ['its data still lives: the claim waits', [template, m3m, data], false],
    ['its data is being deleted: done', [template, m3m, { ...data, metadata: { ...data.metadata, deletionTimestamp: '2026-11-29T11:00:00Z' } }], true],
    ['it never had data: done', [template, m3m], true],
  ])('finalize: %s', (_name, related, finalized) => {
    const response = metal3dataclaimFinalize(request(claim, related, [], true));
    expect(response.finalized).toBe(finalized);
    expect(response.children).toEqual([]);
    if (!finalized) expect(response.status).toMatchObject({ ironhook: { waitingFor: 'the template to release Metal3Data workers-4' } });
  });

  it('rejects a request whose parent is not a Metal3DataClaim', () => {
    expect(() => metal3dataclaimSync(request(template))).toThrow(HookInputError);
    expect(() => metal3dataclaimSync('nope')).toThrow(HookInputError);
  });
});

// --- the data ----------------------------------------------------------------------------

const host = obj(['metal3.io/v1alpha1', 'BareMetalHost'], 'node-3', {
  spec: { bootMACAddress: '52:54:00:aa:bb:cc' },
  status: { hardware: { nics: [{ name: 'eth0', mac: '52:54:00:aa:bb:cc' }] } },
});
const annotated = (d: KObject): KObject => ({
  ...d,
  metadata: {
    ...d.metadata,
    annotations: { 'ironhook.dev/baremetalhost': 'node-3', 'ironhook.dev/machine': 'w-abc-m', 'ironhook.dev/metal3machine': 'w-abc' },
  },
});
const theData = annotated({ ...data, spec: { ...(data.spec as object), metaData: { name: 'w-abc-metadata', namespace: NS } } });
const metaOnly = (metaData: object): KObject => ({ ...template, spec: { clusterName: 'c1', metaData } });

describe('Metal3Data hook', () => {
  it('customize without the render annotations asks only for what it can name', () => {
    expect(metal3dataCustomize({ controller: {}, parent: data }).relatedResources.map((r) => r.resource)).toEqual([
      'metal3datatemplates',
      'metal3dataclaims',
      'ipaddresses',
    ]);
  });

  it('the template customize asks for the namespace’s claims', () => {
    expect(metal3datatemplateCustomize({ controller: {}, parent: template })).toEqual({
      relatedResources: [{ apiVersion: V2, namespace: NS, resource: 'metal3dataclaims' }],
    });
  });

  it('waits for its template, keeping every child', () => {
    const ipClaim = obj(['ipam.metal3.io/v1alpha1', 'IPClaim'], 'workers-4-pool', { spec: { pool: { name: 'pool', namespace: NS } } });
    const response = metal3dataSync(request(theData, [claim], [ipClaim]));
    expect(response.status).toEqual({ ready: false, ironhook: { waitingFor: 'Metal3DataTemplate workers' } });
    expect(response.children.map((c) => c.metadata.name)).toEqual(['workers-4-pool']);
  });

  it.each([
    ['template', { template: { name: 'workers', namespace: 'kube-system' } }],
    ['claim', { claim: { name: 'w-abc', namespace: 'kube-system' } }],
    ['metaData', { metaData: { name: 'stolen', namespace: 'kube-system' } }],
    ['networkData', { networkData: { name: 'stolen', namespace: 'kube-system' } }],
  ])('spec.%s in another namespace: an error, nothing rendered, every child kept', (field, spec) => {
    const ipClaim = obj(['ipam.metal3.io/v1alpha1', 'IPClaim'], 'workers-4-pool', { spec: { pool: { name: 'pool', namespace: NS } } });
    const foreign = { ...theData, spec: { ...(theData.spec as Record<string, unknown>), ...spec } };
    const related = [metaOnly({ strings: [{ key: 'a', value: 'b' }] }), claim, m3m, machine, host];
    const response = metal3dataSync(request(foreign, related, [ipClaim]));
    expect(response.status).toMatchObject({
      ready: false,
      errorMessage: `spec.${field}.namespace kube-system differs from the Metal3Data's namespace ${NS}: cross-namespace references are not allowed`,
    });
    expect(response.children.map((c) => c.metadata.name)).toEqual(['workers-4-pool']);
  });

  it('a template with neither metaData nor networkData needs no Secret: ready at once', () => {
    expect(metal3dataSync(request(theData, [template, claim]))).toEqual({ children: [], status: { ready: true } });
  });

  it('renders once the objects are there, with no pool at all', () => {
    const response = metal3dataSync(request(theData, [metaOnly({ strings: [{ key: 'a', value: 'b' }] }), claim, m3m, machine, host]));
    expect(response.children).toHaveLength(1);
    const secret = response.children[0] as KObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data.metaData ?? '', 'base64').toString()).toBe('a: b\nproviderid: metal3/node-3/w-abc\n');
  });

  it.each<[string, KObject[], string]>([
    ['the Metal3Machine', [claim, machine, host], 'Metal3Machine w-abc'],
    ['the BareMetalHost', [claim, m3m, machine], 'the BareMetalHost (annotation ironhook.dev/baremetalhost)'],
    ['the Machine', [claim, m3m, host], 'the Machine (annotation ironhook.dev/machine)'],
  ])('waits for %s before rendering', (_name, related, waitingFor) => {
    const response = metal3dataSync(request(theData, [metaOnly({ strings: [{ key: 'a', value: 'b' }] }), ...related]));
    expect(response).toEqual({ children: [], status: { ready: false, ironhook: { waitingFor } } });
  });

  it('a pool named by an annotation of an object it cannot see yet: waits', () => {
    const tpl = {
      ...template,
      spec: { networkData: { networks: { ipv4: [{ id: 'n', link: 'l', fromPoolAnnotation: { object: 'baremetalhost', annotation: 'pool' } }] } } },
    };
    const withNetwork = annotated({ ...data, spec: { ...(data.spec as object), networkData: { name: 'w-abc-networkdata', namespace: NS } } });
    expect(metal3dataSync(request(withNetwork, [tpl, claim, m3m, machine])).status).toEqual({
      ready: false,
      ironhook: { waitingFor: 'the baremetalhost whose annotation pool names the pool' },
    });
  });

  it("a pool's allocation error outranks a pool that has not answered yet (as upstream)", () => {
    const tpl = metaOnly({
      ipAddressesFromPool: [
        { key: 'a', name: 'a-pending' },
        { key: 'b', name: 'b-exhausted' },
      ],
    });
    const ipClaim = (pool: string, status: object): KObject =>
      obj(['ipam.metal3.io/v1alpha1', 'IPClaim'], `workers-4-${pool}`, { spec: { pool: { name: pool, namespace: NS } }, status });
    const children = [ipClaim('a-pending', {}), ipClaim('b-exhausted', { errorMessage: 'Exhausted IP Pools' })];
    expect(metal3dataSync(request(theData, [tpl, claim, m3m, machine, host], children)).status).toEqual({
      errorMessage: 'IP Allocation for b-exhausted failed : Exhausted IP Pools',
      ready: false,
    });
  });

  it('a Secret someone else created with that name is used as it is (upstream: existing Secrets are never rendered)', () => {
    const userSecret = obj(['v1', 'Secret'], 'w-abc-metadata', { data: { metaData: 'eA==' } });
    expect(metal3dataSync(request(theData, [metaOnly({ strings: [{ key: 'a', value: 'b' }] }), claim, userSecret]))).toEqual({
      children: [],
      status: { ready: true },
    });
  });

  it('a same-named Secret that is being deleted is waited for', () => {
    const going = obj(['v1', 'Secret'], 'w-abc-metadata', {}, { deletionTimestamp: '2026-11-29T11:00:00Z' });
    expect(metal3dataSync(request(theData, [metaOnly({ strings: [] }), claim, going])).status).toEqual({
      ready: false,
      ironhook: { waitingFor: 'Secret w-abc-metadata to finish deleting' },
    });
  });

  it('paused: children and status stay as they are', () => {
    const paused = {
      ...theData,
      metadata: { ...theData.metadata, annotations: { ...theData.metadata.annotations, 'cluster.x-k8s.io/paused': '' } },
      status: { ready: true, observedGeneration: 3 },
    };
    expect(metal3dataSync(request(paused, [metaOnly({ strings: [] }), claim]))).toEqual({ children: [], status: { ready: true } });
  });

  it('a Metal3Data without the Metal3Machine annotation or Secret names waits for them', () => {
    expect(metal3dataSync(request(data, [metaOnly({ strings: [] }), claim])).status).toEqual({
      ready: false,
      ironhook: { waitingFor: 'the Metal3Machine name (annotation ironhook.dev/metal3machine)' },
    });
  });
});
