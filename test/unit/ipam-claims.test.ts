// The claim-side hooks: IPClaim status and finalize, Cluster API IPAddressClaim status.
import { describe, expect, it } from 'vitest';
import { ipaddressclaimCustomize, ipaddressclaimSync } from '../../hooks/ipam/ipaddressclaim.js';
import { ipclaimCustomize, ipclaimFinalize, ipclaimSync } from '../../hooks/ipam/ipclaim.js';
import type { KObject } from '../../domain/k8s.js';
import { at, capiClaim, claim, ipAddressChild, NS, pool, type CapiVersion } from '../../devenv/builders/ippool.js';

const POOL = pool(
  'pool1',
  { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] },
  {
    status: {
      indexes: { a: '10.0.0.1' },
      ironhook: { allocatedIPCount: 1, claimErrors: { b: 'Exhausted IP Pools' } },
    },
  },
);

const ADDRESS_A = ipAddressChild(POOL, 'p-10-0-0-1', { address: '10.0.0.1', claim: { name: 'a', namespace: NS }, pool: { name: 'pool1', namespace: NS } });

function claimRequest(parent: KObject, related: { pools?: KObject[]; addresses?: KObject[] }, finalizing = false): Record<string, unknown> {
  const map = (objs: KObject[] = []): Record<string, KObject> =>
    Object.fromEntries(objs.map((o) => [`${o.metadata.namespace ?? NS}/${o.metadata.name ?? ''}`, o]));
  return {
    controller: {},
    parent,
    children: {},
    related: { 'IPPool.ipam.metal3.io/v1alpha1': map(related.pools), 'IPAddress.ipam.metal3.io/v1alpha1': map(related.addresses) },
    finalizing,
  };
}

describe('IPClaim sync', () => {
  // prettier-ignore
  const rows: Array<[string, KObject, { pools?: KObject[]; addresses?: KObject[] }, Record<string, unknown>]> = [
    ['address exists: reported', claim('a'), { pools: [POOL], addresses: [ADDRESS_A] }, { address: { name: 'p-10-0-0-1', namespace: NS } }],
    ['pool committed but the object is not there yet: nothing yet', claim('a'), { pools: [POOL] }, {}],
    ['pool error for the claim', claim('b'), { pools: [POOL] }, { errorMessage: 'Exhausted IP Pools' }],
    ['not processed yet', claim('c'), { pools: [POOL] }, {}],
    ['pool missing: waiting, not an error (upstream)', claim('b'), {}, {}],
    ['an IPAddress of another pool is not ours', claim('a', { pool: 'other' }), { addresses: [ADDRESS_A] }, {}],
    ['a pool in another namespace: an error naming both namespaces', claim('c', { poolNamespace: 'kube-system' }), { pools: [POOL] }, { errorMessage: `spec.pool.namespace kube-system differs from the claim's namespace ${NS}: cross-namespace IPPool references are not allowed` }],
    ['a pool in another namespace, an address held from before: kept and reported, with the error', claim('a', { poolNamespace: 'kube-system' }), { pools: [POOL], addresses: [ADDRESS_A] }, { address: { name: 'p-10-0-0-1', namespace: NS }, errorMessage: `spec.pool.namespace kube-system differs from the claim's namespace ${NS}: cross-namespace IPPool references are not allowed` }],
    ['a terminating IPAddress is not reported', claim('a'), { pools: [POOL], addresses: [{ ...ADDRESS_A, metadata: { ...ADDRESS_A.metadata, deletionTimestamp: at(4) } }] }, {}],
  ];
  it.each(rows)('%s', (_name, parent, related, status) => {
    expect(ipclaimSync(claimRequest(parent, related))).toEqual({ children: [], status });
  });

  it('falls back to the message for unlisted claims when the pool could not list them all', () => {
    const crowded = { ...POOL, status: { ironhook: { allocatedIPCount: 3, unlistedClaimErrors: 5, unlistedClaimMessage: 'Exhausted IP Pools' } } };
    expect(ipclaimSync(claimRequest(claim('z'), { pools: [crowded] })).status).toEqual({ errorMessage: 'Exhausted IP Pools' });
  });
});

describe('IPClaim finalize', () => {
  const deleting = claim('a', { deletionTimestamp: at(5), finalizers: ['metacontroller.io/compositecontroller-ironhook-ipclaim'] });
  const rows: Array<[string, { pools?: KObject[]; addresses?: KObject[] }, boolean]> = [
    ['address still exists', { pools: [POOL], addresses: [ADDRESS_A] }, false],
    ['address released', { pools: [POOL] }, true],
    ['pool gone', { addresses: [ADDRESS_A] }, true],
  ];
  it.each(rows)('%s', (_name, related, finalized) => {
    expect(ipclaimFinalize(claimRequest(deleting, related, true)).finalized).toBe(finalized);
  });
});

describe('IPClaim customize', () => {
  it('asks for its pool by name and its addresses by label', () => {
    expect(ipclaimCustomize({ parent: claim('a') })).toEqual({
      relatedResources: [
        { apiVersion: 'ipam.metal3.io/v1alpha1', names: ['pool1'], namespace: NS, resource: 'ippools' },
        { apiVersion: 'ipam.metal3.io/v1alpha1', labelSelector: { matchLabels: { 'ironhook.dev/ipclaim': 'a' } }, resource: 'ipaddresses' },
      ],
    });
  });
});

function capiAddress(name: string, version: CapiVersion = 'v1beta2'): KObject {
  return {
    apiVersion: `ipam.cluster.x-k8s.io/${version}`,
    kind: 'IPAddress',
    metadata: { name, namespace: NS, creationTimestamp: at(3) },
    spec: { address: '10.0.0.2', claimRef: { name }, poolRef: { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'pool1' }, prefix: 24 },
  };
}

function decoratorRequest(object: KObject, related: { pools?: KObject[]; addresses?: KObject[] }): Record<string, unknown> {
  const map = (objs: KObject[] = []): Record<string, KObject> => Object.fromEntries(objs.map((o) => [`${NS}/${o.metadata.name ?? ''}`, o]));
  return {
    controller: {},
    object,
    attachments: {},
    related: { 'IPPool.ipam.metal3.io/v1alpha1': map(related.pools), [`IPAddress.${object.apiVersion}`]: map(related.addresses) },
    finalizing: false,
  };
}

describe('IPAddressClaim (Cluster API) status', () => {
  it('leaves claims of other providers alone', () => {
    const foreign = capiClaim('m', { poolKind: 'InClusterIPPool' });
    expect(ipaddressclaimSync(decoratorRequest(foreign, {}))).toEqual({ attachments: [], status: null });
    expect(ipaddressclaimCustomize({ parent: foreign })).toEqual({ relatedResources: [] });
  });

  it('v1beta2: addressRef and a Ready condition, plus the deprecated v1beta1 conditions', () => {
    const status = ipaddressclaimSync(decoratorRequest(capiClaim('m'), { pools: [POOL], addresses: [capiAddress('m')] })).status;
    expect(status).toEqual({
      addressRef: { name: 'm' },
      conditions: [{ lastTransitionTime: at(3), message: '', observedGeneration: 1, reason: 'Ready', status: 'True', type: 'Ready' }],
      deprecated: { v1beta1: { conditions: [{ lastTransitionTime: at(3), status: 'True', type: 'Ready' }] } },
    });
  });

  it('v1beta1: conditions with severity, and the v1beta2 block', () => {
    const crowded = { ...POOL, status: { ironhook: { allocatedIPCount: 3, addressClaimErrors: { m: 'Exhausted IP Pools' } } } };
    const status = ipaddressclaimSync(decoratorRequest(capiClaim('m', { version: 'v1beta1' }), { pools: [crowded] })).status;
    expect(status).toEqual({
      conditions: [
        {
          lastTransitionTime: '2026-11-29T15:00:00Z',
          message: 'Exhausted IP Pools',
          reason: 'PoolExhausted',
          severity: 'Error',
          status: 'False',
          type: 'Ready',
        },
      ],
      v1beta2: {
        conditions: [
          {
            lastTransitionTime: '2026-11-29T15:00:00Z',
            message: 'Exhausted IP Pools',
            observedGeneration: 1,
            reason: 'PoolExhausted',
            status: 'False',
            type: 'Ready',
          },
        ],
      },
    });
  });

  it('keeps lastTransitionTime while the condition does not change', () => {
    const old = capiClaim('m', {
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'PoolNotReady', lastTransitionTime: at(-100), message: 'x' }] },
    });
    const status = ipaddressclaimSync(decoratorRequest(old, {})).status as { conditions: Array<{ lastTransitionTime: string; reason: string }> };
    expect(status.conditions[0]).toMatchObject({ lastTransitionTime: at(-100), reason: 'PoolNotReady' });
  });

  it('asks for its pool and its same-named IPAddress', () => {
    expect(ipaddressclaimCustomize({ parent: capiClaim('m') })).toEqual({
      relatedResources: [
        { apiVersion: 'ipam.metal3.io/v1alpha1', names: ['pool1'], namespace: NS, resource: 'ippools' },
        { apiVersion: 'ipam.cluster.x-k8s.io/v1beta2', names: ['m'], namespace: NS, resource: 'ipaddresses' },
      ],
    });
  });
});
