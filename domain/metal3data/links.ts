// networkData links: bonds, then ethernets, then VLANs, each with the MAC its
// macAddress source gives (a literal, a host NIC by name, or an annotation).
import type { YamlValue } from './goyaml/emit.js';
import { annotationOf, hostInterfaceMac, RenderError, sourceObject, type RenderContext } from './context.js';
import type { BondLink, EthernetLink, MacAddressSource, NetworkData, VlanLink } from './types.js';

type YamlMap = { [key: string]: YamlValue };

const MAC = /^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$/u;
const DEFAULT_MTU = 1500;

function macFrom(source: MacAddressSource, ctx: RenderContext): string {
  if (source.string !== undefined) return source.string;
  if (source.fromHostInterface !== undefined) return hostInterfaceMac(ctx.host, source.fromHostInterface);
  if (source.fromAnnotation !== undefined) return annotationOf(sourceObject(ctx, source.fromAnnotation.object), source.fromAnnotation.annotation);
  throw new RenderError('macAddress needs one of string, fromHostInterface or fromAnnotation');
}

/** The MAC of a link, or undefined when the link has no macAddress (the key is then omitted). */
function linkMac(id: string, source: MacAddressSource | undefined, ctx: RenderContext): string | undefined {
  if (source === undefined) return undefined;
  const mac = macFrom(source, ctx);
  if (MAC.test(mac)) return mac;
  const nic = source.string === undefined && source.fromHostInterface !== undefined ? ` (host NIC ${source.fromHostInterface}'s MAC)` : '';
  throw new RenderError(`link ${id}: "${mac}"${nic} is not a MAC address`);
}

function common(link: { id: string; name?: string; mtu?: number }): YamlMap {
  return { id: link.id, mtu: link.mtu ?? DEFAULT_MTU, ...(link.name !== undefined && link.name !== '' && { name: link.name }) };
}

function withMac(map: YamlMap, key: string, mac: string | undefined): YamlMap {
  return mac === undefined ? map : { ...map, [key]: mac };
}

/** Bond parameter values are free JSON; they are written as go-yaml writes JSON values. */
function jsonToYaml(value: unknown): YamlValue {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(jsonToYaml);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonToYaml(v)]));
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

function bond(link: BondLink, ctx: RenderContext): YamlMap {
  const out = withMac(
    {
      ...common(link),
      // Upstream writes the list as is: null when the template has none.
      bond_links: link.bondLinks === undefined ? null : [...link.bondLinks],
      bond_mode: link.bondMode,
      bond_xmit_hash_policy: link.bondXmitHashPolicy ?? '',
      type: 'bond',
    },
    'ethernet_mac_address',
    linkMac(link.id, link.macAddress, ctx),
  );
  for (const param of link.parameters ?? []) {
    const key = `bond_${param.name}`;
    if (key in out) throw new RenderError(`bond ${link.id}: parameter ${param.name} collides with ${key}`);
    out[key] = jsonToYaml(param.value);
  }
  return out;
}

function ethernet(link: EthernetLink, ctx: RenderContext): YamlMap {
  return withMac({ ...common(link), type: link.type }, 'ethernet_mac_address', linkMac(link.id, link.macAddress, ctx));
}

function vlan(link: VlanLink, ctx: RenderContext): YamlMap {
  const map = { ...common(link), type: 'vlan', vlan_id: link.vlanID, vlan_link: link.vlanLink };
  return withMac(map, 'vlan_mac_address', linkMac(link.id, link.macAddress, ctx));
}

export function renderLinks(links: NetworkData['links'], ctx: RenderContext): YamlValue[] {
  return [
    ...(links?.bonds ?? []).map((link) => bond(link, ctx)),
    ...(links?.ethernets ?? []).map((link) => ethernet(link, ctx)),
    ...(links?.vlans ?? []).map((link) => vlan(link, ctx)),
  ];
}
