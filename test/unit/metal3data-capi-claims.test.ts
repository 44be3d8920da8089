// The Metal3Data hook with pools of other kinds than Metal3's IPPool: upstream's ensureIPClaim /
// addressFromClaim / releaseAddressFromPool. One Cluster API IPAddressClaim `<data>-<pool>` per
// such pool; the IPAddress its status.addressRef names gives address, prefix and gateway; an
// unbound claim is waited for (upstream reads no error from it); deletion drops the claims and
// waits for them to go. The differential sweep (test/differential/metal3data-pools.test.ts) runs
// random states through upstream's DataManager as well.
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { metal3dataCustomize, metal3dataFinalize, metal3dataSync } from '../../hooks/metal3data/data.js';
import { objectMap } from '../support/object-map.js';

const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
const CAPI_IPAM = 'ipam.cluster.x-k8s.io/v1beta2';
const NS = 'metal3';
const IN_CLUSTER = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' };

function obj([apiVersion, kind]: [string, string], name: string, fields: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return { apiVersion, kind, metadata: { name, namespace: NS, uid: `uid-${kind}-${name}`, ...meta }, ...fields };
}

const map = objectMap;

const controller = (ipamVersion: string | undefined): KObject => ({
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'CompositeController',
  metadata: { name: 'ironhook-metal3data' },
  spec: {
    childResources: [
      { apiVersion: 'v1', resource: 'secrets' },
      { apiVersion: 'ipam.metal3.io/v1alpha1', resource: 'ipclaims' },
      ...(ipamVersion === undefined ? [] : [{ apiVersion: `ipam.cluster.x-k8s.io/${ipamVersion}`, resource: 'ipaddressclaims' }]),
    ],
  },
});

const data = obj(
  [V2, 'Metal3Data'],
  'workers-4',
  { spec: { index: 4, claim: { name: 'w-abc' }, template: { name: 'workers' }, networkData: { name: 'w-abc-networkdata' } } },
  {
    labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'ironhook.dev/metal3dataclaim': 'w-abc', 'controller-uid': 'x' },
    annotations: { 'ironhook.dev/baremetalhost': 'node-3', 'ironhook.dev/machine': 'w-abc-m', 'ironhook.dev/metal3machine': 'w-abc' },
  },
);
const staticNet = (fromPoolRef: Record<string, string>): Record<string, unknown> => ({
  id: 'prov',
  link: 'eth0',
  fromPoolRef,
  routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromPoolRef } }],
});
const template = (ipv4: Record<string, unknown>[]): KObject =>
  obj([V2, 'Metal3DataTemplate'], 'workers', { spec: { clusterName: 'c1', networkData: { networks: { ipv4 } } } });
const CAPI_TEMPLATE = template([staticNet({ name: 'incluster', ...IN_CLUSTER })]);
const objects = [
  obj([V2, 'Metal3DataClaim'], 'w-abc'),
  obj([V2, 'Metal3Machine'], 'w-abc'),
  obj(['cluster.x-k8s.io/v1beta2', 'Machine'], 'w-abc-m'),
  obj(['metal3.io/v1alpha1', 'BareMetalHost'], 'node-3', { spec: { bootMACAddress: '52:54:00:aa:bb:cc' } }),
];

const capiClaim = (status?: Record<string, unknown>, meta: Partial<KObject['metadata']> = {}): KObject =>
  obj(
    [CAPI_IPAM, 'IPAddressClaim'],
    'workers-4-incluster',
    { spec: { poolRef: { name: 'incluster', ...IN_CLUSTER } }, ...(status !== undefined && { status }) },
    meta,
  );
const capiAddress = (name: string): KObject =>
  obj([CAPI_IPAM, 'IPAddress'], name, {
    spec: { address: '10.0.0.5', prefix: 24, gateway: '10.0.0.1', claimRef: { name: 'workers-4-incluster' }, poolRef: { name: 'incluster', ...IN_CLUSTER } },
  });

interface Case {
  tpl?: KObject;
  children?: KObject[];
  related?: KObject[];
  /** null: the controller declares no IPAddressClaim children. */
  ipamVersion?: string | null;
}

function sync({ tpl = CAPI_TEMPLATE, children = [], related = [], ipamVersion = 'v1beta2' }: Case): ReturnType<typeof metal3dataSync> {
  return metal3dataSync({
    controller: controller(ipamVersion ?? undefined),
    parent: data,
    children: map(...children),
    related: map(tpl, ...objects, ...related),
    finalizing: false,
  });
}

const WAITING = 'an IP address from InClusterIPPool.ipam.cluster.x-k8s.io incluster';
const NEW_CLAIM = {
  apiVersion: CAPI_IPAM,
  kind: 'IPAddressClaim',
  metadata: { name: 'workers-4-incluster', labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'ironhook.dev/metal3data': 'workers-4' } },
  spec: { poolRef: { name: 'incluster', ...IN_CLUSTER } },
};
const notReady = {
  conditions: [{ type: 'Ready', status: 'False', reason: 'PoolExhausted', message: 'no addresses left', lastTransitionTime: '2026-11-29T10:00:00Z' }],
};

describe('Metal3Data hook: Cluster API pools', () => {
  it('creates one IPAddressClaim <data>-<pool> with the pool reference, the data labels and no clusterName; waits', () => {
    expect(sync({})).toEqual({ children: [NEW_CLAIM], status: { ready: false, ironhook: { waitingFor: WAITING } } });
  });

  it('asks for the claim in the version the controller declares', () => {
    expect(sync({ ipamVersion: 'v1beta1' }).children[0]?.apiVersion).toBe('ipam.cluster.x-k8s.io/v1beta1');
  });

  // prettier-ignore
  it.each<[string, KObject, KObject[], string]>([
    ['unbound, with its Ready condition', capiClaim(notReady), [], `${WAITING} (PoolExhausted: no addresses left)`],
    ['unbound, no conditions yet', capiClaim(), [], WAITING],
    ['bound to an IPAddress not seen yet', capiClaim({ addressRef: { name: 'workers-4-incluster' } }), [], `${WAITING} (IPAddress workers-4-incluster)`],
    ['being deleted', capiClaim({ addressRef: { name: 'workers-4-incluster' } }, { deletionTimestamp: '2026-11-29T11:00:00Z' }), [capiAddress('workers-4-incluster')], `${WAITING} (IPAddressClaim workers-4-incluster is being deleted)`],
  ])('waits (no error, as upstream) while the claim is %s; the claim is kept', (_name, claim, related, waitingFor) => {
    const response = sync({ children: [claim], related });
    expect(response.status).toEqual({ ready: false, ironhook: { waitingFor } });
    expect(response.children.map((c) => `${c.kind}/${c.metadata.name ?? ''}`)).toEqual(['IPAddressClaim/workers-4-incluster']);
  });

  it.each([
    ['named as the claim (the contract)', 'workers-4-incluster'],
    ['named otherwise by its provider', 'addr-7f3c'],
  ])('renders from the IPAddress its status.addressRef names: %s', (_name, addressName) => {
    const response = sync({ children: [capiClaim({ addressRef: { name: addressName } })], related: [capiAddress(addressName)] });
    expect(response.status).toEqual({
      ready: false,
      ironhook: { addresses: { incluster: '10.0.0.5' }, waitingFor: 'the rendered Secrets to be created' },
    });
    const secret = response.children.find((c) => c.kind === 'Secret') as KObject & { data: { networkData: string } };
    const text = Buffer.from(secret.data.networkData, 'base64').toString();
    expect(text).toContain('ip_address: 10.0.0.5\n');
    expect(text).toContain('netmask: 255.255.255.0\n');
    expect(text).toContain('gateway: 10.0.0.1\n');
  });

  it('a Metal3 pool and a Cluster API pool: an IPClaim and an IPAddressClaim', () => {
    const tpl = template([staticNet({ name: 'incluster', ...IN_CLUSTER }), { id: 'm3', link: 'eth0', ipAddressFromIPPool: 'metal3-pool' }]);
    expect(sync({ tpl }).children.map((c) => `${c.apiVersion} ${c.kind}/${c.metadata.name ?? ''}`)).toEqual([
      `${CAPI_IPAM} IPAddressClaim/workers-4-incluster`,
      'ipam.metal3.io/v1alpha1 IPClaim/workers-4-metal3-pool',
    ]);
  });

  it('a controller without IPAddressClaim children reports such a pool as an error and keeps its children', () => {
    const response = sync({ ipamVersion: null });
    expect(response.children).toEqual([]);
    expect(response.status).toEqual({
      ready: false,
      errorMessage:
        'pool incluster (InClusterIPPool.ipam.cluster.x-k8s.io) needs a Cluster API IPAddressClaim, and the ironhook-metal3data controller declares no ipaddressclaims.ipam.cluster.x-k8s.io children (chart value metal3data.clusterAPI.enabled)',
    });
  });

  it('customize asks for the namespace’s Cluster API IPAddresses in the controller’s version, only when it declares the claims', () => {
    const rules = (version: string | undefined): unknown[] =>
      metal3dataCustomize({ controller: controller(version), parent: data }).relatedResources.filter((r) => r.apiVersion.startsWith('ipam.cluster.x-k8s.io/'));
    expect(rules('v1beta2')).toEqual([{ apiVersion: CAPI_IPAM, resource: 'ipaddresses', namespace: NS }]);
    expect(rules('v1beta1')).toEqual([{ apiVersion: 'ipam.cluster.x-k8s.io/v1beta1', resource: 'ipaddresses', namespace: NS }]);
    expect(rules(undefined)).toEqual([]);
  });

  it.each<[string, KObject[], boolean, string | undefined]>([
    [
      'an IPAddressClaim is left: drop it and wait',
      [capiClaim({ addressRef: { name: 'workers-4-incluster' } })],
      false,
      '1 IPAddressClaim(s) to release their addresses',
    ],
    [
      'both kinds are left',
      [capiClaim(), obj(['ipam.metal3.io/v1alpha1', 'IPClaim'], 'workers-4-metal3-pool', { spec: { pool: { name: 'metal3-pool' } } })],
      false,
      '1 IPClaim(s) and 1 IPAddressClaim(s) to release their addresses',
    ],
    ['none left: finalized', [], true, undefined],
  ])('finalize once its Metal3DataClaim is gone: %s', (_name, children, finalized, waitingFor) => {
    const related = map(CAPI_TEMPLATE, ...objects.filter((o) => o.kind !== 'Metal3DataClaim'));
    const response = metal3dataFinalize({ controller: controller('v1beta2'), parent: data, children: map(...children), related, finalizing: true });
    expect(response).toEqual({ children: [], finalized, status: waitingFor === undefined ? { ready: false } : { ready: false, ironhook: { waitingFor } } });
  });

  it('paused: the addresses its IPAddressClaims hold are shown', () => {
    const paused = {
      ...data,
      metadata: { ...data.metadata, annotations: { ...data.metadata.annotations, 'cluster.x-k8s.io/paused': '' } },
      status: { ready: false },
    };
    const response = metal3dataSync({
      controller: controller('v1beta2'),
      parent: paused,
      children: map(capiClaim({ addressRef: { name: 'a1' } })),
      related: map(CAPI_TEMPLATE, ...objects, capiAddress('a1')),
      finalizing: false,
    });
    expect(response.status).toEqual({ ready: false, ironhook: { addresses: { incluster: '10.0.0.5' } } });
  });
});
