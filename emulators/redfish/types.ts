// The Redfish BMC emulator's configuration and event types (docs/redfish.md, "The emulator").
// A config file (YAML) and startRedfishEmulator() take the same shapes.

export type PersonalityName = 'generic' | 'dell' | 'hpe' | 'supermicro' | 'lenovo';

/** How the emulator sends and checks ETags. */
export type ETagMode =
  | 'strong' // ETag "x"; If-Match must be "x" (or *)
  | 'weak' // ETag W/"x"; only the strong form "x" matches (sushy's weak → strong downgrade)
  | 'mismatch' // ETag "x", but no If-Match ever matches (sushy's drop-If-Match downgrade)
  | 'none'; // no ETags; If-Match is ignored

export interface NICConfig {
  mac: string;
  ip?: string;
  speedMbps?: number;
}

export interface DiskConfig {
  name?: string;
  sizeGiB: number;
  type?: 'HDD' | 'SSD' | 'NVME';
  serialNumber?: string;
  model?: string;
  vendor?: string;
}

interface CPUConfig {
  sockets?: number;
  coresPerSocket?: number;
  threadsPerSocket?: number;
  model?: string;
  /** Redfish InstructionSet: x86-64 (default) or ARM-A64. */
  instructionSet?: string;
  maxSpeedMHz?: number;
}

/** Faults injected into one system (or, through setFaults on the emulator, into every request). */
export interface FaultConfig {
  /** Close the socket of every request (the BMC is down). */
  unreachable?: boolean;
  /** Delay every response this long (real time: it exercises the client's timeouts). */
  slowMs?: number;
  /** Answer this status (default 500) instead of handling the request; `count` times, or always. */
  serverError?: { status?: number; count?: number; retryAfterSeconds?: number };
  /** Close the socket of the next N requests without answering. */
  dropRequests?: number;
  /** Reset actions are accepted but the power state never changes. */
  powerNeverSettles?: boolean;
  /** Lock the account after this many consecutive wrong passwords (even the right one then fails). */
  lockoutAfter?: number;
  /** How long a lockout lasts on the emulator's clock; until unlock() when absent. */
  lockoutMs?: number;
}

/** Actions (Reset, InsertMedia, EjectMedia) answer 202 with a task monitor. */
export interface AsyncTaskConfig {
  /** The monitor answers 202 this many times before the result. */
  polls: number;
  /** The task ends in Exception and the action has no effect. */
  fail?: boolean;
}

export interface SystemConfig {
  id: string;
  name?: string;
  username: string;
  password: string;
  personality?: PersonalityName;
  powerState?: 'On' | 'Off';
  /** Shorthand for nics without addresses. */
  macs?: string[];
  nics?: NICConfig[];
  cpu?: CPUConfig;
  memoryGiB?: number;
  disks?: DiskConfig[];
  manufacturer?: string;
  model?: string;
  serialNumber?: string;
  uuid?: string;
  biosVersion?: string;
  /** The manager's FirmwareVersion (e.g. an iDRAC older than 6.00.00.00). */
  firmwareVersion?: string;
  /** false: no virtual media at all (a BMC without the feature or licence). */
  virtualMedia?: boolean;
  etag?: ETagMode;
  /** PATCH without If-Match answers 412. */
  requireIfMatch?: boolean;
  /** false: Continuous boot overrides are refused (400), like BMCs that dropped it. */
  continuousBoot?: boolean;
  /** false: no SecureBoot resource (a BMC without UEFI secure boot); present by default. */
  secureBoot?: boolean;
  /** SecureBootEnable at start (default false). */
  secureBootEnabled?: boolean;
  /** A SecureBootEnable PATCH is staged and takes effect at the next power-on (BIOS-job BMCs such as iDRAC). */
  secureBootAppliesAtBoot?: boolean;
  /** Power transitions take this long: a fixed delay or a [min, max] range (ms). */
  powerDelayMs?: number | [number, number];
  /** Show PoweringOn/PoweringOff while a transition is pending. */
  transitionalStates?: boolean;
  asyncTasks?: AsyncTaskConfig;
  faults?: FaultConfig;
}

export interface StateChangeEvent {
  type: 'power-on' | 'power-off' | 'boot-override' | 'virtual-media';
  system: string;
  powerState: 'On' | 'Off';
  /** On power-on: the device the system booted from; otherwise the configured override target. */
  bootSourceTarget: string;
  /** As it was when the system booted (a consumed Once still reads Once here). */
  bootSourceEnabled: string;
  bootSourceMode: string;
  virtualMedia: { inserted: boolean; image?: string };
  macs: string[];
  /** ISO time on the emulator's clock. */
  time: string;
}
