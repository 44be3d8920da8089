// The Cluster API provider kinds (reference/capm3-ipam.md §1, §3–5, §8): names, finalizers, the
// remediation enums and the building blocks their v1beta1 ↔ v1beta2 converters share.
import { type Body, type Converted, type Kept, type KindConverter } from '../capi/conversion.js';
import { INFRA_GROUP, type Metal3ObjectRef } from '../capi/types.js';
import { asRecord as rec } from '../records.js';
import type { Condition, SecretReference, TypedObject } from '../k8s.js';

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

/** Template defaults (§8.1): what Cluster API's MachineHealthCheck copies into a Metal3Remediation. */
export const REMEDIATION_DEFAULTS = { type: REBOOT_STRATEGY, retryLimit: 1, timeoutSeconds: 600 } as const;

// --- v1beta2 (stored) shapes, as the CRDs in manifests/crds define them --------------------------

export interface APIEndpoint {
  host?: string;
  port?: number;
}

export interface FailureDomain {
  name: string;
  controlPlane?: boolean;
  attributes?: Record<string, string>;
}

/** A Cluster API v1beta1 condition (kept under status.deprecated.v1beta1). */
export interface V1Beta1Condition {
  type: string;
  status: string;
  severity?: string;
  reason?: string;
  message?: string;
  lastTransitionTime: string;
}

export interface DeprecatedStatus {
  v1beta1?: { conditions?: V1Beta1Condition[]; failureReason?: string; failureMessage?: string };
}

/** Ironhook's additions to a status (ignored by upstream clients). */
export interface IronhookStatus {
  state?: string;
  sequence?: number;
  host?: string;
  waitingFor?: string;
  message?: string;
}

export interface Metal3ClusterSpec {
  controlPlaneEndpoint?: APIEndpoint;
  cloudProviderEnabled?: boolean;
  failureDomains?: FailureDomain[];
}

export interface Metal3ClusterStatus {
  conditions?: Condition[];
  initialization?: { provisioned?: boolean };
  failureDomains?: FailureDomain[];
  lastUpdated?: string;
  deprecated?: DeprecatedStatus;
  observedGeneration?: number;
  ironhook?: IronhookStatus;
}

export interface HostSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values: string[] }[];
}

export interface Metal3Image {
  url?: string;
  checksum?: string;
  checksumType?: 'md5' | 'sha256' | 'sha512';
  diskFormat?: 'raw' | 'qcow2' | 'vdi' | 'vmdk' | 'live-iso';
}

export interface Metal3MachineSpec {
  providerID?: string;
  image?: Metal3Image;
  customDeploy?: { method: string };
  userData?: SecretReference;
  metaData?: SecretReference;
  networkData?: SecretReference;
  hostSelector?: HostSelector;
  dataTemplate?: Metal3ObjectRef;
  automatedCleaningMode?: 'metadata' | 'disabled';
  failureDomain?: string;
}

export interface Metal3MachineStatus {
  conditions?: Condition[];
  initialization?: { provisioned?: boolean };
  addresses?: { type: string; address: string }[];
  userData?: SecretReference;
  metaData?: SecretReference;
  networkData?: SecretReference;
  renderedData?: Metal3ObjectRef;
  lastUpdated?: string;
  deprecated?: DeprecatedStatus;
  observedGeneration?: number;
  ironhook?: IronhookStatus;
}

export interface Metal3MachineTemplateSpec {
  nodeReuse?: boolean;
  template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Metal3MachineSpec };
}

export interface RemediationStrategy {
  type?: typeof REBOOT_STRATEGY;
  retryLimit?: number;
  timeoutSeconds?: number;
}

export interface Metal3RemediationStatus {
  phase?: (typeof RemediationPhase)[keyof typeof RemediationPhase];
  retryCount?: number;
  lastRemediated?: string;
  observedGeneration?: number;
  ironhook?: IronhookStatus;
}

export type Metal3Cluster = TypedObject<Metal3ClusterSpec, Metal3ClusterStatus>;
export type Metal3Machine = TypedObject<Metal3MachineSpec, Metal3MachineStatus>;
export type Metal3MachineTemplate = TypedObject<Metal3MachineTemplateSpec, never>;
export type Metal3Remediation = TypedObject<{ strategy?: RemediationStrategy }, Metal3RemediationStatus>;
export type Metal3RemediationTemplate = TypedObject<{ template: { spec: { strategy?: RemediationStrategy } } }, { status?: Metal3RemediationStatus }>;

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
