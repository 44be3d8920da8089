// BareMetalHost decorator requests for the remediation power-off annotation (route
// metal3remediation-power), shared by test/unit/m3r-power.test.ts and the fixtures.
import type { KObject } from '../../../domain/k8s.js';
import { machine, objectMap } from './builders.js';
import { host, m3mFor, remediation, type World } from './remediation-rows.js';

export interface PowerWorld extends World {
  remediationPhase?: string;
  noRemediation?: boolean;
  remediationDeleting?: boolean;
  extraAnnotations?: Record<string, string>;
  otherHost?: boolean;
}

export function powerRequest(w: PowerWorld): Record<string, unknown> {
  const target = host({ ...w, hostAnnotations: { ...w.extraAnnotations } });
  const object = w.otherHost === true ? { ...target, metadata: { ...target.metadata, name: 'host-9', uid: 'uid-baremetalhost-host-9' } } : target;
  const related: KObject[] = [machine('worker-0', { infra: 'worker-0-m3m' }), m3mFor(w)];
  if (w.noRemediation !== true) {
    related.push(remediation({ ...w, phase: w.remediationPhase, deleting: w.remediationDeleting }));
  }
  return {
    controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'DecoratorController', metadata: { name: 'ironhook-remediation-power' }, spec: {} },
    object,
    attachments: {},
    related: objectMap(related, [
      'Metal3Remediation.infrastructure.cluster.x-k8s.io/v1beta2',
      'Machine.cluster.x-k8s.io/v1beta2',
      'Metal3Machine.infrastructure.cluster.x-k8s.io/v1beta2',
    ]),
    finalizing: false,
  };
}
