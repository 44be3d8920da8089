// The Metal3Machine hooks: customize names the related objects, sync and finalize run the state
// table (hooks/metal3machine/states.ts) and commit once.
import { CAPI_V1BETA2, CLUSTER_NAME_LABEL, CapiKind, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse, RelatedResourceRule } from '../../domain/metacontroller.js';
import { labelValue } from '../../domain/naming.js';
import { DATA_CLAIM_LABEL, Resource } from '../../domain/metal3data/types.js';
import { parseComposite, parseCustomize, relatedRule, relatedType } from '../kit/index.js';
import { commit } from './commit.js';
import { readContext } from './context.js';
import { runStates } from './states.js';

/** What metal3machineCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3MACHINE_RELATED = {
  hosts: relatedType('metal3.io/v1alpha1', 'baremetalhosts'),
  metal3Clusters: relatedType(INFRA_V1BETA2, 'metal3clusters'),
  metal3Datas: relatedType(INFRA_V1BETA2, Resource.Metal3Data),
  machines: relatedType(CAPI_V1BETA2, 'machines'),
  clusters: relatedType(CAPI_V1BETA2, 'clusters'),
  templates: relatedType(INFRA_V1BETA2, 'metal3machinetemplates'),
  machineSets: relatedType(CAPI_V1BETA2, 'machinesets'),
};

/**
 * Objects found from the machine itself: its cluster's Machines and MachineSets (by label, not by
 * the owner's name: Cluster API adds the owner reference after creating the machine, which does
 * not change its generation, and Metacontroller caches a customize answer per generation), the
 * Cluster and the namespace's Metal3MachineTemplates (the MachineSet names the template, which the
 * customize request cannot see).
 */
function namedRules(m3m: KObject): RelatedResourceRule[] {
  const namespace = m3m.metadata.namespace ?? '';
  const cluster = m3m.metadata.labels?.[CLUSTER_NAME_LABEL] ?? '';
  const byCluster = cluster === '' ? {} : { labelSelector: { matchLabels: { [CLUSTER_NAME_LABEL]: cluster } } };
  const rules: RelatedResourceRule[] = [
    relatedRule(METAL3MACHINE_RELATED.machines, namespace, byCluster),
    relatedRule(METAL3MACHINE_RELATED.machineSets, namespace, byCluster),
    relatedRule(METAL3MACHINE_RELATED.templates, namespace),
  ];
  if (cluster !== '') rules.push(relatedRule(METAL3MACHINE_RELATED.clusters, namespace, { names: [cluster] }));
  return rules;
}

export function metal3machineSync(request: unknown): CompositeSyncResponse {
  const ctx = readContext(parseComposite(request, CapiKind.Metal3Machine));
  return commit(ctx, runStates(ctx));
}

/** Related: owner Machine and its MachineSet, Cluster, the namespace's Metal3Clusters, hosts and templates, its Metal3Data. */
export function metal3machineCustomize(request: unknown): CustomizeResponse {
  const { parent: m3m } = parseCustomize(request, CapiKind.Metal3Machine);
  const namespace = m3m.metadata.namespace ?? '';
  const name = m3m.metadata.name ?? '';
  const rules: RelatedResourceRule[] = [
    relatedRule(METAL3MACHINE_RELATED.hosts, namespace),
    relatedRule(METAL3MACHINE_RELATED.metal3Clusters, namespace),
    relatedRule(METAL3MACHINE_RELATED.metal3Datas, namespace, { labelSelector: { matchLabels: { [DATA_CLAIM_LABEL]: labelValue(name) } } }),
  ];
  return { relatedResources: [...rules, ...namedRules(m3m)] };
}
