// Metal3Remediation in out-of-service mode (HookConfig remediationOutOfServiceTaint, chart value
// hooks.remediationOutOfServiceTaint): the Node is tainted node.kubernetes.io/out-of-service while
// the host is off instead of being deleted, and untainted once the host is on again.
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { metal3remediationFinalize, metal3remediationSync } from '../../hooks/metal3remediation/index.js';
import { DEFAULT_HOOK_CONFIG, type HookContext } from '../../hooks/types.js';
import { at } from './m3r/builders.js';
import { fenced, remediationRequest, taintOp, tainted, type World } from './m3r/remediation-rows.js';

const OOS: HookContext = { config: { ...DEFAULT_HOOK_CONFIG, remediationOutOfServiceTaint: true } };
const OFF = { annotated: true, poweredOn: false };
const BACK = { annotated: false, poweredOn: true };
const W = { phase: 'Waiting', lastRemediated: at(0), retryCount: 0 };
const R = { phase: 'Running', lastRemediated: at(0), retryCount: 0 };

interface Row {
  name: string;
  world: World;
  phase: string;
  children: string[];
}

// prettier-ignore
const rows: Row[] = [
  { name: 'Running, off, Node known: Taint instead of Fence', world: { ...R, ...OFF }, phase: 'Running', children: ['worker-0-taint-1'] },
  { name: 'Running, Taint waits for pods and volumes: waits, kept', world: { ...R, ...OFF, children: [taintOp('taint', 1, { phase: 'Pending', message: 'waiting for Pod a/b on Node node-0 to terminate' })] }, phase: 'Running', children: ['worker-0-taint-1'] },
  { name: 'Running, tainted: → Waiting, the Taint kept until untainted', world: { ...R, ...OFF, children: [tainted(1)] }, phase: 'Waiting', children: ['worker-0-taint-1'] },
  { name: 'Running, Taint failed: → Waiting (as a failed Fence)', world: { ...R, ...OFF, children: [taintOp('taint', 1, { phase: 'Failed' })] }, phase: 'Waiting', children: ['worker-0-taint-1'] },
  { name: 'Running, no Node on the Machine: nothing tainted', world: { ...R, ...OFF, nodeName: null }, phase: 'Waiting', children: [] },
  { name: 'Waiting, host still off: the taint stays', world: { ...W, poweredOn: false, children: [tainted(1)] }, phase: 'Waiting', children: ['worker-0-taint-1'] },
  { name: 'Waiting, host on: Untaint', world: { ...W, ...BACK, children: [tainted(1)] }, phase: 'Waiting', children: ['worker-0-taint-1', 'worker-0-timeout-1', 'worker-0-untaint-1'] },
  { name: 'Waiting, untainted: no second Untaint, the attempt keeps its requests', world: { ...W, ...BACK, children: [tainted(1), taintOp('untaint', 1, { phase: 'Succeeded', completionTime: at(60) })] }, phase: 'Waiting', children: ['worker-0-taint-1', 'worker-0-timeout-1', 'worker-0-untaint-1'] },
  { name: 'Waiting, untainted in an earlier attempt: that Taint is dropped', world: { ...W, retryCount: 1, ...BACK, children: [tainted(1), taintOp('untaint', 1, { phase: 'Succeeded' })] }, phase: 'Waiting', children: ['worker-0-timeout-2'] },
  { name: 'Waiting after switching modes: a Node fenced earlier is still restored', world: { ...W, ...BACK, children: [fenced(1)] }, phase: 'Waiting', children: ['worker-0-fence-1', 'worker-0-restore-1', 'worker-0-timeout-1'] },
];

function names(children: readonly KObject[]): string[] {
  return children.map((child) => child.metadata.name ?? '');
}

describe('metal3remediation out-of-service mode', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const response = metal3remediationSync(remediationRequest(row.world), OOS);
    expect(response.status.phase).toBe(row.phase);
    expect(names(response.children)).toEqual(row.children);
  });

  it('the Taint names the cluster and the Node', () => {
    const taint = metal3remediationSync(remediationRequest({ ...R, ...OFF }), OOS).children[0];
    expect(taint).toMatchObject({
      kind: 'NodeOperation',
      metadata: { labels: { 'ironhook.dev/purpose': 'taint', 'ironhook.dev/requested-by': 'Metal3Remediation.worker-0' } },
      spec: { action: 'AddOutOfServiceTaint', cluster: { name: 'c1' }, node: { name: 'node-0' } },
    });
  });

  it('the Untaint names the Node the Taint was put on', () => {
    const untaint = metal3remediationSync(remediationRequest({ ...W, ...BACK, nodeName: 'node-new', children: [tainted(1)] }), OOS).children.find(
      (c) => c.metadata.name === 'worker-0-untaint-1',
    );
    expect(untaint?.spec).toEqual({ action: 'RemoveOutOfServiceTaint', cluster: { name: 'c1' }, node: { name: 'node-0' } });
  });

  it('off (the default): the Node is fenced, not tainted', () => {
    expect(names(metal3remediationSync(remediationRequest({ ...R, ...OFF })).children)).toEqual(['worker-0-fence-1']);
  });

  // prettier-ignore
  const finalize: { name: string; world: World; finalized: boolean; children: string[] }[] = [
    { name: 'finalize: a taint not removed yet, host on: Untaint first', world: { ...W, ...BACK, children: [tainted(1)] }, finalized: false, children: ['worker-0-taint-1', 'worker-0-untaint-1'] },
    { name: 'finalize: Untaint pending: waits', world: { ...W, ...BACK, children: [tainted(1), taintOp('untaint', 1, { phase: 'Running' })] }, finalized: false, children: ['worker-0-taint-1', 'worker-0-untaint-1'] },
    { name: 'finalize: untainted: finalized', world: { ...W, ...BACK, children: [tainted(1), taintOp('untaint', 1, { phase: 'Succeeded' })] }, finalized: true, children: [] },
    { name: 'finalize: host gone: finalized', world: { ...W, noHost: true, children: [tainted(1)] }, finalized: true, children: [] },
  ];
  it.each(finalize.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const response = metal3remediationFinalize(remediationRequest({ ...row.world, deleting: true }), OOS);
    expect(response.finalized).toBe(row.finalized);
    expect(names(response.children)).toEqual(row.children);
  });
});
