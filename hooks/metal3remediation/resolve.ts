// Which Machine, Metal3Machine and BareMetalHost a Metal3Remediation is about:
// the owner Machine (ownerReference, else the Machine of the same name, as MachineHealthCheck
// names it), the Metal3Machine in machine.spec.infrastructureRef.name, and the host named in the
// Metal3Machine's metal3.io/BareMetalHost annotation (namespace part ignored, as upstream) or
// whose spec.consumerRef names the Metal3Machine. Shared by the remediation hook and the
// power-off decorator.
import { BAREMETALHOST_ANNOTATION, CAPI_GROUP, CapiKind, INFRA_GROUP } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { ObjectMap } from '../../domain/metacontroller.js';
import { named, objectsOf, ownerOf, rec, str } from '../kit/index.js';

const BMH_GROUP = 'metal3.io';
/** The per-remediation phased-reboot annotation that keeps the host powered off (BMO semantics). */
export const POWER_OFF_PREFIX = 'reboot.metal3.io/metal3-remediation-';
export const POWER_OFF_VALUE = '{"mode":"hard"}';

export function powerOffAnnotation(remediationUid: string): string {
  return `${POWER_OFF_PREFIX}${remediationUid}`;
}

export interface Target {
  machine?: KObject;
  metal3Machine?: KObject;
  host?: KObject;
}

function ownerMachineName(remediation: KObject): string {
  return ownerOf(remediation, CapiKind.Machine, CAPI_GROUP)?.name ?? remediation.metadata.name ?? '';
}

/** Only references within the machine's namespace count: another namespace's host is never this machine's. */
function inNamespace(namespace: string, named: string): boolean {
  return named === '' || named === namespace;
}

function hostOf(m3m: KObject, hosts: readonly KObject[]): KObject | undefined {
  const namespace = m3m.metadata.namespace ?? '';
  const annotated = m3m.metadata.annotations?.[BAREMETALHOST_ANNOTATION] ?? '';
  const slash = annotated.indexOf('/');
  if (!inNamespace(namespace, slash < 0 ? '' : annotated.slice(0, slash))) return undefined;
  const name = annotated.slice(slash + 1);
  if (name !== '') return named(hosts, name);
  return hosts.find((host) => {
    const consumer = rec(rec(host.spec).consumerRef);
    return consumer.kind === CapiKind.Metal3Machine && consumer.name === m3m.metadata.name && inNamespace(namespace, str(consumer.namespace));
  });
}

/** Resolves as far as the related objects allow; missing links stay undefined. */
export function resolveTarget(remediation: KObject, related: ObjectMap): Target {
  const namespace = remediation.metadata.namespace ?? '';
  const machine = named(objectsOf(related, CapiKind.Machine, CAPI_GROUP, namespace), ownerMachineName(remediation));
  if (machine === undefined) return {};
  const m3mName = str(rec(rec(machine.spec).infrastructureRef).name);
  const metal3Machine = named(objectsOf(related, CapiKind.Metal3Machine, INFRA_GROUP, namespace), m3mName);
  if (metal3Machine === undefined) return { machine };
  const host = hostOf(metal3Machine, objectsOf(related, 'BareMetalHost', BMH_GROUP, namespace));
  return { machine, metal3Machine, ...(host && { host }) };
}
