// metal3.io/v1alpha1 BareMetalHost and HardwareData types (reference/baremetalhost.md §1).
import type { Condition, ObjectReference, SecretReference, TypedObject } from './k8s.js';

export const METAL3_API_VERSION = 'metal3.io/v1alpha1';

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
} as const;
export type ProvisioningState = (typeof ProvisioningState)[keyof typeof ProvisioningState];

export const OperationalStatus = {
  None: '',
  OK: 'OK',
  Discovered: 'discovered',
  Error: 'error',
  Delayed: 'delayed',
  Detached: 'detached',
  Servicing: 'servicing',
} as const;
export type OperationalStatus = (typeof OperationalStatus)[keyof typeof OperationalStatus];

export const ErrorType = {
  ProvisionedRegistration: 'provisioned registration error',
  Registration: 'registration error',
  Inspection: 'inspection error',
  Preparation: 'preparation error',
  Provisioning: 'provisioning error',
  PowerManagement: 'power management error',
  Servicing: 'servicing error',
  Detach: 'detach error',
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

export type BootMode = 'UEFI' | 'UEFISecureBoot' | 'legacy';
export type AutomatedCleaningMode = 'metadata' | 'disabled';
export type InspectionMode = 'disabled' | 'agent' | 'fast';

export interface BMCDetails {
  address: string;
  credentialsName: string;
  disableCertificateVerification?: boolean;
}

export interface Image {
  url: string;
  checksum?: string;
  checksumType?: 'md5' | 'sha256' | 'sha512' | 'auto' | '';
  format?: 'raw' | 'qcow2' | 'vdi' | 'vmdk' | 'live-iso' | '';
  ociAuthSecretName?: string;
}

export interface RootDeviceHints {
  deviceName?: string;
  hctl?: string;
  model?: string;
  vendor?: string;
  serialNumber?: string;
  minSizeGigabytes?: number;
  wwn?: string;
  wwnWithExtension?: string;
  wwnVendorExtension?: string;
  rotational?: boolean;
}

export interface HardwareRAIDVolume {
  level: string;
  sizeGibibytes?: number;
  name?: string;
  rotational?: boolean;
  numberOfPhysicalDisks?: number;
  controller?: string;
  physicalDisks?: string[];
}

export interface SoftwareRAIDVolume {
  level: string;
  sizeGibibytes?: number;
  rootVolume?: boolean;
  physicalDisks?: RootDeviceHints[];
}

export interface RAIDConfig {
  hardwareRAIDVolumes?: HardwareRAIDVolume[] | null;
  softwareRAIDVolumes?: SoftwareRAIDVolume[] | null;
}

export interface CustomDeploy {
  method: string;
}

export interface BareMetalHostSpec {
  online: boolean;
  bmc?: BMCDetails;
  bootMACAddress?: string;
  bootMode?: BootMode;
  consumerRef?: ObjectReference;
  image?: Image;
  userData?: SecretReference;
  networkData?: SecretReference;
  metaData?: SecretReference;
  preprovisioningNetworkDataName?: string;
  externallyProvisioned?: boolean;
  automatedCleaningMode?: AutomatedCleaningMode;
  rootDeviceHints?: RootDeviceHints;
  raid?: RAIDConfig | null;
  firmware?: Record<string, boolean> | null;
  customDeploy?: CustomDeploy;
  hardwareProfile?: string;
  architecture?: string;
  disablePowerOff?: boolean;
  inspectionMode?: InspectionMode;
  description?: string;
}

export interface NIC {
  name?: string;
  model?: string;
  mac?: string;
  ip?: string;
  speedGbps?: number;
  vlans?: { id?: number; name?: string }[];
  vlanId?: number;
  pxe?: boolean;
  lldp?: { switchID?: string; portID?: string; switchSystemName?: string };
  pciAddress?: string;
}

export interface Storage {
  name?: string;
  alternateNames?: string[];
  rotational?: boolean;
  type?: 'HDD' | 'SSD' | 'NVME';
  sizeBytes?: number;
  vendor?: string;
  model?: string;
  serialNumber?: string;
  wwn?: string;
  wwnVendorExtension?: string;
  wwnWithExtension?: string;
  hctl?: string;
}

export interface HardwareDetails {
  systemVendor?: { manufacturer?: string; productName?: string; serialNumber?: string };
  firmware?: { bios?: { date?: string; vendor?: string; version?: string } };
  ramMebibytes?: number;
  nics?: NIC[];
  storage?: Storage[];
  cpu?: { arch?: string; model?: string; clockMegahertz?: number; flags?: string[]; count?: number };
  hostname?: string;
}

export interface CredentialsStatus {
  credentials?: { name?: string; namespace?: string };
  credentialsVersion?: string;
}

export interface OperationMetric {
  start: string | null;
  end: string | null;
}

export interface OperationHistory {
  register: OperationMetric;
  inspect: OperationMetric;
  provision: OperationMetric;
  deprovision: OperationMetric;
}

export interface ProvisionStatus {
  state: ProvisioningState;
  ID: string;
  image: Image;
  rootDeviceHints?: RootDeviceHints;
  bootMode?: BootMode;
  raid?: RAIDConfig;
  firmware?: Record<string, boolean>;
  customDeploy?: CustomDeploy;
}

/** Ironhook's own status block (docs/architecture.md, "The BareMetalHost status extension"). */
export interface IronhookHostStatus {
  request?: { name: string; action: string; sequence: number; phase: string };
  consumedAnnotations?: string[];
}

export interface BareMetalHostStatus {
  operationalStatus: OperationalStatus;
  errorType?: ErrorType;
  errorMessage: string;
  errorCount: number;
  provisioningFailCount?: number;
  lastAttemptedImage?: Image;
  lastUpdated?: string;
  hardwareProfile?: string;
  hardware?: HardwareDetails;
  provisioning: ProvisionStatus;
  goodCredentials?: CredentialsStatus;
  triedCredentials?: CredentialsStatus;
  poweredOn: boolean;
  operationHistory?: OperationHistory;
  conditions?: Condition[];
  ironhook?: IronhookHostStatus;
}

export type BareMetalHost = TypedObject<BareMetalHostSpec, Partial<BareMetalHostStatus>>;

export const Annotation = {
  Paused: 'baremetalhost.metal3.io/paused',
  Detached: 'baremetalhost.metal3.io/detached',
  Status: 'baremetalhost.metal3.io/status',
  Inspect: 'inspect.metal3.io',
  HardwareDetails: 'inspect.metal3.io/hardwaredetails',
  Reboot: 'reboot.metal3.io',
  RebootPrefix: 'reboot.metal3.io/',
} as const;
