// Metal3Cluster hooks: one named row per case of sync and finalize.
import { describe, expect, it } from 'vitest';
import { metal3clusterCustomize, metal3clusterFinalize, metal3clusterSync } from '../../hooks/metal3cluster/index.js';
import { at, T0 } from './m3r/builders.js';
import { clusterRequest, otherClusterMachine, twoMachines, VALID_SPEC, type ClusterOptions } from './m3r/cluster-rows.js';

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  severity?: string;
  lastTransitionTime?: string;
}
interface Status {
  conditions?: Cond[];
  deprecated?: { v1beta1?: { conditions?: Cond[]; failureReason?: string } };
  initialization?: unknown;
  failureDomains?: unknown;
  lastUpdated?: string;
  [key: string]: unknown;
}

function condition(status: Status, type: string): Cond | undefined {
  return status.conditions?.find((c) => c.type === type);
}

function v1beta1(status: Status, type: string): Cond | undefined {
  return status.deprecated?.v1beta1?.conditions?.find((c) => c.type === type);
}

interface Row {
  name: string;
  options: ClusterOptions;
  provisioned: boolean;
  ready: { status: string; reason: string; message?: RegExp };
  infra: { status: string; reason?: string };
  failureReason?: string;
}

const rows: Row[] = [
  { name: 'ready: owner Cluster and a valid endpoint', options: {}, provisioned: true, ready: { status: 'True', reason: 'Ready' }, infra: { status: 'True' } },
  {
    name: 'no owner reference yet: waits',
    options: { owner: false },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /owner reference/u },
    infra: { status: 'False', reason: 'WaitingForClusterOwner' },
  },
  {
    name: 'owner Cluster not in the cache: waits',
    options: { clusterMissing: true },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /owner Cluster c1/u },
    infra: { status: 'False', reason: 'WaitingForClusterOwner' },
  },
  {
    name: 'empty endpoint host',
    options: { spec: { controlPlaneEndpoint: { host: '', port: 6443 } } },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /host is not set/u },
    infra: { status: 'False', reason: 'InvalidConfiguration' },
    failureReason: 'InvalidConfiguration',
  },
  {
    name: 'port 0',
    options: { spec: { controlPlaneEndpoint: { host: 'api.example', port: 0 } } },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /between 1 and 65535, got 0/u },
    infra: { status: 'False', reason: 'InvalidConfiguration' },
    failureReason: 'InvalidConfiguration',
  },
  {
    name: 'port 65536',
    options: { spec: { controlPlaneEndpoint: { host: 'api.example', port: 65536 } } },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /65536/u },
    infra: { status: 'False', reason: 'InvalidConfiguration' },
    failureReason: 'InvalidConfiguration',
  },
  {
    name: 'no endpoint at all',
    options: { spec: {} },
    provisioned: false,
    ready: { status: 'False', reason: 'NotReady', message: /host is not set/u },
    infra: { status: 'False', reason: 'InvalidConfiguration' },
    failureReason: 'InvalidConfiguration',
  },
];

describe('metal3cluster sync', () => {
  for (const row of rows) {
    it(row.name, () => {
      const response = metal3clusterSync(clusterRequest(row.options));
      const status = response.status as Status;
      expect(response.children).toEqual([]);
      expect(status.initialization).toEqual({ provisioned: row.provisioned });
      expect(condition(status, 'Ready')).toMatchObject({ status: row.ready.status, reason: row.ready.reason });
      if (row.ready.message) expect(condition(status, 'Ready')?.message).toMatch(row.ready.message);
      expect(v1beta1(status, 'BaremetalInfrastructureReady')).toMatchObject(row.infra);
      expect(v1beta1(status, 'Ready')?.status).toBe(row.infra.status);
      expect(status.deprecated?.v1beta1?.failureReason).toBe(row.failureReason);
      expect(condition(status, 'Paused')).toMatchObject({ status: 'False', reason: 'NotPaused' });
      expect(response.resyncAfterSeconds).toBeUndefined();
    });
  }

  it('copies the failure domains list from spec', () => {
    const failureDomains = [
      { name: 'fd-a', controlPlane: true },
      { name: 'fd-b', attributes: { rack: '2' } },
    ];
    const status = metal3clusterSync(clusterRequest({ spec: { ...VALID_SPEC, failureDomains } })).status as Status;
    expect(status.failureDomains).toEqual(failureDomains);
  });

  it('has no failure domains when spec has none', () => {
    expect((metal3clusterSync(clusterRequest()).status as Status).failureDomains).toBeUndefined();
  });

  it('lastUpdated and transition times are the newest observed timestamp, not a clock', () => {
    const status = metal3clusterSync(clusterRequest()).status as Status;
    expect(status.lastUpdated).toBe(T0);
    expect(condition(status, 'Ready')?.lastTransitionTime).toBe(T0);
  });

  it('keeps a transition time while the condition status stays the same', () => {
    const first = metal3clusterSync(clusterRequest()).status as Status;
    const old = { ...first, lastUpdated: at(300), conditions: (first.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: at(10) })) };
    const status = metal3clusterSync(clusterRequest({ status: old })).status as Status;
    expect(condition(status, 'Ready')?.lastTransitionTime).toBe(at(10));
    expect(status.lastUpdated).toBe(at(300));
  });

  it('a changed condition takes the newest observed time', () => {
    const first = metal3clusterSync(clusterRequest({ spec: {} })).status as Status;
    const old = { ...first, lastUpdated: at(300) };
    const status = metal3clusterSync(clusterRequest({ status: old })).status as Status;
    expect(condition(status, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: at(300) });
  });

  const paused: [string, ClusterOptions, RegExp][] = [
    ['paused by Cluster spec.paused', { clusterSpec: { paused: true } }, /spec.paused/u],
    ['paused by the annotation', { annotations: { 'cluster.x-k8s.io/paused': '' } }, /annotation/u],
  ];
  for (const [name, options, message] of paused) {
    it(`${name}: only the Paused condition changes`, () => {
      const old = {
        initialization: { provisioned: true },
        conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: at(5) }],
        lastUpdated: at(5),
      };
      const status = metal3clusterSync(clusterRequest({ ...options, status: old, spec: {} })).status as Status;
      expect(status.initialization).toEqual({ provisioned: true });
      expect(status.lastUpdated).toBe(at(5));
      expect(status.conditions?.map((c) => c.type)).toEqual(['Ready', 'Paused']);
      expect(condition(status, 'Paused')).toMatchObject({ status: 'True', reason: 'Paused' });
      expect(condition(status, 'Paused')?.message).toMatch(message);
    });
  }

  it('externally managed: the status is left as it is', () => {
    const old = { custom: 'kept', observedGeneration: 1 };
    const response = metal3clusterSync(clusterRequest({ annotations: { 'cluster.x-k8s.io/managed-by': 'someone' }, status: old }));
    expect(response.status).toEqual({ custom: 'kept' });
  });

  it('is deterministic', () => {
    expect(JSON.stringify(metal3clusterSync(clusterRequest()))).toBe(JSON.stringify(metal3clusterSync(clusterRequest())));
  });
});

describe('metal3cluster finalize', () => {
  // prettier-ignore
  const cases: { name: string; options: ClusterOptions; finalized: boolean; resync?: number; message: RegExp }[] = [
    { name: 'two Machines of the cluster remain', options: { machines: twoMachines }, finalized: false, resync: 30, message: /waiting for 2 Machines of Cluster c1/u },
    { name: 'one Machine remains', options: { machines: [twoMachines[0]!] }, finalized: false, resync: 30, message: /waiting for 1 Machine of/u },
    { name: 'no Machines left', options: {}, finalized: true, message: /no Machines left/u },
    { name: "another cluster's Machines do not block", options: { machines: otherClusterMachine }, finalized: true, message: /no Machines left/u },
    { name: 'no owner reference: nothing can belong to it', options: { owner: false, machines: twoMachines }, finalized: true, message: /no Machines left/u },
    { name: 'owner Cluster already gone: its Machines still block', options: { clusterMissing: true, machines: twoMachines }, finalized: false, resync: 30, message: /2 Machines/u },
  ];
  for (const row of cases) {
    it(row.name, () => {
      const response = metal3clusterFinalize(clusterRequest({ ...row.options, deleting: true }));
      const status = response.status as Status;
      expect(response.finalized).toBe(row.finalized);
      expect(response.resyncAfterSeconds).toBe(row.resync);
      expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'Deleting' });
      expect(condition(status, 'Ready')?.message).toMatch(row.message);
      expect(v1beta1(status, 'BaremetalInfrastructureReady')).toMatchObject({ status: 'False', reason: 'Deleting', severity: 'Info' });
    });
  }

  it('paused: deletion waits', () => {
    const response = metal3clusterFinalize(clusterRequest({ deleting: true, clusterSpec: { paused: true } }));
    expect(response.finalized).toBe(false);
  });

  it('externally managed: finalized at once, status untouched', () => {
    const response = metal3clusterFinalize(clusterRequest({ deleting: true, machines: twoMachines, annotations: { 'cluster.x-k8s.io/managed-by': 'x' } }));
    expect(response).toMatchObject({ finalized: true, status: {} });
  });
});

describe('metal3cluster customize', () => {
  it('selects the namespace Clusters and the Machines that carry a cluster name', () => {
    const response = metal3clusterCustomize({ controller: {}, parent: clusterRequest().parent });
    expect(response.relatedResources.map((r) => [r.resource, r.namespace])).toEqual([
      ['clusters', 'metal3'],
      ['machines', 'metal3'],
    ]);
    expect(response.relatedResources[1]?.labelSelector).toEqual({ matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists' }] });
  });
});
