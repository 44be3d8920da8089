// What rendering reads: the Metal3Data's own facts, the Metal3Machine, Machine and BareMetalHost
// it was created for, and the address each IP pool gave it. Pure data; the hook assembles it.
import type { KObject } from '../k8s.js';
import { formatAddress } from '../ipam/address.js';
import { goYaml, type YamlValue } from './goyaml/emit.js';
import { GoYamlError } from './goyaml/read.js';
import type { SourceObject } from './types.js';

/** What an IPAddress of one pool says (address, prefix, gateway, DNS servers). */
export interface PoolAddress {
  address: string;
  prefix: number;
  gateway: string;
  dnsServers: string[];
}

export interface RenderContext {
  /** The Metal3Data's namespace (the `namespaces` metaData source). */
  namespace: string;
  index: number;
  metal3Machine: KObject;
  machine: KObject;
  host: KObject;
  /** By pool name; every pool the template references must be present. */
  addresses: ReadonlyMap<string, PoolAddress>;
}

/** A template that cannot be rendered for this host; the text goes to status.errorMessage. */
export class RenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderError';
  }
}

/** A Secret's text as upstream's yaml.Marshal writes it; what it cannot write fails the render. */
export function marshalYaml(value: YamlValue): string {
  try {
    return goYaml(value);
  } catch (error) {
    if (error instanceof GoYamlError) throw new RenderError(error.message);
    throw error;
  }
}

export function sourceObject(ctx: Pick<RenderContext, 'metal3Machine' | 'machine' | 'host'>, which: SourceObject): KObject {
  if (which === 'machine') return ctx.machine;
  if (which === 'metal3machine') return ctx.metal3Machine;
  return ctx.host;
}

export function poolAddress(ctx: RenderContext, pool: string): PoolAddress {
  const found = ctx.addresses.get(pool);
  if (found === undefined) throw new RenderError(`no address from IPPool ${pool}`);
  return found;
}

/**
 * The text of a nil mask (a prefix that does not fit the family): Go's String() of an empty
 * net.IP for IPv6, and for IPv4 of the 12-byte IPv4-in-IPv6 prefix upstream puts before the mask.
 */
const NO_MASK = { v4: '?00000000000000000000ffff', v6: '<nil>' };

/**
 * Upstream's translateMask, Go's net.IP(net.CIDRMask(prefix, bits)).String(): a dotted quad for
 * IPv4, RFC 5952 text for IPv6, and NO_MASK when the prefix does not fit the family.
 */
export function netmask(prefix: number, ipv4: boolean): string {
  const bits = ipv4 ? 32 : 128;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return ipv4 ? NO_MASK.v4 : NO_MASK.v6;
  const ones = (1n << BigInt(prefix)) - 1n;
  return formatAddress({ family: ipv4 ? 4 : 6, value: ones << BigInt(bits - prefix) });
}

interface Nic {
  name?: unknown;
  mac?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function nicsOf(host: KObject): Nic[] | undefined {
  const status = host.status as { hardware?: { nics?: unknown } } | undefined;
  const nics = status?.hardware?.nics;
  return Array.isArray(nics) ? (nics as Nic[]) : undefined;
}

/**
 * The MAC of the first host NIC called `name` in status.hardware.nics, as inspection recorded it
 * (possibly empty: metaData then renders "", a link rejects it as no MAC address).
 */
export function hostInterfaceMac(host: KObject, name: string): string {
  const nics = nicsOf(host);
  const which = `BareMetalHost ${host.metadata.name ?? ''}`;
  if (nics === undefined) throw new RenderError(`interface ${name}: ${which} has no inspected NICs (status.hardware.nics)`);
  const nic = nics.find((n) => text(n.name) === name);
  if (nic !== undefined) return text(nic.mac);
  const known = nics.map((n) => text(n.name)).filter((n) => n !== '');
  const list = known.length === 0 ? 'it has no named NICs' : `its NICs are ${known.join(', ')}`;
  throw new RenderError(`interface ${name} not found on ${which} (${list})`);
}

/** The host's spec.bootMACAddress. */
export function bootMac(host: KObject): string {
  const spec = host.spec as { bootMACAddress?: unknown } | undefined;
  const mac = spec?.bootMACAddress;
  if (typeof mac === 'string' && mac !== '') return mac;
  throw new RenderError(`BareMetalHost ${host.metadata.name ?? ''} has no spec.bootMACAddress`);
}

export function labelOf(obj: KObject, key: string): string {
  return obj.metadata.labels?.[key] ?? '';
}

export function annotationOf(obj: KObject, key: string): string {
  return obj.metadata.annotations?.[key] ?? '';
}
