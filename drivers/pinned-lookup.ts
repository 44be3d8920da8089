// Connections pinned to the addresses the network guard checked (docs/drivers.md, "Network
// guard"). The guard resolves a host name once and checks every address; a socket to that name
// then connects to one of exactly those addresses, because net's `lookup` hook answers from them
// and never asks DNS again. A name that rebinds after the check cannot take a connection
// elsewhere, on the first socket or on any reconnect. The name itself stays the TLS servername
// (SNI) and the Host header, so certificates are still verified against the name.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** The addresses the guard checked for a host name; undefined when it checked none. */
export type CheckedAddresses = (hostname: string) => readonly string[] | undefined;

function wantedFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

function entriesFor(addresses: readonly string[], family: 0 | 4 | 6): LookupAddress[] {
  return addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => entry.family !== 0 && (family === 0 || entry.family === family));
}

/**
 * A net/tls `lookup` that answers only with checked addresses (ENOTFOUND for anything else),
 * asynchronously as dns.lookup does.
 */
export function pinnedLookup(checked: CheckedAddresses): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const entries = entriesFor(checked(host) ?? [], wantedFamily(options.family));
    const first = entries[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`${host}: no address checked by the network guard`);
      error.code = 'ENOTFOUND';
      process.nextTick(callback, error, []);
    } else if (options.all === true) {
      process.nextTick(callback, null, entries);
    } else {
      process.nextTick(callback, null, first.address, first.family);
    }
  };
}
