// v1beta1 ↔ v1beta2 for Metal3Cluster and Metal3ClusterTemplate: failureDomains
// map ↔ list sorted by name (controlPlane only when true; another list order is kept), noCloudProvider (v1beta1 only) as the
// inverse of cloudProviderEnabled, the contract status moves. Whatever one version cannot
// say (an explicit controlPlane: false, which of the two cloud-provider fields was written) is
// kept in the conversion annotation.
import { isRecord, type Kept, type KindConverter } from '../capi/conversion.js';
import { CONTRACT_V1BETA1_ONLY, CONTRACT_V1BETA2_ONLY, contractStatusMoves, moveStep } from './moves.js';
import { Capm3Kind, rec, stepConverter, templateMetadataStep, templateStep, type ConversionStep, type Rec } from './types.js';

function domainEntry(name: string, domain: Rec): Rec {
  const entry: Rec = { name };
  if (domain.controlPlane === true) entry.controlPlane = true;
  if (domain.attributes !== undefined) entry.attributes = domain.attributes;
  return entry;
}

/** Names of the failure domains that say controlPlane: false explicitly (lost in the other version). */
function explicitFalse(domains: readonly [string, Rec][]): string[] {
  return domains.filter(([, d]) => d.controlPlane === false).map(([name]) => name);
}

/** An explicit controlPlane: false an earlier conversion kept, back on a domain that says nothing. */
function restoreFalse(domain: Rec, name: string, names: unknown): void {
  if (Array.isArray(names) && names.includes(name) && domain.controlPlane === undefined) domain.controlPlane = false;
}

/** Sorted by name, unless an earlier conversion kept another order of exactly these names. */
function listOrder(names: string[], kept: unknown): string[] {
  const sorted = [...names].sort();
  const order = Array.isArray(kept) ? kept.filter((n): n is string => typeof n === 'string') : [];
  const same = order.length === sorted.length && [...order].sort().every((n, i) => n === sorted[i]);
  return same ? order : sorted;
}

function domainsToList(holder: Rec | undefined, key: string, kept: Kept, restore: Kept): void {
  const map = rec(holder?.failureDomains);
  if (holder === undefined || map === undefined) return;
  const domains = listOrder(Object.keys(map), restore[`${key}.order`]).map((name): [string, Rec] => [name, rec(map[name]) ?? {}]);
  holder.failureDomains = domains.map(([name, d]) => {
    const entry = domainEntry(name, d);
    restoreFalse(entry, name, restore[`${key}.controlPlaneFalse`]);
    return entry;
  });
  const falses = explicitFalse(domains);
  if (falses.length > 0) kept[`${key}.controlPlaneFalse`] = falses;
}

function domainsToMap(holder: Rec | undefined, key: string, kept: Kept, restore: Kept): void {
  if (holder === undefined || !Array.isArray(holder.failureDomains)) return;
  const domains = holder.failureDomains.filter(isRecord).map((d): [string, Rec] => [String(d.name), d]);
  const map: Record<string, Rec> = {};
  for (const [name, d] of domains) {
    const entry = domainEntry(name, d);
    Reflect.deleteProperty(entry, 'name');
    restoreFalse(entry, name, restore[`${key}.controlPlaneFalse`]);
    map[name] = entry;
  }
  holder.failureDomains = map;
  const falses = explicitFalse(domains);
  if (falses.length > 0) kept[`${key}.controlPlaneFalse`] = falses;
  const names = domains.map(([name]) => name);
  if (names.some((name, i) => i > 0 && (names[i - 1] ?? '') > name)) kept[`${key}.order`] = names;
}

const FAILURE_DOMAIN_HOLDERS = ['spec', 'status'] as const;

const failureDomainsStep: ConversionStep = {
  up(body, kept, restore) {
    for (const part of FAILURE_DOMAIN_HOLDERS) domainsToList(rec(body[part]), `${part}.failureDomains`, kept, restore);
  },
  down(body, kept, restore) {
    for (const part of FAILURE_DOMAIN_HOLDERS) domainsToMap(rec(body[part]), `${part}.failureDomains`, kept, restore);
  },
};

function optionalBool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** What v1beta2 makes of v1beta1's pair: the field as written, else noCloudProvider's inverse, else v1beta1's default true. */
function enabledFromV1beta1(enabled: boolean | undefined, noCloud: boolean | undefined): boolean {
  return enabled ?? (noCloud === undefined ? true : !noCloud);
}

function setOptional(spec: Rec, field: string, value: boolean | undefined): void {
  if (value === undefined) Reflect.deleteProperty(spec, field);
  else spec[field] = value;
}

/** A kept v1beta1 field: null says it was absent, a boolean is its value, undefined means nothing was kept. */
function keptBool(restore: Kept, field: string): boolean | null | undefined {
  if (!(field in restore)) return undefined;
  const value = restore[field];
  return typeof value === 'boolean' ? value : null;
}

function cloudProviderUp(spec: Rec, kept: Kept, restore: Kept): void {
  const enabled = optionalBool(spec.cloudProviderEnabled);
  const noCloud = optionalBool(spec.noCloudProvider);
  delete spec.noCloudProvider;
  // A v1beta2 object without the field went down as neither field; it comes back without it.
  const absentBefore = enabled === undefined && noCloud === undefined && restore.cloudProviderEnabled === null;
  const derived = absentBefore ? undefined : enabledFromV1beta1(enabled, noCloud);
  setOptional(spec, 'cloudProviderEnabled', derived);
  if (derived === undefined) return;
  if (enabled === undefined) kept.cloudProviderEnabled = null;
  if (noCloud !== !derived) kept.noCloudProvider = noCloud ?? null;
}

/** v1beta1's pair for a v1beta2 value, from what an earlier up-conversion kept when it still fits. */
function v1beta1Pair(enabled: boolean, restore: Kept): [boolean | undefined, boolean | undefined] {
  const keptEnabled = keptBool(restore, 'cloudProviderEnabled');
  const keptNoCloud = keptBool(restore, 'noCloudProvider');
  const pair: [boolean | undefined, boolean | undefined] = [
    keptEnabled === null ? undefined : enabled,
    keptNoCloud === undefined ? !enabled : (keptNoCloud ?? undefined),
  ];
  return enabledFromV1beta1(...pair) === enabled ? pair : [enabled, !enabled];
}

function cloudProviderDown(spec: Rec, kept: Kept, restore: Kept): void {
  const enabled = optionalBool(spec.cloudProviderEnabled);
  if (enabled === undefined) {
    kept.cloudProviderEnabled = null;
    return;
  }
  const [v1Enabled, noCloud] = v1beta1Pair(enabled, restore);
  setOptional(spec, 'cloudProviderEnabled', v1Enabled);
  setOptional(spec, 'noCloudProvider', noCloud);
}

const cloudProviderStep: ConversionStep = {
  up(body, kept, restore) {
    const spec = rec(body.spec);
    if (spec !== undefined) cloudProviderUp(spec, kept, restore);
  },
  down(body, kept, restore) {
    const spec = rec(body.spec);
    if (spec !== undefined) cloudProviderDown(spec, kept, restore);
  },
};

const clusterStatusStep = moveStep({ moves: contractStatusMoves(), v1beta1Only: CONTRACT_V1BETA1_ONLY, v1beta2Only: CONTRACT_V1BETA2_ONLY });

const CLUSTER_SPEC_STEPS: readonly ConversionStep[] = [failureDomainsStep, cloudProviderStep];

export const metal3ClusterConverter: KindConverter = stepConverter(Capm3Kind.Metal3Cluster, [...CLUSTER_SPEC_STEPS, clusterStatusStep]);

export const metal3ClusterTemplateConverter: KindConverter = stepConverter(Capm3Kind.Metal3ClusterTemplate, [
  templateStep(CLUSTER_SPEC_STEPS),
  templateMetadataStep,
]);
