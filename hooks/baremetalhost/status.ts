// The observed status with upstream's always-present keys filled in, and recovery of a
// status write that was lost while the request committed with it exists (architecture.md).
import { OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus, OperationHistory, OperationMetric } from '../../domain/baremetalhost.js';
import type { HostOperation } from '../../domain/operations.js';

const EMPTY_METRIC: OperationMetric = { start: null, end: null };

export function emptyHistory(): OperationHistory {
  return {
    register: { ...EMPTY_METRIC },
    inspect: { ...EMPTY_METRIC },
    provision: { ...EMPTY_METRIC },
    deprovision: { ...EMPTY_METRIC },
  };
}

export function normalizeStatus(observed: Partial<BareMetalHostStatus> | undefined): BareMetalHostStatus {
  const status = structuredClone(observed ?? {});
  const provisioning = status.provisioning ?? { state: ProvisioningState.None, ID: '', image: { url: '' } };
  return {
    ...status,
    operationalStatus: status.operationalStatus ?? OperationalStatus.None,
    errorMessage: status.errorMessage ?? '',
    errorCount: status.errorCount ?? 0,
    provisioningFailCount: status.provisioningFailCount ?? 0,
    poweredOn: status.poweredOn ?? false,
    provisioning: {
      ...provisioning,
      state: provisioning.state,
      ID: provisioning.ID,
      image: provisioning.image,
    },
    operationHistory: { ...emptyHistory(), ...status.operationHistory },
  };
}

/**
 * The newest request was committed after the status was written: the status that went with it
 * was lost, or Metacontroller's cache hands us a parent older than its children.
 */
export function isBehind(status: Partial<BareMetalHostStatus> | undefined, current: HostOperation): boolean {
  return current.spec.sequence > (status?.ironhook?.request?.sequence ?? 0);
}

/** When the newest request is newer than the status says, take the counters it was committed with. */
export function recoverFromRequest(status: BareMetalHostStatus, current: HostOperation | undefined): BareMetalHostStatus {
  if (current === undefined || !isBehind(status, current)) {
    return status;
  }
  const snapshot = current.spec.hostStatus;
  const committed: BareMetalHostStatus = snapshot.status === undefined ? status : normalizeStatus(snapshot.status);
  return {
    ...status,
    ...committed,
    ...(status.hardware && { hardware: status.hardware }),
    errorCount: snapshot.errorCount,
    provisioningFailCount: snapshot.provisioningFailCount,
    provisioning: { ...committed.provisioning, state: snapshot.state },
  };
}

/** The operationHistory key that a provisioning state is timed under, if any. */
export function historyKey(state: ProvisioningState): keyof OperationHistory | undefined {
  switch (state) {
    case ProvisioningState.Registering:
      return 'register';
    case ProvisioningState.Inspecting:
      return 'inspect';
    case ProvisioningState.Provisioning:
      return 'provision';
    case ProvisioningState.Deprovisioning:
      return 'deprovision';
    default:
      return undefined;
  }
}

/** Close the history entry of the state being left and open the one of the state being entered. */
export function recordTransition(
  history: OperationHistory,
  from: ProvisioningState,
  to: ProvisioningState,
  at: string,
): OperationHistory {
  const next = structuredClone(history);
  const leaving = historyKey(from);
  if (leaving !== undefined && from !== to) {
    next[leaving] = { start: next[leaving].start ?? at, end: at };
  }
  const entering = historyKey(to);
  if (entering !== undefined && from !== to) {
    next[entering] = { start: at, end: null };
  }
  return next;
}
