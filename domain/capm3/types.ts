// The Cluster API provider kinds: names, finalizers, the
// remediation enums and the building blocks their v1beta1 ↔ v1beta2 converters share.
import { type Body, type Converted, type Kept, type KindConverter } from '../capi/conversion.js';
import { INFRA_GROUP } from '../capi/types.js';
import { asRecord as rec } from '../records.js';
import type { Metal3ClusterSpec, Metal3ClusterStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3cluster.js';
import type { Metal3MachineSpec, Metal3MachineStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3machine.js';
import type { Metal3MachineTemplateSpec } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3machinetemplate.js';
import type { Metal3RemediationSpec, Metal3RemediationStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3remediation.js';
import type {
  Metal3RemediationTemplateSpec,
  Metal3RemediationTemplateStatus,
} from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3remediationtemplate.js';
import type { TypedObject } from '../k8s.js';

export const Capm3Kind = {
  Metal3Cluster: 'Metal3Cluster',
  Metal3ClusterTemplate: 'Metal3ClusterTemplate',
  Metal3Machine: 'Metal3Machine',
  Metal3MachineTemplate: 'Metal3MachineTemplate',
  Metal3Remediation: 'Metal3Remediation',
  Metal3RemediationTemplate: 'Metal3RemediationTemplate',
} as const;
export type Capm3Kind = (typeof Capm3Kind)[keyof typeof Capm3Kind];

export const CLUSTER_FINALIZER = 'metal3cluster.infrastructure.cluster.x-k8s.io';
export const MACHINE_FINALIZER = 'metal3machine.infrastructure.cluster.x-k8s.io';
export const REMEDIATION_FINALIZER = 'metal3remediation.infrastructure.cluster.x-k8s.io';

export const REBOOT_STRATEGY = 'Reboot';
export const RemediationPhase = {
  Running: 'Running',
  Waiting: 'Waiting',
  Deleting: 'Deleting machine',
  Failed: 'Failed',
} as const;

/** Template defaults: what Cluster API's MachineHealthCheck copies into a Metal3Remediation. */
export const REMEDIATION_DEFAULTS = { type: REBOOT_STRATEGY, retryLimit: 1, timeoutSeconds: 600 } as const;

// --- v1beta2 (stored) shapes: generated from manifests/crds (scripts/api-types.ts) ------------

export type { Metal3ClusterSpec, Metal3ClusterStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3cluster.js';
export type { Metal3MachineSpec, Metal3MachineStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3machine.js';
export type { Metal3MachineTemplateSpec } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3machinetemplate.js';
export type { Metal3RemediationSpec, Metal3RemediationStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3remediation.js';
export type { Metal3RemediationTemplateSpec } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3remediationtemplate.js';

export type APIEndpoint = NonNullable<Metal3ClusterSpec['controlPlaneEndpoint']>;
export type FailureDomain = NonNullable<Metal3ClusterSpec['failureDomains']>[number];
/** Cluster API v1beta1 conditions and failure fields, kept under status.deprecated. */
export type DeprecatedStatus = NonNullable<Metal3ClusterStatus['deprecated']>;
/** A Cluster API v1beta1 condition (kept under status.deprecated.v1beta1). */
export type V1Beta1Condition = NonNullable<NonNullable<DeprecatedStatus['v1beta1']>['conditions']>[number];
/** Ironhook's additions to a status (ignored by upstream clients); the same block on every kind. */
export type IronhookStatus = NonNullable<Metal3MachineStatus['ironhook']>;
export type HostSelector = NonNullable<Metal3MachineSpec['hostSelector']>;
export type Metal3Image = NonNullable<Metal3MachineSpec['image']>;
export type RemediationStrategy = NonNullable<Metal3RemediationSpec['strategy']>;

export type Metal3Cluster = TypedObject<Metal3ClusterSpec, Metal3ClusterStatus>;
export type Metal3Machine = TypedObject<Metal3MachineSpec, Metal3MachineStatus>;
export type Metal3MachineTemplate = TypedObject<Metal3MachineTemplateSpec, never>;
export type Metal3Remediation = TypedObject<Metal3RemediationSpec, Metal3RemediationStatus>;
export type Metal3RemediationTemplate = TypedObject<Metal3RemediationTemplateSpec, Metal3RemediationTemplateStatus>;

export type Rec = Record<string, unknown>;

export { rec };

/**
 * One step of a kind's conversion, working in place on a copy of the object body. `kept` collects
 * what the target version cannot hold; `restore` is what an earlier conversion kept.
 */
export interface ConversionStep {
  up(body: Rec, kept: Kept, restore: Kept): void;
  down(body: Rec, kept: Kept, restore: Kept): void;
}

/** A KindConverter running `steps` in order going up and in reverse order going down. */
export function stepConverter(kind: Capm3Kind, steps: readonly ConversionStep[]): KindConverter {
  return {
    group: INFRA_GROUP,
    kind,
    up(body: Body, restore: Kept): Converted {
      const out = structuredClone(body);
      const kept: Kept = {};
      for (const step of steps) step.up(out, kept, restore);
      return { body: out, kept };
    },
    down(body: Body, restore: Kept): Converted {
      const out = structuredClone(body);
      const kept: Kept = {};
      for (const step of [...steps].reverse()) step.down(out, kept, restore);
      return { body: out, kept };
    },
  };
}

function runInner(body: Rec, steps: readonly ConversionStep[], run: (step: ConversionStep, inner: Rec) => void): void {
  const template = rec(rec(body.spec)?.template);
  const spec = rec(template?.spec);
  if (template === undefined || spec === undefined) return;
  const inner: Rec = { spec };
  for (const step of steps) run(step, inner);
  template.spec = inner.spec;
}

/** The steps of a kind applied to `spec.template.spec` of its template kind. */
export function templateStep(steps: readonly ConversionStep[]): ConversionStep {
  return {
    up: (body, kept, restore) => {
      runInner(body, steps, (step, inner) => {
        step.up(inner, kept, restore);
      });
    },
    down: (body, kept, restore) => {
      runInner(body, [...steps].reverse(), (step, inner) => {
        step.down(inner, kept, restore);
      });
    },
  };
}

/** v1beta2 templates also carry spec.template.metadata (labels, annotations); v1beta1 ones do not. */
export const templateMetadataStep: ConversionStep = {
  up(body, _kept, restore) {
    const template = rec(rec(body.spec)?.template);
    if (template !== undefined && restore.templateMetadata !== undefined) template.metadata = restore.templateMetadata;
  },
  down(body, kept) {
    const template = rec(rec(body.spec)?.template);
    if (template?.metadata === undefined) return;
    kept.templateMetadata = template.metadata;
    delete template.metadata;
  },
};
