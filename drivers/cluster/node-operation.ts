// Executes one NodeOperation (domain/capi/requests.ts) against a workload cluster: SetProviderID,
// Fence (save, then delete), Restore (wait, then add what is missing) and SyncLabels (wait, then
// make the labels under the synced prefixes equal to the host's), AddOutOfServiceTaint and
// RemoveOutOfServiceTaint (remediation's out-of-service mode), and Wait (a timer that touches no
// Node: the remediation's timeout). Waiting is an outcome,
// not a loop: the runner records it (observedTime, message) and checks again on its timer.
// Transient failures are thrown; the runner retries them with back-off.
import { V1ObjectMeta } from '@kubernetes/client-node';
import type { V1Node } from '@kubernetes/client-node';
import { formatTime } from '../../domain/backoff.js';
import { NodeAction } from '../../domain/capi/requests.js';
import type { NodeOperation, NodeOperationStatus, ObservedNode } from '../../domain/capi/requests.js';
import type { ObjectMeta } from '../../domain/k8s.js';
import { Phase } from '../../domain/operations.js';
import type { Clock } from '../pool/clock.js';
import { MERGE_PATCH } from '../kube/api.js';
import { labelKeyPrefix } from '../../domain/labels.js';
import { KubeStatusError, isConflict, isNotFound, unlessNotFound } from '../kube/errors.js';
import type { KubeApi } from '../kube/api.js';
import type { WorkloadClients } from './workload.js';

const UUID_LABEL = 'metal3.io/uuid';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

interface NodeJSON {
  metadata: ObjectMeta & { name: string };
  spec?: { providerID?: string; taints?: Taint[] };
}

/** `afterMs`: when to look again, where the request knows (a Wait's deadline); else the recheck interval. */
export type NodeOutcome = { kind: 'finished'; status: NodeOperationStatus } | { kind: 'waiting'; message: string; afterMs?: number };

export interface NodeContext {
  workloads: WorkloadClients;
  clock: Clock;
  /** Writes a status before the executor goes on; throws when it could not be written. */
  saveProgress: (status: NodeOperationStatus) => Promise<void>;
}

interface Call {
  ctx: NodeContext;
  op: NodeOperation;
  client: KubeApi;
}

/** Attempts of a guarded Node write before a conflict counts as transient. */
const WRITE_ATTEMPTS = 3;

/** The fields of a client-node typed Node the executor reads. */
function nodeJSON(node: V1Node): NodeJSON {
  const { name = '', labels, annotations, resourceVersion } = node.metadata ?? new V1ObjectMeta();
  const taints = (node.spec?.taints ?? []).map((t) => ({
    key: t.key,
    effect: t.effect,
    ...(t.value !== undefined && { value: t.value }),
    ...(t.timeAdded !== undefined && { timeAdded: formatTime(t.timeAdded.getTime()) }),
  }));
  return { metadata: { name, labels, annotations, resourceVersion }, spec: { providerID: node.spec?.providerID, taints } };
}

async function patchNode(client: KubeApi, name: string, body: object): Promise<NodeJSON> {
  return nodeJSON(await client.call(`PATCH Node ${name}`, (options) => client.core.patchNode({ name, body }, options), MERGE_PATCH));
}

/** A merge patch of `node` guarded by the resourceVersion it was read at; undefined when the Node changed meanwhile (look again). */
async function guardedPatch(call: Call, node: NodeJSON, body: { metadata?: object; spec?: object }): Promise<NodeJSON | undefined> {
  try {
    return await patchNode(call.client, node.metadata.name, { ...body, metadata: { ...body.metadata, resourceVersion: node.metadata.resourceVersion } });
  } catch (error) {
    if (isConflict(error)) {
      return undefined;
    }
    throw error;
  }
}

function observed(node: NodeJSON, withMetadata: boolean): ObservedNode {
  const { name, labels, annotations } = node.metadata;
  const providerID = node.spec?.providerID;
  return {
    name,
    ...(providerID !== undefined && providerID !== '' && { providerID }),
    ...(withMetadata && { labels: labels ?? {}, annotations: annotations ?? {} }),
  };
}

function succeeded(call: Pick<Call, 'ctx'>, message: string, node?: ObservedNode): NodeOutcome {
  const now = formatTime(call.ctx.clock.now());
  return { kind: 'finished', status: { phase: Phase.Succeeded, message, observedTime: now, completionTime: now, ...(node !== undefined && { node }) } };
}

function failed(call: Pick<Call, 'ctx'>, reason: string, message: string, node?: ObservedNode): NodeOutcome {
  const now = formatTime(call.ctx.clock.now());
  return {
    kind: 'finished',
    status: {
      phase: Phase.Failed,
      message,
      observedTime: now,
      completionTime: now,
      error: { kind: 'Permanent', reason, message },
      ...(node !== undefined && { node }),
    },
  };
}

async function getNode(client: KubeApi, name: string): Promise<NodeJSON | undefined> {
  const node = await unlessNotFound(
    client.call(`GET Node ${name}`, (options) => client.core.readNode({ name }, options)),
    undefined,
  );
  return node === undefined ? undefined : nodeJSON(node);
}

function selectorText(op: NodeOperation): string {
  const { uuid, hostnames = [] } = op.spec.node;
  return uuid !== undefined && uuid !== '' ? `${UUID_LABEL}=${uuid}` : `${HOSTNAME_LABEL} in (${hostnames.join(', ')})`;
}

async function findNodes(client: KubeApi, op: NodeOperation): Promise<NodeJSON[]> {
  const { uuid, hostnames = [] } = op.spec.node;
  const byUUID = uuid !== undefined && uuid !== '';
  const labelSelector = byUUID ? `${UUID_LABEL}=${uuid}` : HOSTNAME_LABEL;
  const list = await client.call('list Nodes', (options) => client.core.listNode({ labelSelector }, options));
  const items = list.items.map(nodeJSON);
  return byUUID ? items : items.filter((node) => hostnames.includes(node.metadata.labels?.[HOSTNAME_LABEL] ?? ''));
}

function isAccepted(op: NodeOperation, current: string): boolean {
  return current === (op.spec.providerID ?? '') || (current !== '' && (op.spec.acceptedProviderIDs ?? []).includes(current));
}

/** Writes spec.providerID (allowed by Kubernetes only from empty); undefined when the Node changed meanwhile. */
async function writeProviderID(call: Call, node: NodeJSON): Promise<NodeOutcome | undefined> {
  const wanted = call.op.spec.providerID ?? '';
  try {
    const body = { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { providerID: wanted } };
    const patched = await patchNode(call.client, node.metadata.name, body);
    return succeeded(call, `set providerID ${wanted} on Node ${node.metadata.name}`, observed(patched, false));
  } catch (error) {
    if (isConflict(error) || (error instanceof KubeStatusError && error.code === 422)) {
      // Somebody wrote the Node (maybe its providerID) since we read it: decide again.
      return undefined;
    }
    throw error;
  }
}

/** One look at the matching Node; undefined when a guarded write lost a race (look again). */
async function setProviderIDOnce(call: Call): Promise<NodeOutcome | undefined> {
  const { op, client } = call;
  const nodes = await findNodes(client, op);
  const [node] = nodes;
  if (node === undefined) {
    return { kind: 'waiting', message: `waiting for a Node with label ${selectorText(op)}` };
  }
  if (nodes.length > 1) {
    return failed(call, 'MultipleNodes', `${String(nodes.length)} Nodes match ${selectorText(op)}: ${nodes.map((n) => n.metadata.name).join(', ')}`);
  }
  const current = node.spec?.providerID ?? '';
  if (isAccepted(op, current)) {
    return succeeded(call, `Node ${node.metadata.name} has providerID ${current}`, observed(node, false));
  }
  if (current !== '') {
    return failed(call, 'ProviderIDMismatch', `Node ${node.metadata.name} has providerID ${current}, not ${op.spec.providerID ?? ''}`, observed(node, false));
  }
  return writeProviderID(call, node);
}

/** Save what the Node carries (status first, so a restart never loses it), then delete it. */
async function fence(call: Call): Promise<NodeOutcome> {
  const { ctx, op, client } = call;
  const name = op.spec.node.name ?? '';
  let saved = op.status?.node;
  if (saved === undefined) {
    const node = await getNode(client, name);
    if (node === undefined) {
      return succeeded(call, `Node ${name} does not exist; nothing to fence`);
    }
    saved = observed(node, true);
    await ctx.saveProgress({
      phase: Phase.Running,
      message: `saved the labels and annotations of Node ${name}; deleting it`,
      observedTime: formatTime(ctx.clock.now()),
      node: saved,
    });
  }
  try {
    await client.call(`DELETE Node ${name}`, (options) => client.core.deleteNode({ name }, options));
  } catch (error) {
    if (!isNotFound(error)) {
      throw error;
    }
  }
  return succeeded(call, `deleted Node ${name}; its labels and annotations are in status.node`, saved);
}

function missing(present: Record<string, string> | undefined, saved: Record<string, string>): Record<string, string> | undefined {
  const added = Object.entries(saved).filter(([key]) => present?.[key] === undefined);
  return added.length === 0 ? undefined : Object.fromEntries(added);
}

/** What a Restore adds to the re-created Node: only what it lacks (existing keys and a providerID win). */
interface Restoration {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  providerID?: string;
}

function restoration(op: NodeOperation, node: NodeJSON): Restoration {
  const saved = op.spec.restore ?? { labels: {}, annotations: {} };
  const labels = missing(node.metadata.labels, saved.labels);
  const annotations = missing(node.metadata.annotations, saved.annotations);
  const providerID = (node.spec?.providerID ?? '') === '' ? op.spec.providerID : undefined;
  return { ...(labels && { labels }), ...(annotations && { annotations }), ...(providerID && { providerID }) };
}

async function addMissing(call: Call, node: NodeJSON, restore: Restoration): Promise<NodeOutcome | undefined> {
  const { labels, annotations, providerID } = restore;
  const metadata = { ...(labels && { labels }), ...(annotations && { annotations }) };
  const patched = await guardedPatch(call, node, { metadata, ...(providerID !== undefined && { spec: { providerID } }) });
  const count = Object.keys({ ...labels }).length + Object.keys({ ...annotations }).length;
  const withID = providerID === undefined ? '' : ` and its providerID ${providerID}`;
  return patched === undefined
    ? undefined
    : succeeded(call, `restored ${String(count)} labels and annotations${withID} on Node ${node.metadata.name}`, observed(patched, true));
}

async function restoreOnce(call: Call): Promise<NodeOutcome | undefined> {
  const name = call.op.spec.node.name ?? '';
  const node = await getNode(call.client, name);
  if (node === undefined) {
    return { kind: 'waiting', message: `waiting for Node ${name} to be re-created` };
  }
  const restore = restoration(call.op, node);
  if (Object.keys(restore).length === 0) {
    return succeeded(call, `Node ${name} has every saved label and annotation`, observed(node, true));
  }
  return addMissing(call, node, restore);
}

/**
 * The merge-patch label changes that make the Node's labels under `prefixes` equal to `wanted`:
 * a value to set, or null to remove. Labels outside the prefixes are never touched.
 */
export function labelChanges(
  present: Record<string, string> | undefined,
  prefixes: readonly string[],
  wanted: Record<string, string>,
): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(present ?? {})) {
    if (prefixes.includes(labelKeyPrefix(key)) && wanted[key] !== value) changes[key] = null;
  }
  for (const [key, value] of Object.entries(wanted)) {
    if (present?.[key] !== value) changes[key] = value;
  }
  return changes;
}

async function syncLabelsOnce(call: Call): Promise<NodeOutcome | undefined> {
  const name = call.op.spec.node.name ?? '';
  const node = await getNode(call.client, name);
  if (node === undefined) {
    return { kind: 'waiting', message: `waiting for Node ${name}` };
  }
  const { prefixes, labels } = call.op.spec.syncLabels ?? { prefixes: [], labels: {} };
  const changes = labelChanges(node.metadata.labels, prefixes, labels);
  const count = Object.keys(changes).length;
  if (count === 0) {
    return succeeded(call, `Node ${name} has the host's labels under ${prefixes.join(', ')}`, observed(node, false));
  }
  const patched = await guardedPatch(call, node, { metadata: { labels: changes } });
  return patched === undefined
    ? undefined
    : succeeded(call, `synced ${String(count)} labels under ${prefixes.join(', ')} on Node ${name}`, observed(patched, false));
}

/** Upstream's out-of-service taint; a taint matches it by key and effect (corev1 MatchTaint). */
const OUT_OF_SERVICE = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

function isOutOfService(taint: Taint): boolean {
  return taint.key === OUT_OF_SERVICE.key && taint.effect === OUT_OF_SERVICE.effect;
}

/** What still runs on or is attached to the Node (upstream's IsNodeDrained), or undefined. */
async function drainBlocker(client: KubeApi, name: string): Promise<string | undefined> {
  const fieldSelector = `spec.nodeName=${name}`;
  const pods = await client.call(`list Pods of Node ${name}`, (options) => client.core.listPodForAllNamespaces({ fieldSelector }, options));
  const terminating = pods.items.find((pod) => pod.metadata?.deletionTimestamp !== undefined);
  if (terminating !== undefined) {
    return `waiting for Pod ${terminating.metadata?.namespace ?? ''}/${terminating.metadata?.name ?? ''} on Node ${name} to terminate`;
  }
  const attachments = await client.call('list VolumeAttachments', (options) => client.storage.listVolumeAttachment({}, options));
  const attached = attachments.items.find((attachment) => attachment.spec.nodeName === name);
  return attached === undefined ? undefined : `waiting for VolumeAttachment ${attached.metadata?.name ?? ''} of Node ${name} to go`;
}

/** Writes the Node's taints; undefined when the Node changed meanwhile. */
async function writeTaints(call: Call, node: NodeJSON, taints: Taint[]): Promise<NodeJSON | undefined> {
  return guardedPatch(call, node, { spec: { taints } });
}

/** Taint the Node out of service, then wait until its pods terminated and its volumes detached. */
async function addTaintOnce(call: Call): Promise<NodeOutcome | undefined> {
  const name = call.op.spec.node.name ?? '';
  const node = await getNode(call.client, name);
  if (node === undefined) {
    return succeeded(call, `Node ${name} does not exist; nothing to taint`);
  }
  const taints = node.spec?.taints ?? [];
  if (!taints.some(isOutOfService)) {
    const tainted = await writeTaints(call, node, [...taints, { ...OUT_OF_SERVICE, timeAdded: formatTime(call.ctx.clock.now()) }]);
    // Pods get their deletionTimestamp only after the taint: look again later, never at once.
    return tainted === undefined ? undefined : { kind: 'waiting', message: `tainted Node ${name} out of service; waiting for its pods and volumes to go` };
  }
  const blocker = await drainBlocker(call.client, name);
  if (blocker !== undefined) {
    return { kind: 'waiting', message: blocker };
  }
  return succeeded(call, `Node ${name} is out of service: no terminating pods, no volume attachments`, observed(node, false));
}

async function removeTaintOnce(call: Call): Promise<NodeOutcome | undefined> {
  const name = call.op.spec.node.name ?? '';
  const node = await getNode(call.client, name);
  const taints = node?.spec?.taints ?? [];
  if (node === undefined || !taints.some(isOutOfService)) {
    return succeeded(call, `Node ${name} has no out-of-service taint`);
  }
  const untainted = await writeTaints(
    call,
    node,
    taints.filter((taint) => !isOutOfService(taint)),
  );
  return untainted === undefined ? undefined : succeeded(call, `removed the out-of-service taint from Node ${name}`, observed(untainted, false));
}

async function withRetries(call: Call, once: (call: Call) => Promise<NodeOutcome | undefined>): Promise<NodeOutcome> {
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
    const outcome = await once(call);
    if (outcome !== undefined) {
      return outcome;
    }
  }
  throw new KubeStatusError(409, 'Conflict', `the Node changed under ${String(WRITE_ATTEMPTS)} guarded writes in a row`);
}

/** Wait: succeeds once `until` has passed; no workload cluster is contacted. */
function waitUntil(ctx: NodeContext, op: NodeOperation): NodeOutcome {
  const until = Date.parse(op.spec.until ?? '');
  const now = ctx.clock.now();
  if (Number.isNaN(until)) return failed({ ctx }, 'InvalidSpec', 'Wait needs spec.until');
  if (now < until) return { kind: 'waiting', message: `waiting until ${op.spec.until ?? ''}`, afterMs: until - now };
  return succeeded({ ctx }, `${op.spec.until ?? ''} has passed`);
}

/** The outcome of one attempt; throws what is worth a retry (with the kubeconfig's secrets to scrub). */
export async function executeNodeOperation(ctx: NodeContext, op: NodeOperation): Promise<NodeOutcome> {
  if (op.spec.action === NodeAction.Wait) {
    return waitUntil(ctx, op);
  }
  const { client } = await ctx.workloads.forCluster(op.metadata.namespace ?? '', op.spec.cluster.name);
  const call: Call = { ctx, op, client };
  switch (op.spec.action) {
    case NodeAction.SetProviderID:
      return withRetries(call, setProviderIDOnce);
    case NodeAction.Fence:
      return fence(call);
    case NodeAction.Restore:
      return withRetries(call, restoreOnce);
    case NodeAction.SyncLabels:
      return withRetries(call, syncLabelsOnce);
    case NodeAction.AddOutOfServiceTaint:
      return withRetries(call, addTaintOnce);
    case NodeAction.RemoveOutOfServiceTaint:
      return withRetries(call, removeTaintOnce);
    default:
      return failed(call, 'UnknownAction', `unknown action ${String(op.spec.action)}`);
  }
}
