// BareMetalHost → Node label sync, upstream's Metal3LabelSync controller: when the Metal3Cluster
// carries `metal3.io/metal3-label-sync-prefixes: "a.example.com,b.example.com"`, the host's labels
// under those prefixes (the part of the key before the slash) are made the Node's labels under
// them, through a SyncLabels NodeOperation on the Machine's `status.nodeRef`. A new request is
// asked for whenever what the Node should carry changes (host labels, prefixes, Node name).
import { NodeAction } from '../../domain/capi/requests.js';
import { PAUSED_ANNOTATION } from '../../domain/capi/types.js';
import { canonicalJSON } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import { isDNSSubdomain, labelKeyPrefix } from '../../domain/labels.js';
import { rec, str } from '../kit/index.js';
import { latestRequest, type MachineContext } from './context.js';
import { HOST_PAUSED_ANNOTATION, LABEL_SYNC_PREFIXES_ANNOTATION, Purpose } from './names.js';
import { isInFlight, phaseOf, requestMessage } from './observed.js';
import type { RequestIntent } from './outcome.js';

type Prefixes = { kind: 'off' } | { kind: 'invalid'; error: string } | { kind: 'on'; prefixes: string[] };

/** Upstream's parsePrefixAnnotation: comma-separated, trimmed, empty entries skipped, each a DNS-1123 subdomain. */
function syncPrefixes(metal3Cluster: KObject | undefined): Prefixes {
  const value = metal3Cluster?.metadata.annotations?.[LABEL_SYNC_PREFIXES_ANNOTATION];
  if (value === undefined) return { kind: 'off' };
  const prefixes = value
    .split(',')
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== '');
  const bad = prefixes.find((prefix) => !isDNSSubdomain(prefix));
  if (bad !== undefined) return { kind: 'invalid', error: `label sync prefix "${bad}" is not a DNS-1123 subdomain` };
  return prefixes.length === 0 ? { kind: 'off' } : { kind: 'on', prefixes: [...new Set(prefixes)].sort() };
}

/** The host's labels whose key has a prefix in `prefixes` and a name after it. */
function labelsUnder(host: KObject, prefixes: readonly string[]): Record<string, string> {
  const entries = Object.entries(host.metadata.labels ?? {}).filter(([key]) => {
    const prefix = labelKeyPrefix(key);
    return prefixes.includes(prefix) && key.length > prefix.length + 1;
  });
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

export interface LabelSync {
  requests: RequestIntent[];
  /** For the Ready message: why nothing syncs, or how the last sync went; '' when off. */
  note: string;
}

function paused(ctx: MachineContext, host: KObject): boolean {
  return host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] !== undefined || ctx.metal3Cluster?.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
}

function outcomeNote(request: KObject): string {
  if (isInFlight(request)) return `label sync: ${request.metadata.name ?? ''} is running`;
  return `label sync: ${phaseOf(request)}${requestMessage(request) === '' ? '' : ` (${requestMessage(request)})`}`;
}

/** The SyncLabels request a ready machine asks for, if what the Node should carry changed. */
export function labelSync(ctx: MachineContext, host: KObject): LabelSync {
  const prefixes = syncPrefixes(ctx.metal3Cluster);
  if (prefixes.kind === 'off') return { requests: [], note: '' };
  if (prefixes.kind === 'invalid') return { requests: [], note: prefixes.error };
  const node = str(rec(rec(ctx.machine?.status).nodeRef).name);
  if (node === '') return { requests: [], note: "label sync waits for the Machine's status.nodeRef" };
  if (paused(ctx, host)) return { requests: [], note: 'label sync is paused (host or Metal3Cluster paused)' };
  const spec = {
    cluster: { name: ctx.clusterName },
    action: NodeAction.SyncLabels,
    node: { name: node },
    syncLabels: { prefixes: prefixes.prefixes, labels: labelsUnder(host, prefixes.prefixes) },
  };
  const latest = latestRequest(ctx, Purpose.LabelSync);
  // One at a time: a change while a sync runs is asked for once it has finished.
  if (latest !== undefined && (isInFlight(latest) || canonicalJSON(latest.spec) === canonicalJSON(spec))) return { requests: [], note: outcomeNote(latest) };
  return { requests: [{ kind: 'NodeOperation', purpose: Purpose.LabelSync, spec }], note: `label sync of Node ${node} requested` };
}
