// metal3.io/v1alpha1 BareMetalHost, HardwareData and HostFirmwareSettings, Metal3-compatible.
// The shapes are generated from manifests/crds (scripts/api-types.ts); the names below are the parts
// the hooks and the driver pool take apart, next to the value tables and annotation names.
import type { BareMetalHostSpec, BareMetalHostStatus as BareMetalHostStatusOnWire } from './api/metal3.io/v1alpha1/baremetalhost.js';
import type { HardwareDataSpec } from './api/metal3.io/v1alpha1/hardwaredata.js';
import type { HostFirmwareSettingsSpec, HostFirmwareSettingsStatus } from './api/metal3.io/v1alpha1/hostfirmwaresettings.js';
import type { HostOperationSpec } from './api/ironhook.dev/v1alpha1/hostoperation.js';
import type { TypedObject } from './k8s.js';

export const METAL3_API_VERSION = 'metal3.io/v1alpha1';

export type { BareMetalHostSpec } from './api/metal3.io/v1alpha1/baremetalhost.js';

/**
 * The provisioning states Ironhook knows. The BareMetalHost CRD, like upstream's, takes any string
 * at `status.provisioning.state`; the HostOperation snapshot (`spec.hostStatus.state`) takes exactly
 * these, so that enum is this table's type.
 */
export type ProvisioningState = HostOperationSpec['hostStatus']['state'];
export const ProvisioningState = {
  None: '',
  Unmanaged: 'unmanaged',
  Registering: 'registering',
  MatchProfile: 'match profile',
  Inspecting: 'inspecting',
  Preparing: 'preparing',
  Ready: 'ready',
  Available: 'available',
  Provisioning: 'provisioning',
  Provisioned: 'provisioned',
  ExternallyProvisioned: 'externally provisioned',
  Deprovisioning: 'deprovisioning',
  PoweringOffBeforeDelete: 'powering off before delete',
  Deleting: 'deleting',
} as const satisfies Record<string, ProvisioningState>;

/**
 * The states in which no provisioning operation is under way: a host in one of them can be paused
 * (and moved by `clusterctl move` with its status) without cutting an operation short. Every other
 * state, an unknown one included, is an operation in progress (registering, inspecting, preparing,
 * provisioning, deprovisioning, powering off before delete, deleting) or not yet started ('').
 */
const STABLE_STATES: readonly string[] = [
  ProvisioningState.Unmanaged,
  ProvisioningState.Available,
  ProvisioningState.Ready,
  ProvisioningState.Provisioned,
  ProvisioningState.ExternallyProvisioned,
];

export function isStableState(state: string): boolean {
  return STABLE_STATES.includes(state);
}

export type OperationalStatus = BareMetalHostStatusOnWire['operationalStatus'];
export const OperationalStatus = {
  None: '',
  OK: 'OK',
  Discovered: 'discovered',
  Error: 'error',
  Delayed: 'delayed',
  Detached: 'detached',
  Servicing: 'servicing',
} as const satisfies Record<string, OperationalStatus>;

export type ErrorType = NonNullable<BareMetalHostStatusOnWire['errorType']>;
export const ErrorType = {
  ProvisionedRegistration: 'provisioned registration error',
  Registration: 'registration error',
  Inspection: 'inspection error',
  Preparation: 'preparation error',
  Provisioning: 'provisioning error',
  PowerManagement: 'power management error',
  Servicing: 'servicing error',
  Detach: 'detach error',
} as const satisfies Record<string, ErrorType>;

export type BMCDetails = NonNullable<BareMetalHostSpec['bmc']>;
export type Image = NonNullable<BareMetalHostSpec['image']>;
export type RootDeviceHints = NonNullable<BareMetalHostSpec['rootDeviceHints']>;
export type RAIDConfig = NonNullable<BareMetalHostSpec['raid']>;

/** What inspection found (`status.hardware`, HardwareData `spec.hardware`). */
export type HardwareDetails = NonNullable<HardwareDataSpec['hardware']>;
export type NIC = NonNullable<HardwareDetails['nics']>[number];
export type Storage = NonNullable<HardwareDetails['storage']>[number];

export type CredentialsStatus = NonNullable<BareMetalHostStatusOnWire['goodCredentials']>;

type HistoryOnWire = NonNullable<BareMetalHostStatusOnWire['operationHistory']>;
/** One operationHistory entry as the hook writes it: both keys, `null` when unset (as upstream serialises it). */
export type OperationMetric = Required<NonNullable<HistoryOnWire['register']>>;
/** The four entries, always all present in what the hook writes (normalizeStatus fills them in). */
export type OperationHistory = Record<keyof HistoryOnWire, OperationMetric>;

/** status.provisioning with a state Ironhook knows (hooks/baremetalhost/states.ts copes with others). */
export type ProvisionStatus = Omit<BareMetalHostStatusOnWire['provisioning'], 'state'> & { state: ProvisioningState };

/** Ironhook's own status block (docs/architecture.md, "The BareMetalHost status extension"). */
export type IronhookHostStatus = NonNullable<BareMetalHostStatusOnWire['ironhook']>;

/**
 * The status as the hook works with it: the CRD's, with a known provisioning state and a complete
 * operationHistory. What the API server hands over may lack any of it; hooks/baremetalhost/status.ts
 * (normalizeStatus) fills that in.
 */
export type BareMetalHostStatus = Omit<BareMetalHostStatusOnWire, 'provisioning' | 'operationHistory'> & {
  provisioning: ProvisionStatus;
  operationHistory?: OperationHistory;
};

export type BareMetalHost = TypedObject<BareMetalHostSpec, Partial<BareMetalHostStatus>>;
export type HardwareData = TypedObject<HardwareDataSpec, never>;
export type HostFirmwareSettings = TypedObject<HostFirmwareSettingsSpec, HostFirmwareSettingsStatus>;

export const Annotation = {
  Paused: 'baremetalhost.metal3.io/paused',
  Detached: 'baremetalhost.metal3.io/detached',
  Status: 'baremetalhost.metal3.io/status',
  Inspect: 'inspect.metal3.io',
  HardwareDetails: 'inspect.metal3.io/hardwaredetails',
  Reboot: 'reboot.metal3.io',
  RebootPrefix: 'reboot.metal3.io/',
} as const;
