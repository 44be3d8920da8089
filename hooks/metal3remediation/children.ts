// The remediation's request children (domain/capi/requests.ts) and which of them live on.
//
// NodeOperations are named `<remediation>-fence-<attempt>` / `<remediation>-restore-<attempt>`.
// A Fence that deleted a Node holds the only copy of its labels and annotations (upstream keeps
// them in annotations on the Metal3Remediation, which a hook cannot write), so such a "backup"
// stays a child until a Restore of the same or a later attempt has succeeded; in out-of-service
// mode (`<remediation>-taint-<attempt>` / `-untaint-<attempt>`) a Taint that tainted a Node stays
// until an Untaint has succeeded, so the taint is never forgotten. Besides those,
// the current attempt's Fence, Restore and timeout Wait (`-timeout-<attempt>`) are kept while the
// attempt runs; give-up ObjectPatches
// are kept while the phase is `Deleting machine` (next sequence after a TestFailed).
import {
  NodeAction,
  OBJECT_PATCH_KIND,
  NODE_OPERATION_KIND,
  PURPOSE_LABEL,
  REQUESTED_BY_LABEL,
  pointerSegment,
  type NodeOperation,
  type ObjectPatch,
} from '../../domain/capi/requests.js';
import { CAPI_V1BETA2, CapiKind } from '../../domain/capi/types.js';
import { Capm3Kind, RemediationPhase } from '../../domain/capm3/types.js';
import type { KObject } from '../../domain/k8s.js';
import { formatTime } from '../../domain/backoff.js';
import { labelValue, operationName } from '../../domain/naming.js';
import { IRONHOOK_API_VERSION, Phase } from '../../domain/operations.js';
import { echoChild, isDeleting } from '../kit/index.js';
import { attemptOf, deadlineOf, Purpose, type RemediationContext } from './context.js';

const UNHEALTHY_ANNOTATION = 'capm3.metal3.io/unhealthy';
const LEGACY_UNHEALTHY_ANNOTATION = 'capi.metal3.io/unhealthy';
const UNHEALTHY_VALUE = 'capm3/UnhealthyNode';

function sequenceOf(obj: KObject): number {
  const match = /-(\d+)$/u.exec(obj.metadata.name ?? '');
  return match === null ? 0 : Number(match[1]);
}

function purposeOf(obj: KObject): string {
  return obj.metadata.labels?.[PURPOSE_LABEL] ?? '';
}

export function isFinished(obj: KObject): boolean {
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  return phase === Phase.Succeeded || phase === Phase.Failed;
}

function succeeded(obj: KObject): boolean {
  return (obj.status as { phase?: string } | undefined)?.phase === Phase.Succeeded;
}

export function nodeOperation(ctx: RemediationContext, purpose: string, attempt: number): NodeOperation | undefined {
  return ctx.nodeOperations.find((op) => purposeOf(op) === purpose && sequenceOf(op) === attempt && !isDeleting(op));
}

/** Succeeded `done` requests that acted on a Node and that no succeeded `undo` of the same or a later attempt has undone yet, oldest first. */
function notUndone(ctx: RemediationContext, done: string, undo: string): NodeOperation[] {
  const undone = ctx.nodeOperations.filter((op) => purposeOf(op) === undo && succeeded(op)).map(sequenceOf);
  const newestUndo = Math.max(0, ...undone);
  return ctx.nodeOperations
    .filter((op) => purposeOf(op) === done && succeeded(op) && (op.status?.node?.name ?? '') !== '' && !isDeleting(op))
    .filter((op) => sequenceOf(op) > newestUndo)
    .sort((a, b) => sequenceOf(a) - sequenceOf(b));
}

/** Fences that deleted a Node whose labels no succeeded Restore has put back yet, oldest first. */
export function backups(ctx: RemediationContext): NodeOperation[] {
  return notUndone(ctx, Purpose.Fence, Purpose.Restore);
}

/** Out-of-service taints no succeeded Untaint has removed yet, oldest first. */
export function taints(ctx: RemediationContext): NodeOperation[] {
  return notUndone(ctx, Purpose.Taint, Purpose.Untaint);
}

/** What the backups saved, merged; the oldest value of a key wins (later fences saw a restored Node). */
interface RestoreData {
  node: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The providerID the oldest fenced Node had: a re-registered Node has none until someone sets it. */
  providerID: string;
}

function restoreData(saved: readonly NodeOperation[]): RestoreData {
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const fence of [...saved].reverse()) {
    Object.assign(labels, fence.status?.node?.labels);
    Object.assign(annotations, fence.status?.node?.annotations);
  }
  return { node: saved[0]?.status?.node?.name ?? '', labels, annotations, providerID: savedProviderID(saved) };
}

function savedProviderID(saved: readonly NodeOperation[]): string {
  const providerIDs = saved.map((fence) => fence.status?.node?.providerID ?? '');
  return providerIDs.find((id) => id !== '') ?? '';
}

function labels(ctx: RemediationContext, purpose: string): Record<string, string> {
  return { [PURPOSE_LABEL]: purpose, [REQUESTED_BY_LABEL]: labelValue(`${Capm3Kind.Metal3Remediation}.${ctx.name}`) };
}

/** A NodeOperation of this remediation's current attempt on `node` (by default the Machine's Node). */
function nodeRequest(
  ctx: RemediationContext,
  purpose: (typeof Purpose)[keyof typeof Purpose],
  action: NodeOperation['spec']['action'],
  node = ctx.nodeName,
): NodeOperation {
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: NODE_OPERATION_KIND,
    metadata: { name: operationName(ctx.name, purpose, attemptOf(ctx)), labels: labels(ctx, purpose) },
    spec: { action, cluster: { name: ctx.clusterName }, node: { name: node } },
  };
}

export function fenceRequest(ctx: RemediationContext): NodeOperation {
  return nodeRequest(ctx, Purpose.Fence, NodeAction.Fence);
}

export function restoreRequest(ctx: RemediationContext): NodeOperation {
  const data = restoreData(backups(ctx));
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: NODE_OPERATION_KIND,
    metadata: { name: operationName(ctx.name, Purpose.Restore, attemptOf(ctx)), labels: labels(ctx, Purpose.Restore) },
    spec: {
      action: NodeAction.Restore,
      cluster: { name: ctx.clusterName },
      node: { name: data.node },
      ...(data.providerID !== '' && { providerID: data.providerID }),
      restore: { annotations: data.annotations, labels: data.labels },
    },
  };
}

export function taintRequest(ctx: RemediationContext): NodeOperation {
  return nodeRequest(ctx, Purpose.Taint, NodeAction.AddOutOfServiceTaint);
}

/** Asks the pool to wake the remediation when the attempt times out: the request completes then. */
export function timeoutRequest(ctx: RemediationContext): NodeOperation {
  const request = nodeRequest(ctx, Purpose.Timeout, NodeAction.Wait);
  return { ...request, spec: { ...request.spec, node: {}, until: formatTime(deadlineOf(ctx)) } };
}

/** Untaints the Node the oldest pending taint was put on. */
export function untaintRequest(ctx: RemediationContext): NodeOperation {
  return nodeRequest(ctx, Purpose.Untaint, NodeAction.RemoveOutOfServiceTaint, taints(ctx)[0]?.status?.node?.name ?? ctx.nodeName);
}

const GIVE_UP_MESSAGE = 'Reboot remediation gave up; waiting for the owner to delete the Machine';

function ownerRemediatedPatch(ctx: RemediationContext, sequence: number): ObjectPatch {
  const condition = { type: 'OwnerRemediated', status: 'False' as const, reason: 'WaitingForRemediation', message: GIVE_UP_MESSAGE };
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: OBJECT_PATCH_KIND,
    metadata: { name: operationName(ctx.name, Purpose.OwnerRemediated, sequence), labels: labels(ctx, Purpose.OwnerRemediated) },
    spec: {
      target: {
        apiVersion: CAPI_V1BETA2,
        kind: CapiKind.Machine,
        name: ctx.machine?.metadata.name ?? ctx.name,
        namespace: ctx.namespace,
        subresource: 'status',
      },
      operations: [],
      conditions: [
        { path: '/status/conditions', condition },
        { path: '/status/deprecated/v1beta1/conditions', condition: { ...condition, severity: 'Warning' } },
      ],
    },
  };
}

function unhealthyHostPatch(ctx: RemediationContext, sequence: number): ObjectPatch {
  const host = ctx.host;
  const values = { [UNHEALTHY_ANNOTATION]: UNHEALTHY_VALUE, [LEGACY_UNHEALTHY_ANNOTATION]: UNHEALTHY_VALUE };
  // Adding the whole map is only safe on the version we saw without one: guard it.
  const operations =
    host?.metadata.annotations === undefined
      ? [
          { op: 'test' as const, path: '/metadata/resourceVersion', value: host?.metadata.resourceVersion ?? '' },
          { op: 'add' as const, path: '/metadata/annotations', value: values },
        ]
      : Object.entries(values).map(([key, value]) => ({ op: 'add' as const, path: `/metadata/annotations/${pointerSegment(key)}`, value }));
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: OBJECT_PATCH_KIND,
    metadata: { name: operationName(ctx.name, Purpose.UnhealthyHost, sequence), labels: labels(ctx, Purpose.UnhealthyHost) },
    spec: { target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: host?.metadata.name ?? '', namespace: ctx.namespace }, operations },
  };
}

/** The latest patch of `purpose`, echoed, or the next one after a failed precondition. */
function giveUpPatch(ctx: RemediationContext, purpose: string, build: (ctx: RemediationContext, sequence: number) => ObjectPatch): KObject | undefined {
  const last = ctx.patches.filter((p) => purposeOf(p) === purpose).sort((a, b) => sequenceOf(b) - sequenceOf(a))[0];
  if (last === undefined) return build(ctx, 1);
  if (last.status?.phase === Phase.Failed && last.status.reason === 'TestFailed') return build(ctx, sequenceOf(last) + 1);
  return echoChild(last, ['spec']);
}

/** The two give-up writes: OwnerRemediated=False on the Machine, the unhealthy annotations on the host. */
export function giveUpPatches(ctx: RemediationContext): KObject[] {
  const out: KObject[] = [];
  const owner = ctx.machine === undefined ? undefined : giveUpPatch(ctx, Purpose.OwnerRemediated, ownerRemediatedPatch);
  const host = ctx.host === undefined ? undefined : giveUpPatch(ctx, Purpose.UnhealthyHost, unhealthyHostPatch);
  if (owner !== undefined) out.push(owner);
  if (host !== undefined) out.push(host);
  return out;
}

/** Observed children that live on in `phase`: backups and taints always, the current attempt's while it runs. */
export function keptChildren(ctx: RemediationContext, phase: string): KObject[] {
  const kept = new Map<string, KObject>();
  for (const done of [...backups(ctx), ...taints(ctx)]) kept.set(done.metadata.name ?? '', done);
  const active = phase === RemediationPhase.Running || phase === RemediationPhase.Waiting || ctx.deleting;
  if (active) {
    for (const purpose of [Purpose.Fence, Purpose.Restore, Purpose.Taint, Purpose.Untaint, Purpose.Timeout]) {
      const op = nodeOperation(ctx, purpose, attemptOf(ctx));
      if (op !== undefined) kept.set(op.metadata.name ?? '', op);
    }
  }
  return [...kept.values()].map((obj) => echoChild(obj, ['spec']));
}
