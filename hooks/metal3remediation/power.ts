// DecoratorController `ironhook-remediation-power` on BareMetalHosts (route
// metal3remediation-power): the annotation reboot.metal3.io/metal3-remediation-<uid> =
// {"mode":"hard"} is on a host exactly while a Metal3Remediation in phase Running targets it.
// The BareMetalHost hook treats it as a phased reboot: the host stays off while it is there and
// powers on (spec.online) when it goes (hooks/baremetalhost/power.ts). Related: the namespace's
// Metal3Remediations, Machines and Metal3Machines, to find each remediation's host.
import { CAPI_V1BETA2, INFRA_GROUP, INFRA_V1BETA2 } from '../../domain/capi/types.js';
import { Capm3Kind, RemediationPhase } from '../../domain/capm3/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CustomizeResponse, DecoratorSyncResponse, ObjectMap } from '../../domain/metacontroller.js';
import { decoratorTarget, isDeleting, isRecord, objectsOf, rec, relatedRule, relatedType, str } from '../kit/index.js';
import { POWER_OFF_PREFIX, POWER_OFF_VALUE, powerOffAnnotation, resolveTarget } from './resolve.js';

/** What remediationPowerCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const REMEDIATION_POWER_RELATED = {
  remediations: relatedType(INFRA_V1BETA2, 'metal3remediations'),
  machines: relatedType(CAPI_V1BETA2, 'machines'),
  metal3Machines: relatedType(INFRA_V1BETA2, 'metal3machines'),
};

export function remediationPowerCustomize(request: unknown): CustomizeResponse {
  const namespace = decoratorTarget(request, 'parent', 'BareMetalHost').metadata.namespace ?? '';
  return { relatedResources: Object.values(REMEDIATION_POWER_RELATED).map((type) => relatedRule(type, namespace)) };
}

/** Annotation keys this host should carry: one per Running, not deleted remediation aimed at it. */
function wanted(host: KObject, related: ObjectMap): Set<string> {
  const keys = new Set<string>();
  const withHost = { ...related, [`BareMetalHost.${host.apiVersion}`]: { [`${host.metadata.namespace ?? ''}/${host.metadata.name ?? ''}`]: host } };
  for (const remediation of objectsOf(related, Capm3Kind.Metal3Remediation, INFRA_GROUP, host.metadata.namespace ?? '')) {
    if (str(rec(remediation.status).phase) !== RemediationPhase.Running || isDeleting(remediation)) continue;
    if (resolveTarget(remediation, withHost).host?.metadata.uid !== host.metadata.uid) continue;
    keys.add(powerOffAnnotation(remediation.metadata.uid ?? ''));
  }
  return keys;
}

export function remediationPowerSync(request: unknown): DecoratorSyncResponse {
  const host = decoratorTarget(request, 'object', 'BareMetalHost');
  const related = isRecord(request) && isRecord(request.related) ? (request.related as ObjectMap) : {};
  const present = host.metadata.annotations ?? {};
  const keys = wanted(host, related);
  const changes: Record<string, string | null> = {};
  for (const key of [...keys].sort()) {
    if (present[key] !== POWER_OFF_VALUE) changes[key] = POWER_OFF_VALUE;
  }
  for (const key of Object.keys(present).sort()) {
    if (key.startsWith(POWER_OFF_PREFIX) && !keys.has(key)) changes[key] = null;
  }
  return { attachments: [], status: null, ...(Object.keys(changes).length > 0 && { annotations: changes }) };
}
