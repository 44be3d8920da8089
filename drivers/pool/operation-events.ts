// Which Event a request emits when it starts, succeeds or fails: upstream's reasons.
// Data, one row per action.
import { Action } from '../../domain/operations.js';
import type { HostOperation, OperationError } from '../../domain/operations.js';
import { displayURL } from './executors/context.js';

interface EventText {
  reason: string;
  message: string;
  /** Normal unless set: upstream's Events are all Normal; Ironhook's own warnings are Warning. */
  type?: 'Warning';
}

interface ActionEvents {
  start?: (op: HostOperation) => EventText[];
  success: (op: HostOperation) => EventText[];
  failureReason: string;
}

const CREDENTIAL_REASONS = new Set(['CredentialsNotFound', 'CredentialsInvalid', 'AuthenticationFailed']);

function imageOf(op: HostOperation): string {
  const url = op.spec.provision?.image?.url;
  return url === undefined ? 'no image' : displayURL(url);
}

const none = (): EventText[] => [];

/** The default cleaning erases disks: say so on the host when it starts (trap 4 of issue 16). */
function cleaningWarning(op: HostOperation): EventText[] {
  if (op.spec.deprovision?.automatedCleaningMode !== 'metadata') {
    return [];
  }
  return [
    {
      reason: 'CleaningDisks',
      type: 'Warning',
      message:
        'automatedCleaningMode is metadata: erasing the partition tables and filesystem signatures of every disk of this host; set spec.automatedCleaningMode: disabled on hosts whose disks must keep their data',
    },
  ];
}

const TABLE: Record<Action, ActionEvents> = {
  [Action.Register]: {
    success: (op) => [
      { reason: 'BMCAccessValidated', message: 'Verified access to BMC' },
      ...(op.spec.hostStatus.state === 'registering' ? [{ reason: 'Registered', message: 'Registered new host' }] : []),
    ],
    failureReason: 'RegistrationError',
  },
  [Action.Inspect]: {
    start: () => [{ reason: 'InspectionStarted', message: 'Hardware inspection started' }],
    success: () => [{ reason: 'InspectionComplete', message: 'Hardware inspection completed' }],
    failureReason: 'InspectionError',
  },
  [Action.Prepare]: { success: none, failureReason: 'PreparationError' },
  [Action.Provision]: {
    start: (op) => [{ reason: 'ProvisioningStarted', message: `Image provisioning started for ${imageOf(op)}` }],
    success: (op) => [{ reason: 'ProvisioningComplete', message: `Image provisioning completed for ${imageOf(op)}` }],
    failureReason: 'ProvisioningError',
  },
  [Action.Deprovision]: {
    start: (op) => [{ reason: 'DeprovisioningStarted', message: 'Image deprovisioning started' }, ...cleaningWarning(op)],
    success: () => [{ reason: 'DeprovisioningComplete', message: 'Image deprovisioning completed' }],
    failureReason: 'ProvisioningError',
  },
  [Action.PowerOn]: { success: () => [{ reason: 'PowerOn', message: 'Host powered on' }], failureReason: 'PowerManagementError' },
  [Action.PowerOff]: { success: () => [{ reason: 'PowerOff', message: 'Host powered off' }], failureReason: 'PowerManagementError' },
  [Action.Reboot]: { success: () => [{ reason: 'PowerOn', message: 'Host rebooted (powered off and on)' }], failureReason: 'PowerManagementError' },
  [Action.Detach]: { success: none, failureReason: 'DetachError' },
  [Action.Delete]: { success: none, failureReason: 'RegistrationError' },
};

export function startEvents(op: HostOperation): EventText[] {
  return TABLE[op.spec.action].start?.(op) ?? [];
}

export function successEvents(op: HostOperation): EventText[] {
  return TABLE[op.spec.action].success(op);
}

export function failureEvent(op: HostOperation, error: OperationError): EventText {
  const reason = op.spec.action === Action.Register && CREDENTIAL_REASONS.has(error.reason) ? 'BMCCredentialError' : TABLE[op.spec.action].failureReason;
  return { reason, message: error.message };
}
