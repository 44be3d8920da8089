// After association: per-node data, the host spec, provisioning, the provider ID
// and ready.
import type { KObject } from '../../../domain/k8s.js';
import { NodeAction } from '../../../domain/capi/requests.js';
import { rec, str } from '../../kit/index.js';
import { latestRequest, type MachineContext } from '../context.js';
import { FailureReason, MachineState as S, providerID, ProviderIDPrefix, Purpose, Reason } from '../names.js';
import { hasRef, hostSpecChanges, hostSpecOps } from '../host-spec.js';
import { hostState, isInFlight, phaseOf, requestMessage } from '../observed.js';
import { cont, wait, type Outcome, type RequestIntent } from '../outcome.js';
import { hostTarget, providerIDOps, selfTarget, stillMine } from '../patches.js';
import { patchIntent, progressOf, type Progress } from '../requests.js';
import { labelSync } from '../label-sync.js';
import { claimedHost, hostAddresses } from './host.js';

/** The references this machine makes; each must stay in the machine's namespace (empty means that one). */
function references(ctx: MachineContext): [string, unknown][] {
  return [
    ['spec.userData', ctx.spec.userData],
    ['spec.metaData', ctx.spec.metaData],
    ['spec.networkData', ctx.spec.networkData],
    ['spec.dataTemplate', ctx.spec.dataTemplate],
    ['status.userData', ctx.status.userData],
  ];
}

/** Upstream's webhook rule (and Ironhook's for dataTemplate), enforced here too: nothing reaches into another namespace. */
export function crossNamespaceReferences(ctx: MachineContext): string[] {
  return references(ctx).flatMap(([field, value]) => {
    const namespace = str(rec(value).namespace);
    return hasRef(value) && namespace !== '' && namespace !== ctx.namespace
      ? [`${field}.namespace ${namespace} differs from the machine's namespace ${ctx.namespace}: cross-namespace references are not allowed`]
      : [];
  });
}

export function specSecrets(ctx: MachineContext): Record<string, unknown> {
  const metaData = hasRef(ctx.spec.metaData) ? ctx.spec.metaData : undefined;
  const networkData = hasRef(ctx.spec.networkData) ? ctx.spec.networkData : undefined;
  return { ...(metaData !== undefined && { metaData }), ...(networkData !== undefined && { networkData }) };
}

function dataWait(ctx: MachineContext, data: KObject | undefined): Outcome {
  const error = str(rec(data?.status).errorMessage);
  const what = data === undefined ? `a Metal3Data for Metal3DataClaim ${ctx.name}` : `Metal3Data ${data.metadata.name ?? ''} to be ready`;
  return wait(error === '' ? what : `${what} (${error})`, { conditionReason: Reason.WaitingForMetal3Data });
}

export function handleWaitingForData(ctx: MachineContext): Outcome {
  const foreign = crossNamespaceReferences(ctx);
  if (foreign.length > 0) {
    return { kind: 'permanent', reason: foreign.join('; '), conditionReason: Reason.MetaDataFailed, failureReason: FailureReason.Create };
  }
  const fromSpec = specSecrets(ctx);
  if (!hasRef(ctx.spec.dataTemplate)) return cont(S.SettingHostSpec, 'no dataTemplate to wait for', { status: fromSpec });
  const data = ctx.datas[0];
  if (data === undefined || data.metadata.deletionTimestamp !== undefined || rec(data.status).ready !== true) return dataWait(ctx, data);
  return cont(S.SettingHostSpec, `Metal3Data ${data.metadata.name ?? ''} is ready`, { status: renderedStatus(ctx, data, fromSpec) });
}

/** Per-node data: renderedData, and the data's Secrets where the spec names none. */
function renderedStatus(ctx: MachineContext, data: KObject, fromSpec: Record<string, unknown>): Record<string, unknown> {
  const spec = rec(data.spec);
  const status: Record<string, unknown> = { renderedData: { name: data.metadata.name ?? '', namespace: ctx.namespace } };
  status.metaData = fromSpec.metaData ?? (hasRef(spec.metaData) ? spec.metaData : undefined);
  status.networkData = fromSpec.networkData ?? (hasRef(spec.networkData) ? spec.networkData : undefined);
  return status;
}

function failedPatch(what: string, progress: Extract<Progress, { kind: 'failed' }>): Outcome {
  const message = `${what} failed (${progress.reason}): ${requestMessage(progress.request)}`;
  return { kind: 'permanent', reason: message, conditionReason: Reason.NotReady, failureReason: FailureReason.Update };
}

export function handleSettingHostSpec(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  if (host === undefined) return wait('the associated BareMetalHost', { conditionReason: Reason.NotReady });
  const changes = hostSpecChanges(ctx, ctx.status, host);
  const progress = progressOf(ctx, Purpose.HostSpec, Object.keys(changes).length > 0, host);
  if (progress.kind === 'satisfied') return cont(S.Provisioning, `BareMetalHost ${host.metadata.name ?? ''} has this machine's spec`);
  if (progress.kind === 'failed') return failedPatch(`setting the spec of BareMetalHost ${host.metadata.name ?? ''}`, progress);
  const ops = [...stillMine(ctx), ...hostSpecOps(changes)];
  const requests = progress.kind === 'issue' ? [patchIntent(Purpose.HostSpec, hostTarget(host), ops, host)] : [];
  return wait(`the driver pool to set ${Object.keys(changes).sort().join(', ')} on BareMetalHost ${host.metadata.name ?? ''}`, {
    requests,
    conditionReason: Reason.NotReady,
  });
}

export function handleProvisioning(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  const state = hostState(host);
  if (state === 'provisioned') return cont(S.SettingProviderID, `BareMetalHost ${host?.metadata.name ?? ''} is provisioned`);
  const error = str(rec(host?.status).errorMessage);
  const detail = error === '' ? `state: ${state || 'none'}` : `state: ${state}, error: ${error}`;
  return wait(`BareMetalHost ${host?.metadata.name ?? ''} to be provisioned (${detail})`, { conditionReason: Reason.NotReady });
}

function nodeOperation(ctx: MachineContext, host: KObject, id: string): RequestIntent {
  const hostUID = host.metadata.uid ?? '';
  const hostnames = hostAddresses(host)
    .filter((a) => a.type === 'Hostname')
    .map((a) => a.address);
  return {
    kind: 'NodeOperation',
    purpose: Purpose.NodeProviderID,
    spec: {
      cluster: { name: ctx.clusterName },
      action: NodeAction.SetProviderID,
      node: { uuid: hostUID, ...(hostnames.length > 0 && { hostnames }) },
      providerID: id,
      acceptedProviderIDs: [`${ProviderIDPrefix}${hostUID}`],
    },
  };
}

function selfProviderID(ctx: MachineContext, id: string, requests: RequestIntent[]): Outcome {
  const progress = progressOf(ctx, Purpose.ProviderID, str(ctx.spec.providerID) === '', ctx.m3m);
  if (progress.kind === 'satisfied') return cont(S.Ready, `spec.providerID is ${id}`, { requests });
  if (progress.kind === 'failed') return failedPatch('writing spec.providerID', progress);
  if (progress.kind === 'issue') requests.push(patchIntent(Purpose.ProviderID, selfTarget(ctx), providerIDOps(ctx, id), ctx.m3m));
  return wait(`spec.providerID ${id} on this Metal3Machine`, { requests, conditionReason: Reason.NotReady });
}

/** The provider ID: providerID on the machine and on the workload Node; with a cloud provider, the Node's first. */
export function handleSettingProviderID(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  if (host === undefined) return wait('the associated BareMetalHost', { conditionReason: Reason.NotReady });
  const id = str(ctx.spec.providerID) || providerID(ctx.namespace, host.metadata.name ?? '', ctx.name);
  const node = latestRequest(ctx, Purpose.NodeProviderID);
  const requests = node === undefined ? [nodeOperation(ctx, host, id)] : [];
  const cloud = rec(ctx.metal3Cluster?.spec).cloudProviderEnabled === true;
  if (!cloud || str(ctx.spec.providerID) !== '') return selfProviderID(ctx, id, requests);
  return cloudProviderID(ctx, id, node, requests);
}

/** With a cloud provider the Node's providerID comes first; the machine copies what the Node has. */
function cloudProviderID(ctx: MachineContext, id: string, node: KObject | undefined, requests: RequestIntent[]): Outcome {
  if (node === undefined || isInFlight(node))
    return wait(`a workload cluster Node with providerID ${id} (cloud provider enabled)`, { requests, conditionReason: Reason.NotReady });
  if (phaseOf(node) !== 'Succeeded')
    return {
      kind: 'permanent',
      reason: `finding the workload Node failed: ${requestMessage(node)}`,
      conditionReason: Reason.NotReady,
      failureReason: FailureReason.Update,
    };
  const found = str(rec(rec(node.status).node).providerID) || id;
  return selfProviderID(ctx, found, requests);
}

export function handleReady(ctx: MachineContext): Outcome {
  const host = claimedHost(ctx);
  const node = latestRequest(ctx, Purpose.NodeProviderID);
  const nodeNote = phaseOf(node) === 'Failed' ? `; setting the providerID on the workload Node failed: ${requestMessage(node)}` : '';
  const sync = host === undefined ? { requests: [], note: '' } : labelSync(ctx, host);
  return {
    kind: 'done',
    reason: `provisioned on BareMetalHost ${host?.metadata.name ?? ''}${nodeNote}${sync.note === '' ? '' : `; ${sync.note}`}`,
    status: { addresses: hostAddresses(host), initialization: { provisioned: true } },
    requests: sync.requests,
  };
}
