// ironhook.dev/v1alpha1: the request objects between hooks and the driver pool
// (docs/architecture.md, "The hook / driver request contract").
import { ProvisioningState } from './baremetalhost.js';
import type {
  AutomatedCleaningMode,
  BMCDetails,
  BootMode,
  CustomDeploy,
  HardwareDetails,
  Image,
  RAIDConfig,
  RootDeviceHints,
} from './baremetalhost.js';
import type { SecretReference, TypedObject } from './k8s.js';

export const IRONHOOK_API_VERSION = 'ironhook.dev/v1alpha1';
export const HOST_LABEL = 'ironhook.dev/host';
export const ACTION_LABEL = 'ironhook.dev/action';

export const Action = {
  Register: 'Register',
  Inspect: 'Inspect',
  Prepare: 'Prepare',
  Provision: 'Provision',
  Deprovision: 'Deprovision',
  PowerOn: 'PowerOn',
  PowerOff: 'PowerOff',
  Reboot: 'Reboot',
  Detach: 'Detach',
  Delete: 'Delete',
} as const;
export type Action = (typeof Action)[keyof typeof Action];

export const Phase = {
  Pending: 'Pending',
  Delayed: 'Delayed',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

export type ErrorKind = 'Transient' | 'Permanent';
export type PowerMode = 'hard' | 'soft';

export interface HostRef {
  name: string;
  uid: string;
}

export interface ProvisionParameters {
  image?: Image;
  customDeploy?: CustomDeploy;
  userData?: SecretReference;
  networkData?: SecretReference;
  metaData?: SecretReference;
  preprovisioningNetworkDataName?: string;
  rootDeviceHints?: RootDeviceHints;
  raid?: RAIDConfig;
  architecture?: string;
}

/** The host status the hook committed together with a request, to recover a lost status write (ADR 0005). */
export interface HostStatusSnapshot {
  state: ProvisioningState;
  errorCount: number;
  provisioningFailCount: number;
  /** The rest of that status, less what a sync rebuilds without it (hooks/baremetalhost/status.ts, statusSnapshot). */
  status?: Record<string, unknown>;
}

export interface HostOperationSpec {
  host: HostRef;
  action: Action;
  sequence: number;
  notBefore?: string;
  hostGeneration: number;
  hostStatus: HostStatusSnapshot;
  bmc: BMCDetails;
  bootMACAddress?: string;
  bootMode?: BootMode;
  register?: Record<string, never>;
  inspect?: { mode: 'agent' | 'fast' };
  prepare?: { raid?: RAIDConfig; rootDeviceHints?: RootDeviceHints };
  provision?: ProvisionParameters;
  deprovision?: { automatedCleaningMode: AutomatedCleaningMode };
  power?: { mode: PowerMode };
}

/** The action-specific parameter blocks of a request. */
export type RequestParametersOf = Partial<
  Pick<HostOperationSpec, 'register' | 'inspect' | 'prepare' | 'provision' | 'deprovision' | 'power'>
>;

export interface OperationError {
  kind: ErrorKind;
  reason: string;
  message: string;
}

export interface CredentialsReport {
  name: string;
  namespace: string;
  credentialsVersion: string;
}

export interface OperationStep {
  name: string;
  state: Phase;
  time?: string;
  message?: string;
}

export interface HostOperationStatus {
  phase?: Phase;
  startTime?: string;
  completionTime?: string;
  message?: string;
  steps?: OperationStep[];
  error?: OperationError;
  delayReason?: string;
  result?: {
    poweredOn?: boolean;
    credentials?: CredentialsReport;
    provisioningID?: string;
    hardware?: HardwareDetails;
    hardwareProfile?: string;
  };
}

export type HostOperation = TypedObject<HostOperationSpec, HostOperationStatus>;

export interface BMCMonitorSpec {
  host: HostRef;
  bmc: BMCDetails;
  intervalSeconds: number;
}

export interface BMCMonitorStatus {
  observedTime?: string;
  changedTime?: string;
  poweredOn?: boolean;
  reachable?: boolean;
  credentials?: CredentialsReport;
  error?: OperationError;
}

export type BMCMonitor = TypedObject<BMCMonitorSpec, BMCMonitorStatus>;

/**
 * The actions the provisioning limit applies to (reference/baremetalhost.md §2.7), each with the
 * state it leads into: the hook enters that state once the pool admits the request.
 */
export const GATED_ENTRY_STATE: Readonly<Partial<Record<Action, ProvisioningState>>> = {
  [Action.Inspect]: ProvisioningState.Inspecting,
  [Action.Provision]: ProvisioningState.Provisioning,
  [Action.Deprovision]: ProvisioningState.Deprovisioning,
};

/** The driver pool's view of the same list. */
export const CAPACITY_GATED_ACTIONS: ReadonlySet<Action> = new Set(Object.keys(GATED_ENTRY_STATE) as Action[]);

export function isFinished(phase: Phase | undefined): boolean {
  return phase === Phase.Succeeded || phase === Phase.Failed;
}
