// Rendering a parsed BMC address back to text: the canonical address and the pieces drivers
// need (host[:port], the Redfish base URL). parseBMCAddress(renderBMCAddress(x)) gives x back.

import { IPMI_DEFAULT_PRIVILEGE_LEVEL } from './address.js';
import type { ParsedBMCAddress } from './address.js';

const PATH_SAFE = /[A-Za-z0-9\-._~/:@!$&'()*+,;=]/;
const QUERY_SAFE = /[A-Za-z0-9\-._~]/;
const encoder = new TextEncoder();

function percentEncode(text: string, safe: RegExp): string {
  let out = '';
  for (const char of text) {
    if (safe.test(char)) {
      out += char;
      continue;
    }
    for (const byte of encoder.encode(char)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/** A host as it appears in a URL authority: IPv6 literals in brackets. */
function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** "host[:port]" with IPv6 in brackets, e.g. "[fd00::5]:8443". */
export function hostPortOf(bmc: Pick<ParsedBMCAddress, 'host' | 'port'>): string {
  const host = formatHost(bmc.host);
  return bmc.port === undefined ? host : `${host}:${bmc.port}`;
}

/** The Redfish service root origin, e.g. "https://10.0.0.5:8443"; undefined for IPMI-style schemes. */
export function redfishBaseURL(bmc: ParsedBMCAddress): string | undefined {
  return bmc.protocol === 'ipmi' ? undefined : `${bmc.protocol}://${hostPortOf(bmc)}`;
}

/** A canonical address for `bmc`: explicit "scheme://", normalised port, escaped path. */
export function renderBMCAddress(bmc: ParsedBMCAddress): string {
  const path = percentEncode(bmc.path, PATH_SAFE);
  const level = bmc.privilegeLevel;
  const query = level === undefined || level === IPMI_DEFAULT_PRIVILEGE_LEVEL ? '' : `?privilegelevel=${percentEncode(level, QUERY_SAFE)}`;
  return `${bmc.scheme}://${hostPortOf(bmc)}${path}${query}`;
}
