// Settings of the IPMI driver (docs/ipmi.md): ipmitool's retry knobs, the cipher suites to try,
// Ironic's minimum spacing between commands to one BMC, how the password reaches ipmitool, and
// the ports (clock, process runner, per-BMC gates) that unit tests replace.
import { BMCError } from '../bmc/types.js';
import { execIpmitool } from './exec.js';
import type { IPMIExec } from './exec.js';
import { processGates } from './gate.js';
import type { GateRegistry } from './gate.js';

/** Time as a port: the driver never reads Date.now() or calls setTimeout itself. */
interface IPMIClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

const systemClock: IPMIClock = {
  now: () => Date.now(),
  sleep: async (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
};

/** One ipmitool invocation as seen from outside: no argv, no credentials. */
export interface IPMICommandEvent {
  /** "host:port" of the BMC. */
  bmc: string;
  /** e.g. "chassis power status", "raw 0x00 0x08 0x05". */
  operation: string;
  cipherSuite: number;
  durationMs: number;
  ok: boolean;
  /** The BMCError reason when the invocation failed. */
  reason?: string;
}

export interface IPMISettings {
  /** The ipmitool binary (looked up on PATH when not absolute). */
  ipmitoolPath: string;
  /** Cipher suites in the order tried; the first one that works is remembered per BMC. */
  cipherSuites: readonly number[];
  /** ipmitool -R: attempts per protocol message. */
  retries: number;
  /** ipmitool -N: seconds before the first retransmit (ipmitool adds 1 s per further attempt). */
  retryIntervalSeconds: number;
  /** Added to the time ipmitool itself needs to give up on a dead BMC. */
  timeoutSlackMs: number;
  /** Ironic's min_command_interval: quiet time between two commands to one BMC. */
  minCommandIntervalMs: number;
  /** "env": -E with IPMI_PASSWORD; "file": -f with a 0600 file removed afterwards. */
  passwordMode: 'env' | 'file';
  /** UEFI boot devices: Ironic's raw Set Boot Options ("raw") or ipmitool's options=efiboot. */
  uefiBootMethod: 'raw' | 'efiboot';
  /** Send Ironic's raw 0x00 0x08 0x03 0x08 before every boot device change. */
  disableBootTimeout: boolean;
  /** Attempts (in total) for errors the BMC reports as busy (Ironic's retryable list). */
  busyAttempts: number;
  /** Power polling while a reboot waits for the host to be off. */
  powerPollIntervalMs: number;
  /** How long a hard reboot waits for "off" before it powers on. */
  powerOffTimeoutMs: number;
  /** How long a soft reboot waits for "off" before it falls back to a hard power off. */
  softPowerOffTimeoutMs: number;
  /** Where password files go ("file" mode); the OS temp dir when unset. */
  tempDir: string | undefined;
  clock: IPMIClock;
  exec: IPMIExec;
  /** Per-BMC serialisation and spacing; shared by every driver in the process by default. */
  gates: GateRegistry;
  /** Called after every ipmitool invocation (metrics, debug logs). Never given secrets. */
  observer: ((event: IPMICommandEvent) => void) | undefined;
}

export const DEFAULT_IPMI_SETTINGS: IPMISettings = {
  ipmitoolPath: 'ipmitool',
  cipherSuites: [3, 17],
  retries: 1,
  retryIntervalSeconds: 5,
  timeoutSlackMs: 3000,
  minCommandIntervalMs: 5000,
  passwordMode: 'env',
  uefiBootMethod: 'raw',
  disableBootTimeout: true,
  busyAttempts: 3,
  powerPollIntervalMs: 1000,
  powerOffTimeoutMs: 60_000,
  softPowerOffTimeoutMs: 600_000,
  tempDir: undefined,
  clock: systemClock,
  exec: execIpmitool,
  gates: processGates,
  observer: undefined,
};

/** Suites 0, 1 and 2 have no authentication, integrity or confidentiality; never offered. */
const INSECURE_CIPHER_SUITES = new Set([0, 1, 2]);
const MAX_CIPHER_SUITE = 17;

function invalid(message: string): BMCError {
  return new BMCError('Permanent', 'InvalidSettings', `IPMI settings: ${message}`);
}

function checkCipherSuites(suites: readonly number[]): void {
  if (suites.length === 0) {
    throw invalid('cipherSuites must list at least one suite');
  }
  for (const suite of suites) {
    if (!Number.isInteger(suite) || suite < 0 || suite > MAX_CIPHER_SUITE) {
      throw invalid(`cipher suite ${suite} does not exist (0..${MAX_CIPHER_SUITE})`);
    }
    if (INSECURE_CIPHER_SUITES.has(suite)) {
      throw invalid(`cipher suite ${suite} has no authentication or encryption and is never used`);
    }
  }
}

function checkInteger(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw invalid(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** Defaults plus overrides, checked; throws a permanent BMCError("InvalidSettings"). */
export function resolveIPMISettings(overrides: Partial<IPMISettings> = {}): IPMISettings {
  const settings: IPMISettings = { ...DEFAULT_IPMI_SETTINGS, ...overrides };
  checkCipherSuites(settings.cipherSuites);
  checkInteger('retries', settings.retries, 1);
  checkInteger('retryIntervalSeconds', settings.retryIntervalSeconds, 1);
  checkInteger('busyAttempts', settings.busyAttempts, 1);
  for (const name of ['timeoutSlackMs', 'minCommandIntervalMs', 'powerPollIntervalMs', 'powerOffTimeoutMs', 'softPowerOffTimeoutMs'] as const) {
    checkInteger(name, settings[name], 0);
  }
  return settings;
}

/**
 * How long one ipmitool run may take. Against a dead BMC ipmitool sends Get Channel
 * Authentication Capabilities twice, each with R attempts spaced N, N+1, … seconds (measured:
 * -R 1 -N 1 gives up after 2.1 s, -R 2 -N 2 after 10.1 s), so the bound is that plus slack,
 * capped by the caller's per-call timeout.
 */
export function execTimeoutMs(settings: Pick<IPMISettings, 'retries' | 'retryIntervalSeconds' | 'timeoutSlackMs'>, capMs: number): number {
  let perMessageSeconds = 0;
  for (let attempt = 0; attempt < settings.retries; attempt += 1) {
    perMessageSeconds += settings.retryIntervalSeconds + attempt;
  }
  const derived = 2 * perMessageSeconds * 1000 + settings.timeoutSlackMs;
  return capMs > 0 ? Math.min(derived, capMs) : derived;
}
