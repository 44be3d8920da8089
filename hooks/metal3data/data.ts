// CompositeController `ironhook-metal3data`: parent Metal3Data, children its IPClaims, its Cluster
// API IPAddressClaims (when the controller declares them) and its rendered Secrets (all
// OnDelete), related its template, claim, Metal3Machine, BareMetalHost, Machine, the IPAddresses
// of its IPClaims, the namespace's Cluster API IPAddresses and same-named Secrets. Routes:
// /hooks/metal3data/{sync,finalize,customize}.
//
// Sync: Secrets that exist are kept and never rendered again; otherwise one claim per pool, then,
// once every pool has answered and the objects are known, metaData and networkData are rendered
// into the missing Secrets. `ready` is true once every Secret the template asks for exists.
// Finalize holds the data while its claim lives, then releases the claims (and Secrets) and
// finishes once the claims are gone.
import { CAPI_V1BETA2, INFRA_V1BETA2, PAUSED_ANNOTATION } from '../../domain/capi/types.js';
import { CAPI_IPAM_GROUP, IPAM_API_VERSION } from '../../domain/ipam/types.js';
import type { CompositeSyncResponse, CustomizeResponse, RelatedResourceRule } from '../../domain/metacontroller.js';
import { labelValue } from '../../domain/naming.js';
import { DATA_LABEL, Kind, RenderAnnotation, Resource, type Metal3DataStatus } from '../../domain/metal3data/types.js';
import { allClaims, heldAddresses, keepAll, readyStatus, secretState, statusOf, waiting, type DesiredData } from './data-children.js';
import { render } from './data-render.js';
import { capiApiVersionOf, claimNameOf, liveClaim, neededSecrets, readView, secretNames, templateNameOf, type DataView } from './data-view.js';
import { parseComposite, parseCustomize, rec, relatedRule, relatedType, str, versionOf, type RelatedType } from '../kit/index.js';

function byName(names: readonly string[]): string[] {
  return [...new Set(names.filter((n) => n !== ''))].sort();
}

/** What metal3dataCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3DATA_RELATED = {
  templates: relatedType(INFRA_V1BETA2, Resource.Metal3DataTemplate),
  claims: relatedType(INFRA_V1BETA2, Resource.Metal3DataClaim),
  metal3Machines: relatedType(INFRA_V1BETA2, 'metal3machines'),
  hosts: relatedType('metal3.io/v1alpha1', 'baremetalhosts'),
  machines: relatedType(CAPI_V1BETA2, 'machines'),
  addresses: relatedType(IPAM_API_VERSION, 'ipaddresses'),
  /**
   * Asked for in the version of the controller's IPAddressClaim children. The whole namespace:
   * an IPAM provider names the IPAddress (the contract says it should be the claim's name) and
   * labels it as it likes, and a customize hook sees neither the claims nor the template.
   */
  capiAddresses: { group: CAPI_IPAM_GROUP, resource: 'ipaddresses' } satisfies RelatedType,
  secrets: relatedType('v1', 'secrets'),
};

export function metal3dataCustomize(request: unknown): CustomizeResponse {
  const { controller, parent: data } = parseCustomize(request, Kind.Metal3Data);
  const capi = capiApiVersionOf(controller);
  const namespace = data.metadata.namespace ?? '';
  const annotations = data.metadata.annotations ?? {};
  const namedRule = (type: RelatedType, names: readonly (string | undefined)[]): RelatedResourceRule[] => {
    const present = byName(names.filter((name) => name !== undefined));
    return present.length === 0 ? [] : [relatedRule(type, namespace, { names: present })];
  };
  return {
    relatedResources: [
      ...namedRule(METAL3DATA_RELATED.templates, [templateNameOf(data)]),
      ...namedRule(METAL3DATA_RELATED.claims, [claimNameOf(data)]),
      ...namedRule(METAL3DATA_RELATED.metal3Machines, [annotations[RenderAnnotation.Metal3Machine]]),
      ...namedRule(METAL3DATA_RELATED.hosts, [annotations[RenderAnnotation.BareMetalHost]]),
      ...namedRule(METAL3DATA_RELATED.machines, [annotations[RenderAnnotation.Machine]]),
      relatedRule(METAL3DATA_RELATED.addresses, namespace, { labelSelector: { matchLabels: { [DATA_LABEL]: labelValue(data.metadata.name ?? '') } } }),
      ...(capi === undefined ? [] : [relatedRule(METAL3DATA_RELATED.capiAddresses, namespace, {}, versionOf(capi))]),
      ...namedRule(METAL3DATA_RELATED.secrets, Object.values(secretNames(data))),
    ],
  };
}

/** Ironhook's rule: every reference stays in the data's namespace (an empty namespace means that one). */
function crossNamespaceError(v: DataView): string | undefined {
  const namespace = v.data.metadata.namespace ?? '';
  const spec = rec(v.data.spec);
  const foreign = (['template', 'claim', 'metaData', 'networkData'] as const).flatMap((field) => {
    const named = str(rec(spec[field]).namespace);
    return named !== '' && named !== namespace ? [`spec.${field}.namespace ${named}`] : [];
  });
  if (foreign.length === 0) return undefined;
  return `${foreign.join(', ')} differs from the Metal3Data's namespace ${namespace}: cross-namespace references are not allowed`;
}

function reconcile(v: DataView): DesiredData {
  const foreign = crossNamespaceError(v);
  if (foreign !== undefined) return { children: keepAll(v), status: { errorMessage: foreign, ...statusOf(v, false) } };
  if (v.template === undefined) return waiting(v, `Metal3DataTemplate ${templateNameOf(v.data)}`);
  const needed = neededSecrets(v);
  if (needed.some((s) => s.name === '')) return waiting(v, 'the Metal3Machine name (annotation ironhook.dev/metal3machine)');
  const states = needed.map((s) => secretState(v, s));
  const blocked = states.find((s) => s.kind === 'blocked');
  if (blocked !== undefined) return waiting(v, blocked.reason);
  if (states.every((s) => s.kind !== 'missing')) return { children: keepAll(v), status: readyStatus(v) };
  return render(v, needed, states);
}

/**
 * Paused: every child kept and the status as it is, except addresses its IPClaim children hold
 * that it does not show yet. A composite hook cannot leave the status alone, and the parent may be
 * one status write behind its children (Metacontroller's cache), so the observed status echoed
 * as is would write an older one back.
 */
function paused(v: DataView): DesiredData {
  const old = rec(v.data.status);
  const status = Object.fromEntries(Object.entries(old).filter(([key]) => key !== 'observedGeneration')) as Metal3DataStatus;
  const shown = status.ironhook?.addresses ?? {};
  const held = heldAddresses(v) ?? {};
  if (Object.entries(held).every(([pool, address]) => shown[pool] === address)) return { children: keepAll(v), status };
  return { children: keepAll(v), status: { ...status, ironhook: { ...status.ironhook, addresses: { ...shown, ...held } } } };
}

function releaseWait(v: DataView): string {
  const counts = [
    [v.ipClaims.length, 'IPClaim(s)'],
    [v.capiClaims.length, 'IPAddressClaim(s)'],
  ] as const;
  const parts = counts.filter(([n]) => n > 0).map(([n, what]) => `${String(n)} ${what}`);
  return `${parts.join(' and ')} to release their addresses`;
}

function respond(desired: DesiredData): CompositeSyncResponse {
  return { children: desired.children, status: desired.status };
}

export function metal3dataSync(request: unknown): CompositeSyncResponse {
  const v = readView(parseComposite(request, Kind.Metal3Data));
  if (v.data.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined) return respond(paused(v));
  return respond(reconcile(v));
}

/**
 * While the claim lives the data is in use (upstream's finalizer holds it, #1356): everything is
 * kept. Then the claims and Secrets are dropped (Metacontroller deletes them, the pools free the
 * addresses) and the finalizer goes once no IPClaim or IPAddressClaim is left.
 */
export function metal3dataFinalize(request: unknown): CompositeSyncResponse {
  const v = readView(parseComposite(request, Kind.Metal3Data));
  const claim = liveClaim(v);
  if (claim !== undefined) {
    const held = waiting(v, `Metal3DataClaim ${claim.metadata.name ?? ''} to be deleted (the data is in use)`, rec(v.data.status).ready === true);
    return { ...respond(held), finalized: false };
  }
  const claims = allClaims(v);
  const finalized = claims.length === 0;
  const status: Metal3DataStatus = finalized ? { ready: false } : { ready: false, ironhook: { waitingFor: releaseWait(v) } };
  return { children: [], finalized, status };
}
