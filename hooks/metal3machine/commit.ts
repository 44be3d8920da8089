// The one place where a sync's decision becomes the hook response: request sequences assigned,
// children assembled (the data claim, the requests still worth keeping, the new ones) and the
// status written with conditions, addresses and Ironhook's own block.
import { PURPOSE_LABEL } from '../../domain/capi/requests.js';
import { copiedLabels, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { compareText, echoChild, rec, str } from '../kit/index.js';
import { consumedByMe } from './choose.js';
import { machineConditions } from './conditions.js';
import type { MachineContext } from './context.js';
import { annotatedHostName, claimedHost, hostAddresses } from './handlers/host.js';
import { MachineState, Purpose } from './names.js';
import type { Decision } from './outcome.js';
import { requestChild } from './requests.js';

/** The Metal3DataClaim `<machine>`, once the machine is associated and names a dataTemplate. */
function claimChild(ctx: MachineContext): KObject | undefined {
  const template = rec(ctx.spec.dataTemplate);
  if (ctx.deleting || str(template.name) === '' || annotatedHostName(ctx) === '') return undefined;
  const ref = { name: str(template.name), ...(str(template.namespace) !== '' && { namespace: str(template.namespace) }) };
  return {
    apiVersion: INFRA_V1BETA2,
    kind: 'Metal3DataClaim',
    metadata: { name: ctx.name, labels: copiedLabels(ctx.m3m.metadata.labels) },
    spec: { template: ref },
  };
}

/** The newest observed request of each purpose, unless a new one replaces it or deletion made it moot. */
function keptRequests(ctx: MachineContext, decision: Decision): KObject[] {
  const replaced = new Set<string>(decision.requests.map((r) => r.purpose));
  const latest = new Map<string, KObject>();
  for (const request of ctx.requests) latest.set(request.metadata.labels?.[PURPOSE_LABEL] ?? '', request);
  if (ctx.deleting) {
    latest.delete(Purpose.NodeProviderID);
    latest.delete(Purpose.LabelSync);
  }
  return [...latest.entries()]
    .filter(([purpose]) => !replaced.has(purpose))
    .map(([, request]) =>
      echoChild(
        request,
        ['spec'],
        Object.keys(request.metadata.annotations ?? {}).filter((key) => key.startsWith('ironhook.dev/')),
      ),
    );
}

function children(ctx: MachineContext, decision: Decision): KObject[] {
  if (decision.outcome.kind === 'finalized') return [];
  const fresh = decision.requests.map((intent, i) => requestChild(ctx, intent, ctx.sequence + i + 1));
  const observedClaim = ctx.claimChild === undefined ? undefined : echoChild(ctx.claimChild, ['spec']);
  const claim = observedClaim !== undefined && !ctx.deleting ? observedClaim : claimChild(ctx);
  const all = [...keptRequests(ctx, decision), ...fresh, ...(claim === undefined ? [] : [claim])];
  return all.sort((a, b) => compareText(`${a.kind}/${a.metadata.name ?? ''}`, `${b.kind}/${b.metadata.name ?? ''}`));
}

function failureFields(decision: Decision): Record<string, string> {
  const outcome = decision.outcome;
  return outcome.kind === 'permanent' ? { failureReason: outcome.failureReason, failureMessage: outcome.reason } : {};
}

function ironhookBlock(ctx: MachineContext, decision: Decision): Record<string, unknown> {
  const outcome = decision.outcome;
  const waiting = outcome.kind === 'wait' || outcome.kind === 'transient' ? { waitingFor: outcome.reason } : {};
  const host = claimedHost(ctx)?.metadata.name;
  return { state: decision.state, sequence: ctx.sequence + decision.requests.length, ...(host !== undefined && { host }), ...waiting };
}

/** Fields a sync recomputes every time (never carried over from the old status). */
const RECOMPUTED = new Set(['conditions', 'deprecated', 'addresses', 'ironhook', 'lastUpdated', 'renderedData']);

function statusOf(ctx: MachineContext, decision: Decision): Record<string, unknown> {
  const kept = Object.fromEntries(Object.entries(ctx.status).filter(([key]) => !RECOMPUTED.has(key)));
  const { conditions, v1beta1 } = machineConditions(ctx, decision);
  const host = claimedHost(ctx);
  const renderedData = ctx.deleting ? undefined : (decision.status.renderedData ?? ctx.status.renderedData);
  const addresses = host !== undefined && consumedByMe(ctx, host) && !ctx.deleting ? hostAddresses(host) : [];
  const status: Record<string, unknown> = {
    ...kept,
    ...decision.status,
    renderedData,
    conditions,
    deprecated: { v1beta1: { conditions: v1beta1, ...failureFields(decision) } },
    lastUpdated: ctx.observedTime || undefined,
    ironhook: ironhookBlock(ctx, decision),
  };
  if (addresses.length > 0) status.addresses = addresses;
  if (decision.state === MachineState.Ready) status.initialization = { provisioned: true };
  return status;
}

export function commit(ctx: MachineContext, decision: Decision): CompositeSyncResponse {
  const response: CompositeSyncResponse = {
    status: statusOf(ctx, decision),
    children: children(ctx, decision),
  };
  const outcome = decision.outcome;
  if ((outcome.kind === 'wait' || outcome.kind === 'transient') && outcome.resyncAfterSeconds !== undefined)
    response.resyncAfterSeconds = outcome.resyncAfterSeconds;
  if (ctx.deleting) response.finalized = outcome.kind === 'finalized';
  return response;
}
