// The observed status with upstream's always-present keys filled in, the status snapshot each
// request carries, and recovery of a status write that was lost while the request committed with
// it exists (ADR 0005).
import { OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus, IronhookHostStatus, OperationHistory, OperationMetric } from '../../domain/baremetalhost.js';
import { canonicalJSON } from '../../domain/canonical.js';
import { Phase } from '../../domain/operations.js';
import type { HostOperation, HostStatusSnapshot } from '../../domain/operations.js';

const EMPTY_METRIC: OperationMetric = { start: null, end: null };
const HISTORY_KEYS = ['register', 'inspect', 'provision', 'deprovision'] as const satisfies readonly (keyof OperationHistory)[];

function emptyHistory(): OperationHistory {
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

/**
 * Status keys a snapshot leaves out: the snapshot's own fields (errorCount, provisioningFailCount),
 * what every sync recomputes (conditions, lastUpdated), what a child keeps (hardware: HardwareData),
 * and those it carries in a smaller form below (provisioning, operationHistory, ironhook).
 */
const NOT_CARRIED: ReadonlySet<string> = new Set([
  'errorCount',
  'provisioningFailCount',
  'conditions',
  'lastUpdated',
  'hardware',
  'provisioning',
  'operationHistory',
  'ironhook',
]);

const BLANK: Readonly<Record<string, unknown>> = { ...normalizeStatus(undefined) };

/**
 * What a new request carries of the status committed with it: only what the hook could not
 * rebuild after a lost status write. The state is the snapshot's own field; `ironhook.request` is
 * the request itself; values the blank status has (an empty errorMessage, poweredOn false, history
 * entries never started) are filled in again by normalizeStatus.
 */
export function statusSnapshot(status: BareMetalHostStatus): HostStatusSnapshot {
  const { state, ...provisioning } = status.provisioning;
  const carried = Object.entries(status).filter(([key, value]) => !NOT_CARRIED.has(key) && canonicalJSON(value) !== canonicalJSON(BLANK[key]));
  const history = status.operationHistory ?? emptyHistory();
  const started = HISTORY_KEYS.filter((key) => history[key].start !== null || history[key].end !== null);
  const consumedAnnotations = status.ironhook?.consumedAnnotations ?? [];
  const provisionedData = status.ironhook?.provisionedData;
  return {
    state,
    errorCount: status.errorCount,
    provisioningFailCount: status.provisioningFailCount,
    status: {
      ...Object.fromEntries(carried),
      provisioning,
      ...(started.length > 0 && { operationHistory: Object.fromEntries(started.map((key) => [key, history[key]])) }),
      ...((consumedAnnotations.length > 0 || provisionedData) && {
        ironhook: { ...(consumedAnnotations.length > 0 && { consumedAnnotations }), ...(provisionedData && { provisionedData }) },
      }),
    },
  };
}

/** `status.ironhook` as committed with `operation`, which the pool had not started then. */
function committedIronhook(operation: HostOperation, carried: Partial<BareMetalHostStatus>): IronhookHostStatus {
  const request = { name: operation.metadata.name ?? '', action: operation.spec.action, sequence: operation.spec.sequence, phase: Phase.Pending };
  const provisionedData = carried.ironhook?.provisionedData;
  return { request, consumedAnnotations: carried.ironhook?.consumedAnnotations ?? [], ...(provisionedData && { provisionedData }) };
}

/** When the newest request is newer than the status says, take the status it was committed with. */
export function recoverFromRequest(status: BareMetalHostStatus, current: HostOperation | undefined): BareMetalHostStatus {
  if (current === undefined || !isBehind(status, current)) {
    return status;
  }
  const snapshot = current.spec.hostStatus;
  const carried = snapshot.status as Partial<BareMetalHostStatus> | undefined;
  // Requests written before the snapshot carried a status: only its counters and state.
  const committed = carried === undefined ? status : { ...normalizeStatus(carried), ironhook: committedIronhook(current, carried) };
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
function historyKey(state: ProvisioningState): keyof OperationHistory | undefined {
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
export function recordTransition(history: OperationHistory, from: ProvisioningState, to: ProvisioningState, at: string): OperationHistory {
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
