// The Cluster API provider kinds: names, finalizers, the
// remediation enums and the building blocks their v1beta1 ↔ v1beta2 converters share.
import { type Body, type Converted, type Kept, type KindConverter } from '../capi/conversion.js';
import { INFRA_GROUP } from '../capi/types.js';
import { asRecord as rec, type Rec } from '../records.js';
import type { Metal3ClusterStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3cluster.js';

export const Capm3Kind = {
  Metal3Cluster: 'Metal3Cluster',
  Metal3ClusterTemplate: 'Metal3ClusterTemplate',
  Metal3Machine: 'Metal3Machine',
  Metal3MachineTemplate: 'Metal3MachineTemplate',
  Metal3Remediation: 'Metal3Remediation',
  Metal3RemediationTemplate: 'Metal3RemediationTemplate',
} as const;
export type Capm3Kind = (typeof Capm3Kind)[keyof typeof Capm3Kind];

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

export type { Metal3ClusterStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3cluster.js';

/** Cluster API v1beta1 conditions and failure fields, kept under status.deprecated. */
type DeprecatedStatus = NonNullable<Metal3ClusterStatus['deprecated']>;
/** A Cluster API v1beta1 condition (kept under status.deprecated.v1beta1). */
export type V1Beta1Condition = NonNullable<NonNullable<DeprecatedStatus['v1beta1']>['conditions']>[number];

export type { Rec };

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
