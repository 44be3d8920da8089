// CompositeController `ironhook-metal3dataclaim`: parent Metal3DataClaim, no children, related
// its Metal3DataTemplate (by name), its Metal3Data (by the ironhook.dev/metal3dataclaim label)
// and its owner Metal3Machine (by name). Routes: /hooks/metal3dataclaim/{sync,finalize,customize}.
//
// The status points at the claim's Metal3Data (upstream's `renderedData`) and, in Ironhook's
// block, names the objects the data is rendered from: the Metal3Machine, the BareMetalHost in
// its metal3.io/BareMetalHost annotation and its owner Machine. The template hook creates the
// Metal3Data once all three are known. The finalizer holds a deleted claim until its data is
// being deleted, so the index and addresses are released before the claim disappears.
import { BAREMETALHOST_ANNOTATION, CAPI_GROUP, CapiKind, INFRA_GROUP, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse, RelatedResourceRule } from '../../domain/metacontroller.js';
import { labelValue } from '../../domain/naming.js';
import { DATA_CLAIM_LABEL, Kind, Resource, type ClaimSources, type Metal3DataClaimStatus } from '../../domain/metal3data/types.js';
import {
  isDeleting,
  named,
  objectsOf,
  ownerOf,
  parseComposite,
  parseCustomize,
  rec,
  relatedRule,
  relatedType,
  str,
  type CompositeRequest,
} from '../kit/index.js';

function templateName(claim: KObject): string {
  return str(rec(rec(claim.spec).template).name);
}

function templateNamespaceError(claim: KObject): string | undefined {
  const namespace = str(rec(rec(claim.spec).template).namespace);
  if (namespace === '' || namespace === claim.metadata.namespace) return undefined;
  return `spec.template.namespace ${namespace} differs from the claim's namespace; cross-namespace templates are not allowed`;
}

function metal3MachineName(claim: KObject): string {
  return ownerOf(claim, CapiKind.Metal3Machine, INFRA_GROUP)?.name ?? '';
}

/** What metal3dataclaimCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3DATACLAIM_RELATED = {
  datas: relatedType(INFRA_V1BETA2, Resource.Metal3Data),
  templates: relatedType(INFRA_V1BETA2, Resource.Metal3DataTemplate),
  metal3Machines: relatedType(INFRA_V1BETA2, 'metal3machines'),
};

export function metal3dataclaimCustomize(request: unknown): CustomizeResponse {
  const { parent: claim } = parseCustomize(request, Kind.Metal3DataClaim);
  const namespace = claim.metadata.namespace ?? '';
  const rules: RelatedResourceRule[] = [
    relatedRule(METAL3DATACLAIM_RELATED.datas, namespace, { labelSelector: { matchLabels: { [DATA_CLAIM_LABEL]: labelValue(claim.metadata.name ?? '') } } }),
  ];
  const template = templateName(claim);
  if (template !== '') rules.push(relatedRule(METAL3DATACLAIM_RELATED.templates, namespace, { names: [template] }));
  const machine = metal3MachineName(claim);
  if (machine !== '') rules.push(relatedRule(METAL3DATACLAIM_RELATED.metal3Machines, namespace, { names: [machine] }));
  return { relatedResources: rules };
}

/** The claim's Metal3Data (live one first): same claim name and, when recorded, the claim's UID. */
function dataOf(c: CompositeRequest): KObject | undefined {
  const uid = c.parent.metadata.uid;
  const mine = objectsOf(c.related, Kind.Metal3Data, INFRA_GROUP, c.namespace).filter((data) => {
    const owner = ownerOf(data, Kind.Metal3DataClaim, INFRA_GROUP);
    const sameClaim = str(rec(rec(data.spec).claim).name) === c.parent.metadata.name;
    return sameClaim && (owner === undefined || uid === undefined || owner.uid === uid);
  });
  return mine.find((data) => !isDeleting(data)) ?? mine[0];
}

/** `<namespace>/<name>` in the annotation; the namespace part is ignored (always the machine's). */
function hostName(m3m: KObject): string {
  const value = m3m.metadata.annotations?.[BAREMETALHOST_ANNOTATION] ?? '';
  return value.slice(value.indexOf('/') + 1);
}

/** The objects the data is rendered from, or what is still missing. */
function claimSources(c: CompositeRequest): ClaimSources {
  const m3mName = metal3MachineName(c.parent);
  if (m3mName === '') return { waitingFor: 'a Metal3Machine owner reference on the claim' };
  const m3m = named(objectsOf(c.related, CapiKind.Metal3Machine, INFRA_GROUP, c.namespace), m3mName);
  if (m3m === undefined) return { metal3Machine: m3mName, waitingFor: `Metal3Machine ${m3mName}` };
  const sources: ClaimSources = { metal3Machine: m3mName };
  const host = hostName(m3m);
  const machine = ownerOf(m3m, CapiKind.Machine, CAPI_GROUP)?.name ?? '';
  if (host !== '') sources.bareMetalHost = host;
  if (machine !== '') sources.machine = machine;
  if (host === '') sources.waitingFor = `Metal3Machine ${m3mName} to be associated with a BareMetalHost`;
  else if (machine === '') sources.waitingFor = `Metal3Machine ${m3mName} to be owned by a Machine`;
  return sources;
}

function claimStatus(c: CompositeRequest, data: KObject | undefined): Metal3DataClaimStatus {
  const status: Metal3DataClaimStatus = {};
  const error = templateNamespaceError(c.parent);
  if (error !== undefined) return { errorMessage: error };
  if (data !== undefined && !isDeleting(data)) status.renderedData = { name: data.metadata.name ?? '', namespace: c.namespace };
  const sources = claimSources(c);
  const template = templateName(c.parent);
  if (sources.waitingFor === undefined && named(objectsOf(c.related, Kind.Metal3DataTemplate, INFRA_GROUP, c.namespace), template) === undefined) {
    sources.waitingFor = `Metal3DataTemplate ${template}`;
  }
  status.ironhook = sources;
  return status;
}

export function metal3dataclaimSync(request: unknown): CompositeSyncResponse {
  const c = parseComposite(request, Kind.Metal3DataClaim);
  return { children: [], status: claimStatus(c, dataOf(c)) };
}

/** Finalized once the claim's Metal3Data is gone or being deleted (it then releases what it holds). */
export function metal3dataclaimFinalize(request: unknown): CompositeSyncResponse {
  const c = parseComposite(request, Kind.Metal3DataClaim);
  const data = dataOf(c);
  const finalized = data === undefined || isDeleting(data);
  const status = claimStatus(c, data);
  if (!finalized) status.ironhook = { ...status.ironhook, waitingFor: `the template to release Metal3Data ${data.metadata.name ?? ''}` };
  return { children: [], finalized, status };
}
