// From a request's spec.bmc to a usable driver: parse the address with domain/bmc, check it
// against the network guard (resolving names), read the credentials, create the driver through
// the registry and put it behind the per-BMC gate. Every connection goes to an address the guard
// checked: IPMI and plain HTTP get the checked address instead of the name (no certificate names
// the host); HTTPS keeps the name for SNI and the certificate check and connects only to the
// checked addresses (pinnedAddresses), so a name that rebinds after the check reaches nothing new.
// Each connect() checks again: a later request follows the name's new addresses only if allowed.
import { hostPortOf, parseBMCAddress } from '../../domain/bmc/index.js';
import type { ParsedBMCAddress } from '../../domain/bmc/index.js';
import type { BMCDetails } from '../../domain/baremetalhost.js';
import type { BMCConnectionOptions, BMCDriver, BMCDriverFactory } from '../bmc/types.js';
import { gatedDriver } from './bmc-gate.js';
import type { BMCGate } from './bmc-gate.js';
import { permanent } from './errors.js';
import type { ReadCredentials } from './credentials.js';
import type { NetworkGuard } from './network-guard.js';

export interface Connection {
  driver: BMCDriver;
  address: ParsedBMCAddress;
  /** host:port of the BMC: the key of its command line. */
  key: string;
  credentials: ReadCredentials;
}

export interface ConnectDeps {
  guard: NetworkGuard;
  gate: BMCGate;
  factory: BMCDriverFactory;
  timeoutMs: number;
  ipmiCommandIntervalMs: number;
}

/** Parses spec.bmc.address; permanent UnknownBMCScheme / InvalidBMCAddress on failure. */
function parseAddress(bmc: Pick<BMCDetails, 'address'>): ParsedBMCAddress {
  const parsed = parseBMCAddress(bmc.address);
  if (parsed.kind === 'parsed') {
    return parsed.bmc;
  }
  if (parsed.kind === 'none') {
    throw permanent('InvalidBMCAddress', 'Empty BMC address');
  }
  const reason = parsed.error.reason === 'unknown-scheme' ? 'UnknownBMCScheme' : 'InvalidBMCAddress';
  throw permanent(reason, parsed.error.message);
}

/** The capabilities of an address, or undefined when it does not parse (used for gating). */
export function tryParseAddress(address: string): ParsedBMCAddress | undefined {
  const parsed = parseBMCAddress(address);
  return parsed.kind === 'parsed' ? parsed.bmc : undefined;
}

/** The driver's address and pinned addresses for a BMC whose host the guard checked as `checked`. */
export function pinTo(address: ParsedBMCAddress, checked: readonly string[]): Pick<BMCConnectionOptions, 'address' | 'pinnedAddresses'> {
  const first = checked[0];
  if (first === undefined || first === address.host) {
    return { address };
  }
  if (address.protocol === 'https') {
    return { address, pinnedAddresses: [...checked] };
  }
  return { address: { ...address, host: first } };
}

export async function connect(deps: ConnectDeps, bmc: BMCDetails, credentials: ReadCredentials, signal?: AbortSignal): Promise<Connection> {
  const parsed = parseAddress(bmc);
  const checked = await deps.guard.checkHost(parsed.host, 'BMC address');
  const driver = deps.factory({
    ...pinTo(parsed, checked),
    credentials: credentials.credentials,
    disableCertificateVerification: bmc.disableCertificateVerification === true,
    timeoutMs: deps.timeoutMs,
  });
  const key = hostPortOf(parsed);
  const spacingMs = parsed.driver === 'ipmi' ? deps.ipmiCommandIntervalMs : 0;
  const gated = gatedDriver(driver, { gate: deps.gate, key, family: parsed.driver, timeoutMs: deps.timeoutMs + 1000, spacingMs, signal });
  return { driver: gated, address: parsed, key, credentials };
}
