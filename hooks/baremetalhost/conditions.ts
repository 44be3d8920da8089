// Upstream's conditions, with messages that say why (upstream leaves
// them empty). lastTransitionTime only moves when a condition's status changes.
import { OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { Condition } from '../../domain/k8s.js';

type Row = [manageable: string, available: string, provisioned: string, progressing: string];
const F = 'False';
const T = 'True';

const NOT_MANAGED: Row = ['NotManaged', 'NotAvailable', 'NotProvisioned', 'NotProgressing'];
const TABLE: Readonly<Record<string, Row>> = {
  [ProvisioningState.None]: NOT_MANAGED,
  [ProvisioningState.Unmanaged]: NOT_MANAGED,
  [ProvisioningState.Registering]: ['Registering', 'NotAvailable', 'NotProvisioned', 'Registering'],
  [ProvisioningState.Preparing]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Preparing'],
  [ProvisioningState.Available]: ['Manageable', 'Available', 'NotProvisioned', 'NotProgressing'],
  [ProvisioningState.Ready]: ['Manageable', 'Available', 'NotProvisioned', 'NotProgressing'],
  [ProvisioningState.Provisioning]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Provisioning'],
  [ProvisioningState.Provisioned]: ['Manageable', 'NotAvailable', 'Provisioned', 'NotProgressing'],
  [ProvisioningState.ExternallyProvisioned]: ['Manageable', 'NotAvailable', 'Provisioned', 'NotProgressing'],
  [ProvisioningState.Deprovisioning]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Deprovisioning'],
  [ProvisioningState.Inspecting]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Inspecting'],
  [ProvisioningState.MatchProfile]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Inspecting'],
  [ProvisioningState.PoweringOffBeforeDelete]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'PoweringOffBeforeDelete'],
  [ProvisioningState.Deleting]: ['Manageable', 'NotAvailable', 'NotProvisioned', 'Deleting'],
};

export interface ConditionInput {
  state: ProvisioningState;
  operationalStatus: OperationalStatus;
  /** Why the host is where it is: becomes the Progressing / Ready message. */
  reason: string;
  errorMessage: string;
  generation: number;
  time: string;
  previous: readonly Condition[];
  /** Advisory conditions (advisories.ts), present only while their problem lasts. */
  advisories: readonly ConditionDraft[];
}

export type ConditionDraft = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;
type Draft = ConditionDraft;

function condition(type: string, isTrue: boolean, reason: string, message = ''): Draft {
  return { type, status: isTrue ? T : F, reason, message };
}

function baseConditions(input: ConditionInput): Draft[] {
  const [manageable, available, provisioned, progressing] = TABLE[input.state] ?? NOT_MANAGED;
  const failedRegistration = input.state === ProvisioningState.Registering && input.operationalStatus === OperationalStatus.Error;
  return [
    condition('Manageable', manageable === 'Manageable', failedRegistration ? 'RegistrationFailed' : manageable),
    condition('AvailableForProvisioning', available === 'Available', available),
    condition('Provisioned', provisioned === 'Provisioned', provisioned),
    condition('Ready', provisioned === 'Provisioned', provisioned),
    condition('Progressing', progressing !== 'NotProgressing', progressing, input.reason),
    // Hardware health needs a BMC health reading, which the driver pool does not report yet.
    { type: 'Healthy', status: 'Unknown', reason: 'Unknown', message: '' },
  ];
}

function applyOverrides(conditions: Draft[], input: ConditionInput): void {
  const byType = new Map(conditions.map((item) => [item.type, item]));
  const ready = byType.get('Ready');
  const progressing = byType.get('Progressing');
  if (ready === undefined || progressing === undefined) {
    return;
  }
  if (input.operationalStatus === OperationalStatus.Error) {
    Object.assign(ready, { status: F, reason: 'Error', message: input.errorMessage });
  } else if (input.operationalStatus === OperationalStatus.Detached) {
    Object.assign(ready, { status: F, reason: 'Detached', message: input.reason });
    Object.assign(progressing, { status: F, reason: 'Detached' });
  } else if (input.operationalStatus === OperationalStatus.Delayed) {
    Object.assign(progressing, { reason: 'Delayed' });
  }
}

export function computeConditions(input: ConditionInput): Condition[] {
  const conditions = baseConditions(input);
  applyOverrides(conditions, input);
  conditions.push(...input.advisories);
  const previous = new Map(input.previous.map((item) => [item.type, item]));
  return conditions
    .map((item) => {
      const old = previous.get(item.type);
      const lastTransitionTime = old?.status === item.status ? old.lastTransitionTime : input.time;
      return { ...item, lastTransitionTime, observedGeneration: input.generation };
    })
    .sort((a, b) => a.type.localeCompare(b.type));
}
