// The one interface every BMC driver implements. The pool picks an
// implementation by the address's driver family (domain/bmc scheme registry).
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import type { ParsedBMCAddress } from '../../domain/bmc/index.js';
import type { ErrorKind } from '../../domain/operations.js';
import { DriverError } from '../errors.js';

export interface BMCCredentials {
  username: string;
  password: string;
}

export interface BMCConnectionOptions {
  address: ParsedBMCAddress;
  credentials: BMCCredentials;
  /** Skip TLS verification (spec.bmc.disableCertificateVerification); off by default. */
  disableCertificateVerification: boolean;
  /** PEM bundle to trust for this BMC, when it has a private CA. */
  caBundle?: string;
  /**
   * The addresses the network guard checked for a host name in `address`: the driver connects to
   * these only and never resolves the name again (TLS still verifies the certificate by the name).
   */
  pinnedAddresses?: readonly string[];
  /** Upper bound for one BMC call, connect to last byte. */
  timeoutMs: number;
}

export type PowerState = 'on' | 'off';

export type PowerAction =
  | 'on'
  | 'off' // hard: Redfish ForceOff, IPMI power off
  | 'soft-off' // Redfish GracefulShutdown, IPMI power soft
  | 'reboot' // hard: off, wait, on
  | 'soft-reboot';

export type BootDevice = 'pxe' | 'disk' | 'cdrom' | 'bios' | 'uefi-http';

export interface BootOptions {
  device: BootDevice;
  /** Continuous (true) or once (false). */
  persistent: boolean;
  mode: 'UEFI' | 'legacy';
  /** For uefi-http. */
  httpBootURI?: string;
}

export interface VirtualMediaState {
  inserted: boolean;
  image?: string;
}

export interface BMCCheck {
  reachable: boolean;
  authenticated: boolean;
  powerState?: PowerState;
  /** What the BMC says it is (Redfish: Manufacturer/Model/FirmwareVersion; IPMI: mc info). */
  identity: Record<string, string>;
  /** Capabilities the BMC reported that the scheme needs, and which are missing. */
  missing: string[];
  /** The classified failure that stopped the check early, when one did. */
  problem?: { kind: 'Transient' | 'Permanent'; reason: string; message: string };
}

/** What the host will ask of this BMC beyond its scheme's basics, checked at registration too. */
export interface BMCCheckNeeds {
  /** spec.bootMode is UEFISecureBoot: the BMC must be able to switch UEFI secure boot. */
  secureBoot?: boolean;
}

export interface BMCDriver {
  readonly family: 'redfish' | 'ipmi' | 'idrac';
  check(needs?: BMCCheckNeeds): Promise<BMCCheck>;
  getPower(): Promise<PowerState>;
  /** Returns once the BMC accepted the command; callers wait for the state with waitForPower. */
  setPower(action: PowerAction): Promise<void>;
  setBootDevice(options: BootOptions): Promise<void>;
  insertVirtualMedia(url: string): Promise<void>;
  ejectVirtualMedia(): Promise<void>;
  getVirtualMedia(): Promise<VirtualMediaState>;
  /** UEFI secure boot as the BMC reports it; undefined when the BMC cannot configure it. */
  getSecureBoot(): Promise<boolean | undefined>;
  /** Turns UEFI secure boot on or off (a no-op when already so); returns the value read back, which a BMC may change only at the next boot. */
  setSecureBoot(enabled: boolean): Promise<boolean>;
  /** Out-of-band inventory in the shape of status.hardware. */
  inventory(): Promise<HardwareDetails>;
  /** Release sessions and connections. */
  close(): Promise<void>;
}

/** Every driver failure is one of these: transient ones are retried, permanent ones are not. */
export class BMCError extends DriverError {
  constructor(kind: ErrorKind, reason: string, message: string, options?: { cause?: unknown }) {
    super(kind, reason, message, options);
    this.name = 'BMCError';
  }
}

export type BMCDriverFactory = (options: BMCConnectionOptions) => BMCDriver;
