// Connection options for a driver pointed at an emulated system: what tests, the local
// environment and users' own CI need to talk to the emulator through the real driver.
import { parseBMCAddress } from '../../domain/bmc/index.js';
import type { BMCConnectionOptions } from '../../drivers/bmc/types.js';
import type { RedfishEmulator } from './server.js';

export interface EmulatedConnection {
  /** Scheme to use (default "redfish"; e.g. "redfish-virtualmedia", "idrac-virtualmedia"). */
  readonly scheme?: string;
  readonly username: string;
  readonly password: string;
  /** Default 5 s. */
  readonly timeoutMs?: number;
  /** Trust the emulator's certificate (default) or skip verification. */
  readonly tls?: 'trust-ca' | 'insecure' | 'system-store';
}

export function emulatedConnection(emulator: RedfishEmulator, id: string, connection: EmulatedConnection): BMCConnectionOptions {
  const parsed = parseBMCAddress(emulator.address(id, connection.scheme ?? 'redfish'));
  if (parsed.kind !== 'parsed') {
    throw new Error(`emulator address for ${id} does not parse`);
  }
  const tls = connection.tls ?? 'trust-ca';
  return {
    address: parsed.bmc,
    credentials: { username: connection.username, password: connection.password },
    disableCertificateVerification: tls === 'insecure',
    ...(tls === 'trust-ca' && emulator.ca !== undefined ? { caBundle: emulator.ca } : {}),
    timeoutMs: connection.timeoutMs ?? 5_000,
  };
}
