// Metal3Remediation state table: one named row per phase × input,
// through the real sync / finalize hooks. Timeout 300 s, retryLimit 1 unless a row says otherwise.
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { metal3remediationCustomize, metal3remediationFinalize, metal3remediationSync } from '../../hooks/metal3remediation/index.js';
import { at, T0 } from './m3r/builders.js';
import { fenced, fencedNoNode, nodeOp, patch, remediationRequest, restored, timeoutOp, type World } from './m3r/remediation-rows.js';

interface Expected {
  phase?: string;
  retryCount?: number;
  lastRemediated?: string;
  children: string[];
  resync?: number;
}

interface Row {
  name: string;
  world: World;
  expected: Expected;
}

const ON = { annotated: true, poweredOn: true };
const OFF = { annotated: true, poweredOn: false };
const BACK = { annotated: false, poweredOn: true };
const W = { phase: 'Waiting', lastRemediated: at(0), retryCount: 0 };
const R = { phase: 'Running', lastRemediated: at(0), retryCount: 0 };

// prettier-ignore
const rows: Row[] = [
  // phase "" (new)
  { name: 'new: starts Running at the newest observed time', world: { monitorTime: at(7) }, expected: { phase: 'Running', retryCount: 0, lastRemediated: at(7), children: [], resync: 5 } },
  { name: 'new without a monitor: the creation time', world: {}, expected: { phase: 'Running', retryCount: 0, lastRemediated: T0, children: [], resync: 5 } },
  { name: 'new, host found through its consumerRef', world: { hostByConsumerRef: true }, expected: { phase: 'Running', retryCount: 0, lastRemediated: T0, children: [], resync: 5 } },
  { name: 'new, Machine missing: waits', world: { noMachine: true }, expected: { retryCount: 0, children: [], resync: 5 } },
  { name: 'new, Metal3Machine missing: waits', world: { noMetal3Machine: true }, expected: { retryCount: 0, children: [], resync: 5 } },
  { name: 'new, host missing: waits', world: { noHost: true }, expected: { retryCount: 0, children: [], resync: 5 } },
  { name: "new, the Metal3Machine's host annotation names another namespace: no host here, waits", world: { hostAnnotation: 'kube-system/host-0' }, expected: { retryCount: 0, children: [], resync: 5 } },
  { name: "new, the host's consumerRef names a Metal3Machine of another namespace: not this machine's host, waits", world: { hostByConsumerRef: true, consumerNamespace: 'kube-system' }, expected: { retryCount: 0, children: [], resync: 5 } },
  { name: 'new, host online: false → Failed', world: { online: false }, expected: { phase: 'Failed', retryCount: 0, children: [] } },
  { name: 'new, strategy not Reboot: nothing', world: { strategy: { type: 'Other' } }, expected: { retryCount: 0, children: [] } },
  // Running
  { name: 'Running, no annotation yet: waits for the decorator', world: { ...R, poweredOn: true }, expected: { ...R, children: [], resync: 5 } },
  { name: 'Running, annotated, still on: waits', world: { ...R, ...ON }, expected: { ...R, children: [], resync: 5 } },
  { name: 'Running, off, Node known: Fence', world: { ...R, ...OFF }, expected: { ...R, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Running, Fence pending: waits, kept', world: { ...R, ...OFF, children: [nodeOp('Fence', 1, { phase: 'Running' })] }, expected: { ...R, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Running, fenced: → Waiting, backup kept', world: { ...R, ...OFF, children: [fenced(1)] }, expected: { ...W, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Running, Fence failed: → Waiting without a backup', world: { ...R, ...OFF, children: [nodeOp('Fence', 1, { phase: 'Failed' })] }, expected: { ...W, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Running, no Node on the Machine: → Waiting, nothing fenced', world: { ...R, ...OFF, nodeName: null }, expected: { ...W, children: [], resync: 5 } },
  { name: 'Running, host set online: false → Failed, backup kept', world: { ...R, ...OFF, online: false, children: [fenced(1)] }, expected: { phase: 'Failed', retryCount: 0, lastRemediated: at(0), children: ['worker-0-fence-1'] } },
  { name: 'Running, strategy not Reboot: nothing', world: { ...R, ...OFF, strategy: { type: 'Other' } }, expected: { ...R, children: [] } },
  // Waiting
  { name: 'Waiting, annotation still there: waits', world: { ...W, annotated: true, poweredOn: false, children: [fenced(1)] }, expected: { ...W, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Waiting, still off: waits', world: { ...W, poweredOn: false, children: [fenced(1)] }, expected: { ...W, children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Waiting, on with a backup: Restore, and the Wait with it', world: { ...W, ...BACK, children: [fenced(1)] }, expected: { ...W, children: ['worker-0-fence-1', 'worker-0-restore-1', 'worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, Restore pending, before the timeout: waits', world: { ...W, ...BACK, monitorTime: at(299), children: [fenced(1), nodeOp('Restore', 1, { phase: 'Running', observedTime: at(200) })] }, expected: { ...W, children: ['worker-0-fence-1', 'worker-0-restore-1', 'worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, restored: no second Restore, the attempt keeps its requests', world: { ...W, ...BACK, children: [fenced(1), restored(1)] }, expected: { ...W, children: ['worker-0-fence-1', 'worker-0-restore-1', 'worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, restored in an earlier attempt: that backup is dropped', world: { ...W, retryCount: 1, ...BACK, children: [fenced(1), restored(1)] }, expected: { ...W, retryCount: 1, children: ['worker-0-timeout-2'], resync: 5 } },
  { name: 'Waiting, no backup, 299 s: waits', world: { ...W, ...BACK, monitorTime: at(299) }, expected: { ...W, children: ['worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, timed out: retry → Running, new attempt from the observed time; the old Restore stays for one more sync', world: { ...W, ...BACK, monitorTime: at(300), children: [restored(1)] }, expected: { phase: 'Running', retryCount: 1, lastRemediated: at(300), children: ['worker-0-restore-1'], resync: 5 } },
  { name: 'Running attempt 2, the old attempt restored: its requests are dropped', world: { ...R, retryCount: 1, lastRemediated: at(300), children: [fenced(1), restored(1)] }, expected: { ...R, retryCount: 1, lastRemediated: at(300), children: [], resync: 5 } },
  { name: 'Waiting, timed out by a request time, Restore pending: retry keeps the backup, and the Restore for one more sync', world: { ...W, ...BACK, children: [fenced(1), nodeOp('Restore', 1, { phase: 'Running', observedTime: at(301) })] }, expected: { phase: 'Running', retryCount: 1, lastRemediated: at(301), children: ['worker-0-fence-1', 'worker-0-restore-1'], resync: 5 } },
  { name: 'Running attempt 2, the old Restore still pending: dropped (cancelled), the backup kept', world: { ...R, retryCount: 1, lastRemediated: at(301), children: [fenced(1), nodeOp('Restore', 1, { phase: 'Running', observedTime: at(301) })] }, expected: { ...R, retryCount: 1, lastRemediated: at(301), children: ['worker-0-fence-1'], resync: 5 } },
  { name: 'Waiting, timed out after the last retry: give up', world: { ...W, ...BACK, retryCount: 1, monitorTime: at(300) }, expected: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: ['worker-0-owner-remediated-1', 'worker-0-unhealthy-host-1'] } },
  { name: 'Waiting, retryLimit 0: give up at the first timeout', world: { ...W, ...BACK, strategy: { type: 'Reboot', retryLimit: 0, timeoutSeconds: 300 }, monitorTime: at(400) }, expected: { phase: 'Deleting machine', retryCount: 0, lastRemediated: at(0), children: ['worker-0-owner-remediated-1', 'worker-0-unhealthy-host-1'] } },
  { name: 'Waiting, default timeout 600 s: 400 s is not enough', world: { ...W, ...BACK, strategy: { type: 'Reboot' }, monitorTime: at(400) }, expected: { ...W, children: ['worker-0-timeout-1'], resync: 5 } },
  { name: "Waiting, on, before the timeout: asks for the attempt's Wait (the hooks' clock)", world: { ...W, ...BACK }, expected: { ...W, children: ['worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, the Wait pending: no second one, waits', world: { ...W, ...BACK, children: [timeoutOp(1, { phase: 'Pending', observedTime: at(10) })] }, expected: { ...W, children: ['worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, the Wait completed at the deadline: retry from its completion time; the old Wait stays for one more sync', world: { ...W, ...BACK, children: [timeoutOp(1, { phase: 'Succeeded', completionTime: at(300) })] }, expected: { phase: 'Running', retryCount: 1, lastRemediated: at(300), children: ['worker-0-timeout-1'], resync: 5 } },
  { name: 'Waiting, the Wait completed after the last retry: give up', world: { ...W, ...BACK, retryCount: 1, children: [timeoutOp(2, { phase: 'Succeeded', completionTime: at(300) })] }, expected: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: ['worker-0-owner-remediated-1', 'worker-0-timeout-2', 'worker-0-unhealthy-host-1'] } },
  { name: 'Waiting, host online: false → Failed', world: { ...W, ...BACK, online: false }, expected: { phase: 'Failed', retryCount: 0, lastRemediated: at(0), children: [] } },
  // second attempt
  { name: 'Running attempt 2, off: Fence 2, older backup kept', world: { ...R, retryCount: 1, ...OFF, children: [fenced(1)] }, expected: { ...R, retryCount: 1, children: ['worker-0-fence-1', 'worker-0-fence-2'], resync: 5 } },
  { name: 'Waiting attempt 2, on: Restore 2 from both backups', world: { ...W, retryCount: 1, ...BACK, children: [fenced(1), fencedNoNode(2)] }, expected: { ...W, retryCount: 1, children: ['worker-0-fence-1', 'worker-0-fence-2', 'worker-0-restore-2', 'worker-0-timeout-2'], resync: 5 } },
  // terminal
  { name: 'Deleting machine, patches pending: kept', world: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: [patch('owner-remediated', 1, { phase: 'Pending' }), patch('unhealthy-host', 1, { phase: 'Pending' })] }, expected: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: ['worker-0-owner-remediated-1', 'worker-0-unhealthy-host-1'] } },
  { name: 'Deleting machine, host patch test failed: next sequence', world: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: [patch('owner-remediated', 1, { phase: 'Succeeded' }), patch('unhealthy-host', 1, { phase: 'Failed', reason: 'TestFailed' })] }, expected: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: ['worker-0-owner-remediated-1', 'worker-0-unhealthy-host-2'] } },
  { name: 'Waiting in a status one write behind, give-up patches exist: Deleting machine, patches kept, nothing restored', world: { ...W, ...BACK, retryCount: 1, children: [fenced(2), patch('owner-remediated', 1, { phase: 'Pending' }), patch('unhealthy-host', 1, { phase: 'Pending' })] }, expected: { phase: 'Deleting machine', retryCount: 1, lastRemediated: at(0), children: ['worker-0-fence-2', 'worker-0-owner-remediated-1', 'worker-0-unhealthy-host-1'] } },
  { name: 'Failed: nothing more', world: { phase: 'Failed', retryCount: 0, lastRemediated: at(0), online: true }, expected: { phase: 'Failed', retryCount: 0, lastRemediated: at(0), children: [] } },
];

function names(children: KObject[]): string[] {
  return children.map((child) => child.metadata.name ?? '');
}

describe('metal3remediation state table', () => {
  for (const row of rows) {
    it(row.name, () => {
      const response = metal3remediationSync(remediationRequest(row.world));
      const { children, ...status } = row.expected;
      delete status.resync;
      expect(response.status).toEqual(status);
      expect(names(response.children)).toEqual(children);
      expect(response.resyncAfterSeconds).toBe(row.expected.resync);
    });
  }
});

function child(world: World, name: string): KObject {
  const found = metal3remediationSync(remediationRequest(world)).children.find((c) => c.metadata.name === name);
  expect(found, name).toBeDefined();
  return found!;
}

describe('metal3remediation requests', () => {
  it('Fence names the cluster and the Node, labelled with its purpose', () => {
    const fence = child({ ...R, ...OFF }, 'worker-0-fence-1');
    expect(fence).toMatchObject({
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'NodeOperation',
      spec: { action: 'Fence', cluster: { name: 'c1' }, node: { name: 'node-0' } },
    });
    expect(fence.metadata.labels).toEqual({ 'ironhook.dev/purpose': 'fence', 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' });
  });

  it('Restore carries what the Fence saved', () => {
    expect(child({ ...W, ...BACK, children: [fenced(1)] }, 'worker-0-restore-1').spec).toEqual({
      action: 'Restore',
      cluster: { name: 'c1' },
      node: { name: 'node-0' },
      restore: { annotations: { note: 'a' }, labels: { role: 'worker' } },
    });
  });

  it("Restore carries the fenced Node's providerID: a kubelet re-registers the Node without one", () => {
    const withID = nodeOp('Fence', 1, {
      phase: 'Succeeded',
      node: { name: 'node-0', providerID: 'metal3://metal3/host-0/worker-0-m3m', labels: {}, annotations: {} },
    });
    const spec = child({ ...W, ...BACK, children: [withID] }, 'worker-0-restore-1').spec as { providerID?: string };
    expect(spec.providerID).toBe('metal3://metal3/host-0/worker-0-m3m');
  });

  it('Restore merges backups, the older value of a key wins', () => {
    const second = nodeOp('Fence', 2, { phase: 'Succeeded', node: { name: 'node-0', labels: { role: 'changed', extra: 'x' }, annotations: {} } });
    const spec = child({ ...W, retryCount: 1, ...BACK, children: [fenced(1), second] }, 'worker-0-restore-2').spec as { restore: unknown };
    expect(spec.restore).toEqual({ annotations: { note: 'a' }, labels: { extra: 'x', role: 'worker' } });
  });

  it('give-up: OwnerRemediated=False on the Machine status in both condition styles', () => {
    const owner = child({ ...W, ...BACK, retryCount: 1, monitorTime: at(300) }, 'worker-0-owner-remediated-1');
    const condition = { type: 'OwnerRemediated', status: 'False', reason: 'WaitingForRemediation' };
    expect(owner.spec).toMatchObject({
      target: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'worker-0', namespace: 'metal3', subresource: 'status' },
      operations: [],
      conditions: [
        { path: '/status/conditions', condition },
        { path: '/status/deprecated/v1beta1/conditions', condition: { ...condition, severity: 'Warning' } },
      ],
    });
    expect((owner.spec as { conditions: { condition: { severity?: string } }[] }).conditions[0]?.condition.severity).toBeUndefined();
  });

  it('give-up: both unhealthy annotations added to a host that has annotations', () => {
    const host = child({ ...W, ...BACK, retryCount: 1, monitorTime: at(300), hostAnnotations: { other: 'x' } }, 'worker-0-unhealthy-host-1');
    expect(host.spec).toEqual({
      operations: [
        { op: 'add', path: '/metadata/annotations/capm3.metal3.io~1unhealthy', value: 'capm3/UnhealthyNode' },
        { op: 'add', path: '/metadata/annotations/capi.metal3.io~1unhealthy', value: 'capm3/UnhealthyNode' },
      ],
      target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'host-0', namespace: 'metal3' },
    });
  });

  it('give-up: a host without annotations gets the map, guarded by its resourceVersion', () => {
    const host = child({ ...W, ...BACK, retryCount: 1, monitorTime: at(300), hostAnnotations: null }, 'worker-0-unhealthy-host-1');
    expect((host.spec as { operations: unknown[] }).operations).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '555' },
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode', 'capm3.metal3.io/unhealthy': 'capm3/UnhealthyNode' },
      },
    ]);
  });

  it('Wait is due at lastRemediated + timeoutSeconds, in the cluster of the Machine, and names no Node', () => {
    expect(child({ ...W, ...BACK }, 'worker-0-timeout-1').spec).toEqual({ action: 'Wait', cluster: { name: 'c1' }, node: {}, until: at(300) });
    expect(child({ ...W, ...BACK, strategy: { type: 'Reboot', retryLimit: 1, timeoutSeconds: 30 } }, 'worker-0-timeout-1').spec).toMatchObject({
      until: at(30),
    });
  });

  it('an echoed request has no status and no Metacontroller selector label', () => {
    const fence = child({ ...R, ...OFF, children: [nodeOp('Fence', 1, { phase: 'Running' })] }, 'worker-0-fence-1');
    expect(fence.status).toBeUndefined();
    expect(fence.metadata.labels?.['controller-uid']).toBeUndefined();
  });
});

describe('metal3remediation finalize', () => {
  // prettier-ignore
  const cases: { name: string; world: World; finalized: boolean; children: string[] }[] = [
    { name: 'no backup: finalized at once', world: { ...W, ...BACK }, finalized: true, children: [] },
    { name: 'unrestored backup, host on: Restore first', world: { ...W, ...BACK, children: [fenced(1)] }, finalized: false, children: ['worker-0-fence-1', 'worker-0-restore-1'] },
    { name: 'Restore pending: waits', world: { ...W, ...BACK, children: [fenced(1), nodeOp('Restore', 1, { phase: 'Running' })] }, finalized: false, children: ['worker-0-fence-1', 'worker-0-restore-1'] },
    { name: 'restored: finalized', world: { ...W, ...BACK, children: [fenced(1), restored(1)] }, finalized: true, children: [] },
    { name: 'Restore failed: finalized anyway', world: { ...W, ...BACK, children: [fenced(1), nodeOp('Restore', 1, { phase: 'Failed' })] }, finalized: true, children: [] },
    { name: 'backup but host online: false: finalized (the Node cannot come back)', world: { ...W, ...BACK, online: false, children: [fenced(1)] }, finalized: true, children: [] },
    { name: 'backup but host gone: finalized', world: { ...W, noHost: true, children: [fenced(1)] }, finalized: true, children: [] },
  ];
  for (const row of cases) {
    it(row.name, () => {
      const response = metal3remediationFinalize(remediationRequest({ ...row.world, deleting: true }));
      expect(response.finalized).toBe(row.finalized);
      expect(names(response.children)).toEqual(row.children);
    });
  }
});

describe('metal3remediation customize', () => {
  it('its Machine by name, the namespace for the rest', () => {
    const response = metal3remediationCustomize({ parent: remediationRequest({}).parent });
    expect(response.relatedResources).toEqual([
      { apiVersion: 'cluster.x-k8s.io/v1beta2', names: ['worker-0'], namespace: 'metal3', resource: 'machines' },
      { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', namespace: 'metal3', resource: 'metal3machines' },
      { apiVersion: 'metal3.io/v1alpha1', namespace: 'metal3', resource: 'baremetalhosts' },
      { apiVersion: 'ironhook.dev/v1alpha1', namespace: 'metal3', resource: 'bmcmonitors' },
    ]);
  });
});

describe('metal3remediation determinism', () => {
  it('same request, same bytes', () => {
    const world: World = { ...W, ...BACK, children: [fenced(1)] };
    expect(JSON.stringify(metal3remediationSync(remediationRequest(world)))).toBe(JSON.stringify(metal3remediationSync(remediationRequest(world))));
  });
});
