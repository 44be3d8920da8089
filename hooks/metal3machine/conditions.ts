// Conditions as `clusterctl describe` reads them: v1beta2 metav1 conditions in
// status.conditions, the v1beta1 Cluster API ones in status.deprecated.v1beta1.conditions. A
// condition appears once its step has been reached; every False one says what it waits for.
// lastTransitionTime moves only when a condition's status changes, to the newest observed time.
import { pointerSegment } from '../../domain/capi/requests.js';
import { isRecord } from '../kit/index.js';
import { latestRequest, type MachineContext } from './context.js';
import { Condition, MachineState as S, NODE_REUSE_LABEL, Purpose, Reason, V1Beta1Condition, V1Beta1Reason } from './names.js';
import type { Decision } from './outcome.js';

type Status = 'True' | 'False' | 'Unknown';

interface Draft {
  type: string;
  status: Status;
  reason: string;
  message: string;
}

type Stored = Draft & { lastTransitionTime?: string; severity?: string; observedGeneration?: number };

function previous(list: unknown): Stored[] {
  return Array.isArray(list) ? list.filter(isRecord).map((c) => c as unknown as Stored) : [];
}

function outcomeText(decision: Decision): { reason: string; message: string } {
  const outcome = decision.outcome;
  const message = outcome.reason;
  if (outcome.kind === 'wait' || outcome.kind === 'transient' || outcome.kind === 'permanent')
    return { reason: outcome.conditionReason ?? Reason.NotReady, message };
  return { reason: Reason.NotReady, message };
}

function make(type: string, isTrue: boolean, reason: string, message = ''): Draft {
  return { type, status: isTrue ? 'True' : 'False', reason, message };
}

/** Upstream's reason names node reuse when the host was chosen for its node-reuse label, which the claim removed. */
function associatedReason(ctx: MachineContext): string {
  const operations = (latestRequest(ctx, Purpose.Claim)?.spec as { operations?: { op: string; path: string }[] } | undefined)?.operations ?? [];
  const reusePath = `/metadata/labels/${pointerSegment(NODE_REUSE_LABEL)}`;
  return operations.some((op) => op.op === 'remove' && op.path === reusePath) ? Reason.AssociateViaNodeReuse : Reason.AssociateSuccess;
}

function associate(ctx: MachineContext, decision: Decision, old: Stored[]): Draft | undefined {
  if (decision.passed.includes(S.Associating)) return make(Condition.AssociateBareMetalHost, true, associatedReason(ctx));
  if (ctx.deleting) return old.find((c) => c.type === Condition.AssociateBareMetalHost);
  const text = outcomeText(decision);
  return make(Condition.AssociateBareMetalHost, false, text.reason, text.message);
}

function dataReady(ctx: MachineContext, decision: Decision, old: Stored[]): Draft | undefined {
  if (decision.passed.includes(S.WaitingForData)) {
    const reason = decision.status.renderedData === undefined ? Reason.SecretsSetExternally : Reason.SecretsReady;
    return make(Condition.Metal3DataReady, true, reason);
  }
  if (ctx.deleting) return old.find((c) => c.type === Condition.Metal3DataReady);
  if (decision.state !== S.WaitingForData) return undefined;
  const text = outcomeText(decision);
  return make(Condition.Metal3DataReady, false, text.reason, text.message);
}

function metaData(ctx: MachineContext, decision: Decision): Draft | undefined {
  if (ctx.deleting) return make(Condition.AssociateMetaData, false, Reason.Deleting, decision.outcome.reason);
  const failed = decision.outcome.kind === 'permanent' && decision.outcome.conditionReason === Reason.MetaDataFailed;
  if (failed) return make(Condition.AssociateMetaData, false, Reason.MetaDataFailed, decision.outcome.reason);
  return decision.passed.includes(S.Associating) ? make(Condition.AssociateMetaData, true, Reason.MetaDataSuccess) : undefined;
}

function ready(ctx: MachineContext, decision: Decision): Draft {
  if (decision.state === S.Ready) return make(Condition.Ready, true, Reason.Ready, decision.outcome.reason);
  return make(Condition.Ready, false, ctx.deleting ? Reason.Deleting : Reason.NotReady, decision.outcome.reason);
}

/** Paused True; the reason says when the host still finishes an operation before it is paused too. */
function paused(decision: Decision): Draft {
  const outcome = decision.outcome;
  const reason = outcome.kind === 'wait' ? (outcome.conditionReason ?? Reason.Paused) : Reason.Paused;
  return make(Condition.Paused, true, reason, outcome.reason);
}

function drafts(ctx: MachineContext, decision: Decision, old: Stored[]): Draft[] {
  if (decision.state === S.Paused) return [...old.filter((c) => c.type !== Condition.Paused), paused(decision)];
  const list = [
    associate(ctx, decision, old),
    metaData(ctx, decision),
    dataReady(ctx, decision, old),
    ready(ctx, decision),
    make(Condition.Paused, false, Reason.NotPaused),
  ];
  return list.filter((c): c is Draft => c !== undefined);
}

function stamp(draft: Draft, old: Stored[], time: string): Stored {
  const before = old.find((c) => c.type === draft.type);
  const lastTransitionTime = before?.status === draft.status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : time;
  return { ...draft, lastTransitionTime };
}

const V1BETA1_TYPES: Readonly<Record<string, string>> = {
  [Condition.AssociateBareMetalHost]: V1Beta1Condition.AssociateBMH,
  [Condition.AssociateMetaData]: V1Beta1Condition.KubernetesNodeReady,
  [Condition.Metal3DataReady]: V1Beta1Condition.Metal3DataReady,
  [Condition.Ready]: V1Beta1Condition.Ready,
};

function severity(decision: Decision): string {
  if (decision.outcome.kind === 'permanent') return 'Error';
  return decision.outcome.kind === 'transient' ? 'Warning' : 'Info';
}

function toV1Beta1(draft: Draft, decision: Decision): Stored | undefined {
  const type = V1BETA1_TYPES[draft.type];
  if (type === undefined) return undefined;
  if (draft.status === 'True') return { type, status: 'True', reason: '', message: '' };
  return { type, status: draft.status, reason: V1Beta1Reason[draft.reason] ?? draft.reason, message: draft.message, severity: severity(decision) };
}

function compact(c: Stored): Record<string, unknown> {
  return Object.fromEntries(Object.entries(c).filter(([, value]) => value !== ''));
}

/** v1beta2 conditions sorted by type; v1beta1 ones with Ready first, as Cluster API orders them. */
export function machineConditions(ctx: MachineContext, decision: Decision): { conditions: Record<string, unknown>[]; v1beta1: Record<string, unknown>[] } {
  const old = previous(ctx.status.conditions);
  const oldV1 = previous((ctx.status.deprecated as { v1beta1?: { conditions?: unknown } } | undefined)?.v1beta1?.conditions);
  const list = drafts(ctx, decision, old).sort((a, b) => a.type.localeCompare(b.type));
  const conditions = list.map((d) => ({
    ...stamp({ type: d.type, status: d.status, reason: d.reason, message: d.message }, old, ctx.observedTime),
    observedGeneration: ctx.generation,
  }));
  const v1 = list.map((d) => toV1Beta1(d, decision)).filter((c): c is Stored => c !== undefined);
  const v1beta1 = v1
    .map((c) => compact(stamp(c, oldV1, ctx.observedTime)))
    .sort((a, b) => (a.type === 'Ready' ? -1 : b.type === 'Ready' ? 1 : String(a.type).localeCompare(String(b.type))));
  return { conditions, v1beta1 };
}
