// The network guard: the pool contacts BMCs, agents and image servers only inside the allowed
// networks (ALLOWED_BMC_NETWORKS / --allowed-bmc-networks). A host spec must never turn the pool
// into a probe of internal networks. Names are resolved first and every address is checked.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { permanent, transient } from './errors.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Always refused unless listed in ALLOWED_BMC_NETWORKS exactly: cloud metadata endpoints. */
export const DEFAULT_DENIED_NETWORKS = ['169.254.169.254/32', 'fd00:ec2::254/128'];

type Resolver = (host: string) => Promise<string[]>;

const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export interface NetworkGuardOptions {
  allowed: readonly string[];
  denied?: readonly string[];
  resolve?: Resolver;
}

export interface NetworkGuard {
  /** The configured allow-list as written (for messages and docs). */
  readonly allowed: readonly string[];
  /** True when the literal IP may be contacted. */
  allows(ip: string): boolean;
  /** Resolves `host` and checks every address; returns them. Throws AddressNotAllowed. */
  checkHost(host: string, what: string): Promise<string[]>;
  /** Same for the host of a URL. */
  checkURL(url: string, what: string): Promise<string[]>;
}

/** Parses "10.0.0.0/8" or a bare address (a single-address network); throws on nonsense. */
function parseNetwork(text: string): Range {
  const trimmed = text.trim();
  if (trimmed.includes('/')) {
    return ipaddr.parseCIDR(trimmed);
  }
  const address = ipaddr.parse(trimmed);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

export function parseNetworkList(text: string | undefined): string[] {
  const items = (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const item of items) {
    try {
      parseNetwork(item);
    } catch {
      throw new Error(`invalid network "${item}" (expected a CIDR such as 10.0.0.0/24 or fd00::/64)`);
    }
  }
  return items;
}

function inRange(address: Address, range: Range): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function describeAllowed(allowed: readonly string[]): string {
  return allowed.length === 0 ? 'none are configured; set ALLOWED_BMC_NETWORKS or --allowed-bmc-networks' : allowed.join(', ');
}

export function createNetworkGuard(options: NetworkGuardOptions): NetworkGuard {
  const allowedRanges = options.allowed.map(parseNetwork);
  const deniedRanges = (options.denied ?? DEFAULT_DENIED_NETWORKS).map(parseNetwork);
  const exactlyAllowed = (address: Address): boolean =>
    allowedRanges.some((range) => range[1] === (address.kind() === 'ipv4' ? 32 : 128) && inRange(address, range));
  const resolve = options.resolve ?? dnsResolver;
  const allows = (ip: string): boolean => {
    if (!ipaddr.isValid(ip)) {
      return false;
    }
    const address = ipaddr.process(ip);
    if (deniedRanges.some((range) => inRange(address, range)) && !exactlyAllowed(address)) {
      return false;
    }
    return allowedRanges.some((range) => inRange(address, range));
  };
  const refuse = (what: string, host: string, ip: string): Error =>
    permanent(
      'AddressNotAllowed',
      `${what} ${host}${ip === host ? '' : ` (${ip})`} is outside the networks the driver pool may contact (${describeAllowed(options.allowed)})`,
    );
  const checkHost = async (rawHost: string, what: string): Promise<string[]> => {
    const host = stripBrackets(rawHost);
    const addresses = ipaddr.isValid(host) ? [host] : await resolveOrFail(resolve, host, what);
    const refused = addresses.find((ip) => !allows(ip));
    if (refused !== undefined) {
      throw refuse(what, host, refused);
    }
    return addresses;
  };
  const checkURL = async (url: string, what: string): Promise<string[]> => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw permanent('InvalidURL', `${what} is not a valid URL`);
    }
    return checkHost(parsed.hostname, what);
  };
  return { allowed: options.allowed, allows, checkHost, checkURL };
}

async function resolveOrFail(resolve: Resolver, host: string, what: string): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw transient('BMCUnreachable', `${what} ${host} could not be resolved (${code})`);
  }
  if (addresses.length === 0) {
    throw transient('BMCUnreachable', `${what} ${host} resolved to no address`);
  }
  return addresses;
}
