// The networkData Secret: OpenStack network_data.json's shape written as YAML,
// `links`, `networks` (static from pools, DHCP, SLAAC, with routes) and `services` (DNS).
import type { YamlValue } from './goyaml/emit.js';
import { annotationOf, marshalYaml, netmask, poolAddress, RenderError, sourceObject, type RenderContext } from './context.js';
import { renderLinks } from './links.js';
import { gatewayPool, staticNetworkPool } from './pools.js';
import type { DynamicNetwork, FromPoolAnnotation, NetworkData, Route, Services, StaticNetwork } from './types.js';

type YamlMap = { [key: string]: YamlValue };

function poolFromAnnotation(ctx: RenderContext): (source: FromPoolAnnotation) => string {
  return (source) => {
    const name = annotationOf(sourceObject(ctx, source.object), source.annotation);
    if (name === '') throw new RenderError(`annotation ${source.annotation} on the ${source.object} must name an IP pool`);
    return name;
  };
}

/** Literal DNS servers first, then the DNS servers of the pool's address. */
function dnsServices(services: Services | undefined, ctx: RenderContext): YamlValue[] {
  const addresses = [...(services?.dns ?? [])];
  const pool = services?.dnsFromIPPool;
  if (pool !== undefined && pool !== '') addresses.push(...poolAddress(ctx, pool).dnsServers);
  return addresses.map((address) => ({ address, type: 'dns' }));
}

function gateway(route: Route, ctx: RenderContext): string {
  if (route.gateway.string !== undefined) return route.gateway.string;
  const pool = gatewayPool(route.gateway, poolFromAnnotation(ctx));
  return pool?.name === undefined ? '' : poolAddress(ctx, pool.name).gateway;
}

function routes(list: Route[] | undefined, ipv4: boolean, ctx: RenderContext): YamlValue[] {
  return (list ?? []).map((route) => ({
    gateway: gateway(route, ctx),
    netmask: netmask(route.prefix ?? 0, ipv4),
    network: route.network,
    services: dnsServices(route.services, ctx),
  }));
}

function staticNetwork(net: StaticNetwork, ipv4: boolean, ctx: RenderContext): YamlMap {
  const pool = staticNetworkPool(net, poolFromAnnotation(ctx));
  const address = poolAddress(ctx, pool.name);
  return {
    id: net.id,
    ip_address: address.address,
    link: net.link,
    netmask: netmask(address.prefix, ipv4),
    routes: routes(net.routes, ipv4, ctx),
    type: ipv4 ? 'ipv4' : 'ipv6',
  };
}

function dynamicNetwork(net: DynamicNetwork, type: 'ipv4_dhcp' | 'ipv6_dhcp' | 'ipv6_slaac', ctx: RenderContext): YamlMap {
  return { id: net.id, link: net.link, routes: routes(net.routes, type === 'ipv4_dhcp', ctx), type };
}

function renderNetworks(networks: NetworkData['networks'], ctx: RenderContext): YamlValue[] {
  const { ipv4 = [], ipv6 = [], ipv4DHCP = [], ipv6DHCP = [], ipv6SLAAC = [] } = networks ?? {};
  return [
    ...ipv4.map((net) => staticNetwork(net, true, ctx)),
    ...ipv6.map((net) => staticNetwork(net, false, ctx)),
    ...ipv4DHCP.map((net) => dynamicNetwork(net, 'ipv4_dhcp', ctx)),
    ...ipv6DHCP.map((net) => dynamicNetwork(net, 'ipv6_dhcp', ctx)),
    ...ipv6SLAAC.map((net) => dynamicNetwork(net, 'ipv6_slaac', ctx)),
  ];
}

/** The networkData structure; `links`, `networks` and `services` are always present. */
export function networkDataValue(data: NetworkData, ctx: RenderContext): YamlMap {
  return {
    links: renderLinks(data.links, ctx),
    networks: renderNetworks(data.networks, ctx),
    services: dnsServices(data.services, ctx),
  };
}

/** The text of the `networkData` key. */
export function renderNetworkData(data: NetworkData, ctx: RenderContext): string {
  return marshalYaml(networkDataValue(data, ctx));
}
