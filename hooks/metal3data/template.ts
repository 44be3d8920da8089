// CompositeController `ironhook-metal3datatemplate`: parent Metal3DataTemplate, children its
// Metal3Datas (OnDelete: index, template and claim are immutable), related the namespace's
// Metal3DataClaims. Routes: /hooks/metal3datatemplate/{sync,finalize,customize}.
//
// Each claim that references the template gets a Metal3Data `<template>-<index>` with the
// lowest free index once the claim's own hook has found its Metal3Machine, host and Machine
// (they are written onto the Metal3Data, fixed for its life, so its hook can ask for them by
// name). Existing children are the memory: an index never moves while its claim lives.
import { copiedLabels, INFRA_GROUP, INFRA_V1BETA2, PAUSED_ANNOTATION, CapiKind } from '../../domain/capi/types.js';
import type { KObject, OwnerReference } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse } from '../../domain/metacontroller.js';
import { labelValue } from '../../domain/naming.js';
import { indexEntries, planIndexes, type Assignment, type ClaimInfo, type DataInfo } from '../../domain/metal3data/indexes.js';
import { DATA_CLAIM_LABEL, Kind, RenderAnnotation, Resource, type ClaimSources, type IndexEntry } from '../../domain/metal3data/types.js';
import {
  echoChild,
  isDeleting,
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

const RENDER_ANNOTATIONS = Object.values(RenderAnnotation);

/** What metal3datatemplateCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3DATATEMPLATE_RELATED = {
  claims: relatedType(INFRA_V1BETA2, Resource.Metal3DataClaim),
};

export function metal3datatemplateCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, Kind.Metal3DataTemplate);
  return { relatedResources: [relatedRule(METAL3DATATEMPLATE_RELATED.claims, parent.metadata.namespace ?? '')] };
}

interface ClaimView {
  obj: KObject;
  info: ClaimInfo;
  sources: Required<Pick<ClaimSources, 'metal3Machine' | 'bareMetalHost' | 'machine'>>;
}

function claimView(obj: KObject): ClaimView {
  const found = rec(rec(obj.status).ironhook);
  const sources = { metal3Machine: str(found.metal3Machine), bareMetalHost: str(found.bareMetalHost), machine: str(found.machine) };
  const ready = sources.metal3Machine !== '' && sources.bareMetalHost !== '' && sources.machine !== '';
  const info: ClaimInfo = { name: obj.metadata.name ?? '', created: obj.metadata.creationTimestamp ?? '', deleting: isDeleting(obj), ready };
  if (obj.metadata.uid !== undefined) info.uid = obj.metadata.uid;
  return { obj, info, sources };
}

function referencesTemplate(claim: KObject, template: KObject): boolean {
  const ref = rec(rec(claim.spec).template);
  const namespace = str(ref.namespace);
  return str(ref.name) === template.metadata.name && (namespace === '' || namespace === template.metadata.namespace);
}

function claimsOf(c: CompositeRequest): ClaimView[] {
  return objectsOf(c.related, Kind.Metal3DataClaim, INFRA_GROUP, c.namespace)
    .filter((claim) => referencesTemplate(claim, c.parent))
    .map(claimView);
}

function dataInfo(obj: KObject): DataInfo | undefined {
  const spec = rec(obj.spec);
  const index = spec.index ?? 0;
  const claimName = str(rec(spec.claim).name);
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || claimName === '') return undefined;
  const info: DataInfo = { name: obj.metadata.name ?? '', index, claimName, created: obj.metadata.creationTimestamp ?? '', deleting: isDeleting(obj) };
  const uid = ownerOf(obj, Kind.Metal3DataClaim, INFRA_GROUP)?.uid;
  if (uid !== undefined) info.claimUid = uid;
  return info;
}

function dataChildren(c: CompositeRequest): { obj: KObject; info: DataInfo }[] {
  return objectsOf(c.children, Kind.Metal3Data, INFRA_GROUP, c.namespace).flatMap((obj) => {
    const info = dataInfo(obj);
    return info === undefined ? [] : [{ obj, info }];
  });
}

function owners(claim: KObject): OwnerReference[] {
  const refs: OwnerReference[] = [];
  if (claim.metadata.uid !== undefined) {
    refs.push({ apiVersion: claim.apiVersion, kind: Kind.Metal3DataClaim, name: claim.metadata.name ?? '', uid: claim.metadata.uid });
  }
  const machine = ownerOf(claim, CapiKind.Metal3Machine, INFRA_GROUP);
  if (machine !== undefined) refs.push({ apiVersion: machine.apiVersion, kind: machine.kind, name: machine.name, uid: machine.uid });
  return refs;
}

/** A new Metal3Data: upstream's spec, the claim's labels, and the rendering's sources. */
function newData(template: KObject, claim: ClaimView, index: number): KObject {
  const namespace = template.metadata.namespace ?? '';
  const spec = rec(template.spec);
  const secret = (suffix: string): { name: string; namespace: string } => ({ name: `${claim.sources.metal3Machine}-${suffix}`, namespace });
  const refs = owners(claim.obj);
  return {
    apiVersion: INFRA_V1BETA2,
    kind: Kind.Metal3Data,
    metadata: {
      name: `${template.metadata.name ?? ''}-${String(index)}`,
      labels: { ...copiedLabels(claim.obj.metadata.labels), [DATA_CLAIM_LABEL]: labelValue(claim.info.name) },
      annotations: {
        [RenderAnnotation.BareMetalHost]: claim.sources.bareMetalHost,
        [RenderAnnotation.Machine]: claim.sources.machine,
        [RenderAnnotation.Metal3Machine]: claim.sources.metal3Machine,
      },
      ...(refs.length > 0 && { ownerReferences: refs }),
    },
    spec: {
      claim: { name: claim.info.name, namespace },
      index,
      ...(spec.metaData !== undefined && { metaData: secret('metadata') }),
      ...(spec.networkData !== undefined && { networkData: secret('networkdata') }),
      template: { name: template.metadata.name ?? '', namespace },
    },
  };
}

interface Planned {
  children: KObject[];
  indexes: IndexEntry[];
  observed: number;
  liveClaims: string[];
}

function childFor(assignment: Assignment, c: CompositeRequest, claims: Map<string, ClaimView>, observed: Map<string, KObject>): KObject | undefined {
  const existing = assignment.data === undefined ? undefined : observed.get(assignment.data.name);
  if (existing !== undefined) return echoChild(existing, ['spec'], RENDER_ANNOTATIONS);
  const claim = claims.get(assignment.claim);
  return claim?.info.ready === true ? newData(c.parent, claim, assignment.index) : undefined;
}

function plan(c: CompositeRequest): Planned {
  const claims = claimsOf(c);
  const datas = dataChildren(c);
  const lastUpdated = str(rec(c.parent.status).lastUpdated);
  const committed = { entries: committedIndexes(c.parent), ...(lastUpdated !== '' && { lastUpdated }) };
  const result = planIndexes(
    claims.map((v) => v.info),
    datas.map((d) => d.info),
    committed,
  );
  const byClaim = new Map(claims.map((v) => [v.info.name, v]));
  const observed = new Map(datas.map((d) => [d.info.name, d.obj]));
  const kept: Assignment[] = [];
  const children: KObject[] = [];
  for (const assignment of result.assignments) {
    const child = childFor(assignment, c, byClaim, observed);
    if (child === undefined) continue;
    kept.push(assignment);
    children.push(child);
  }
  const liveClaims = claims.filter((v) => !v.info.deleting).map((v) => v.info.name);
  return {
    children,
    indexes: indexEntries({ assignments: kept }),
    observed: objectsOf(c.children, Kind.Metal3Data, INFRA_GROUP, c.namespace).length,
    liveClaims,
  };
}

function committedIndexes(template: KObject): IndexEntry[] {
  const list = rec(template.status).indexes;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    const e = rec(entry);
    return typeof e.index === 'number' && typeof e.name === 'string' ? [{ index: e.index, name: e.name }] : [];
  });
}

/** The newest timestamp among the template, its claims and its data (no clock is read). */
function lastUpdated(c: CompositeRequest): string | undefined {
  const stamps = [c.parent.metadata.creationTimestamp, str(rec(c.parent.status).lastUpdated)];
  for (const obj of [...claimsOf(c).map((v) => v.obj), ...objectsOf(c.children, Kind.Metal3Data, INFRA_GROUP, c.namespace)]) {
    stamps.push(obj.metadata.creationTimestamp, obj.metadata.deletionTimestamp);
  }
  return stamps
    .filter((s): s is string => s !== undefined && s !== '')
    .sort()
    .at(-1);
}

function status(c: CompositeRequest, indexes: IndexEntry[]): Record<string, unknown> {
  const updated = lastUpdated(c);
  return { indexes, ...(updated !== undefined && { lastUpdated: updated }) };
}

/**
 * The status a paused template answers: the observed one, unless its children hold indexes it
 * does not record. A composite hook cannot leave the status alone, and the parent may be one
 * status write behind its children (Metacontroller's cache), so echoing it would drop them.
 */
function pausedStatus(c: CompositeRequest): Record<string, unknown> {
  const old = Object.fromEntries(Object.entries(rec(c.parent.status)).filter(([key]) => key !== 'observedGeneration'));
  const recorded = committedIndexes(c.parent);
  const known = new Set(recorded.map((entry) => entry.index));
  const missing = dataChildren(c).filter(({ info }) => !info.deleting && !known.has(info.index));
  if (missing.length === 0) return old;
  const indexes = [...recorded, ...missing.map(({ info }) => ({ index: info.index, name: info.claimName }))].sort((a, b) => a.index - b.index);
  const updated = lastUpdated(c);
  return { ...old, indexes, ...(updated !== undefined && { lastUpdated: updated }) };
}

/** Paused (cluster.x-k8s.io/paused): keep every child, and the status unless it is behind them. */
function paused(c: CompositeRequest): CompositeSyncResponse {
  const children = objectsOf(c.children, Kind.Metal3Data, INFRA_GROUP, c.namespace).map((obj) => echoChild(obj, ['spec'], RENDER_ANNOTATIONS));
  return { children, status: pausedStatus(c) };
}

function isPaused(template: KObject): boolean {
  return template.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
}

export function metal3datatemplateSync(request: unknown): CompositeSyncResponse {
  const c = parseComposite(request, Kind.Metal3DataTemplate);
  if (isPaused(c.parent)) return paused(c);
  const planned = plan(c);
  return { children: planned.children, status: status(c, planned.indexes) };
}

/** Deletion waits while claims use the template and until every Metal3Data is gone. */
export function metal3datatemplateFinalize(request: unknown): CompositeSyncResponse {
  const c = parseComposite(request, Kind.Metal3DataTemplate);
  if (isPaused(c.parent)) return { ...paused(c), finalized: false };
  const planned = plan(c);
  const finalized = planned.observed === 0 && planned.liveClaims.length === 0;
  return { children: finalized ? [] : planned.children, finalized, status: status(c, planned.indexes) };
}
