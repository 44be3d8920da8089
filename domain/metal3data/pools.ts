// The IP pools a template needs: every pool any metaData list, static network,
// route gateway or DNS source names, one entry per pool name, as upstream's getReferencedPools
// collects them. A name used with two different kinds is an error. Pools named by an annotation
// are resolved from the rendering's objects.
import { IPAM_GROUP, Kind as IpamKind } from '../ipam/types.js';
import { RenderError } from './context.js';
import type {
  DynamicNetwork,
  FromPoolAnnotation,
  GatewaySource,
  Metal3DataTemplateSpec,
  PoolReference,
  Route,
  Services,
  SourceObject,
  StaticNetwork,
} from './types.js';

export interface PoolUse {
  name: string;
  apiGroup: string;
  kind: string;
}

/** The annotation's value; undefined while the object is not known yet. */
export type AnnotationLookup = (object: SourceObject, annotation: string) => string | undefined;

export type PoolsResult = { pools: PoolUse[] } | { waitingFor: string };

/**
 * A Metal3 IPPool is ipam.metal3.io/IPPool, where an empty group and an empty kind each default
 * to those (upstream's addRef); anything else is Cluster API's.
 */
export function isMetal3Pool(pool: Pick<PoolUse, 'apiGroup' | 'kind'>): boolean {
  return (pool.apiGroup === '' || pool.apiGroup === IPAM_GROUP) && (pool.kind === '' || pool.kind === IpamKind.IPPool);
}

class Waiting extends Error {}

class Collector {
  readonly byName = new Map<string, PoolUse>();

  constructor(private readonly lookup: AnnotationLookup) {}

  add(name: string | undefined, apiGroup = '', kind = ''): void {
    if (name === undefined || name === '') return;
    const use = { name, apiGroup: apiGroup === '' ? IPAM_GROUP : apiGroup, kind: kind === '' ? IpamKind.IPPool : kind };
    const seen = this.byName.get(name);
    if (seen !== undefined && (seen.apiGroup !== use.apiGroup || seen.kind !== use.kind)) {
      throw new RenderError(`pool ${name} is referenced both as ${seen.kind}.${seen.apiGroup} and as ${use.kind}.${use.apiGroup}`);
    }
    this.byName.set(name, use);
  }

  addRef(ref: PoolReference | undefined): void {
    this.add(ref?.name, ref?.apiGroup ?? '', ref?.kind ?? '');
  }

  fromAnnotation(source: FromPoolAnnotation): string {
    const value = this.lookup(source.object, source.annotation);
    if (value === undefined) throw new Waiting(`the ${source.object} whose annotation ${source.annotation} names the pool`);
    if (value === '') throw new RenderError(`annotation ${source.annotation} on the ${source.object} must name an IP pool`);
    return value;
  }
}

/** The pool a static network takes its address from: annotation, then fromPoolRef, then ipAddressFromIPPool. */
export function staticNetworkPool(net: StaticNetwork, lookup: (source: FromPoolAnnotation) => string): PoolReference {
  if (net.fromPoolAnnotation !== undefined) return { name: lookup(net.fromPoolAnnotation) };
  if (net.fromPoolRef?.name !== undefined && net.fromPoolRef.name !== '') return net.fromPoolRef;
  if (net.ipAddressFromIPPool !== undefined && net.ipAddressFromIPPool !== '') return { name: net.ipAddressFromIPPool };
  throw new RenderError(`network ${net.id} names no IP pool (ipAddressFromIPPool, fromPoolRef or fromPoolAnnotation)`);
}

/** The pool a route gateway comes from, or undefined for a literal (or missing) gateway. */
export function gatewayPool(gateway: GatewaySource | undefined, lookup: (source: FromPoolAnnotation) => string): PoolReference | undefined {
  if (gateway === undefined || gateway.string !== undefined) return undefined;
  if (gateway.fromPoolAnnotation !== undefined) return { name: lookup(gateway.fromPoolAnnotation) };
  if (gateway.fromPoolRef?.name !== undefined && gateway.fromPoolRef.name !== '') return gateway.fromPoolRef;
  return gateway.fromIPPool === undefined || gateway.fromIPPool === '' ? undefined : { name: gateway.fromIPPool };
}

function collectServices(c: Collector, services: Services | undefined): void {
  c.add(services?.dnsFromIPPool);
}

/** fromPoolRef when it names a pool, else the plain pool name (upstream claims it beside an annotation's). */
function collectRefOrName(c: Collector, ref: PoolReference | undefined, name: string | undefined): void {
  if (ref?.name !== undefined && ref.name !== '') c.addRef(ref);
  else c.add(name);
}

/**
 * A route's pools, as upstream claims them even when a literal gateway wins the rendering. On a
 * DHCP or SLAAC network upstream never claims an annotation's pool, so a gateway rendered from it
 * fails there; Ironhook claims that pool when the gateway is rendered from it (a documented
 * deviation).
 */
function collectRoutes(c: Collector, routes: Route[] | undefined, dynamic: boolean): void {
  for (const route of routes ?? []) {
    const annotation = route.gateway.fromPoolAnnotation;
    if (annotation !== undefined && (!dynamic || route.gateway.string === undefined)) c.add(c.fromAnnotation(annotation));
    collectRefOrName(c, route.gateway.fromPoolRef, route.gateway.fromIPPool);
    collectServices(c, route.services);
  }
}

type Networks = NonNullable<NonNullable<Metal3DataTemplateSpec['networkData']>['networks']>;

function staticNetworks(networks: Networks | undefined): StaticNetwork[] {
  return [...(networks?.ipv4 ?? []), ...(networks?.ipv6 ?? [])];
}

function dynamicNetworks(networks: Networks | undefined): DynamicNetwork[] {
  return [...(networks?.ipv4DHCP ?? []), ...(networks?.ipv6DHCP ?? []), ...(networks?.ipv6SLAAC ?? [])];
}

function collectNetworks(c: Collector, spec: Metal3DataTemplateSpec): void {
  const networks = spec.networkData?.networks;
  for (const net of staticNetworks(networks)) {
    if (net.fromPoolAnnotation !== undefined) c.add(c.fromAnnotation(net.fromPoolAnnotation));
    collectRefOrName(c, net.fromPoolRef, net.ipAddressFromIPPool);
    collectRoutes(c, net.routes, false);
  }
  for (const net of dynamicNetworks(networks)) collectRoutes(c, net.routes, true);
  collectServices(c, spec.networkData?.services);
}

function collectMetaData(c: Collector, spec: Metal3DataTemplateSpec): void {
  const meta = spec.metaData;
  for (const list of [meta?.ipAddressesFromPool, meta?.prefixesFromPool, meta?.gatewaysFromPool, meta?.dnsServersFromPool]) {
    for (const item of list ?? []) c.add(item.name, item.apiGroup ?? '', item.kind ?? '');
  }
}

/** Every pool of the template, sorted by name, or what resolving them waits for. */
export function templatePools(spec: Metal3DataTemplateSpec, lookup: AnnotationLookup): PoolsResult {
  const c = new Collector(lookup);
  try {
    collectMetaData(c, spec);
    collectNetworks(c, spec);
  } catch (error) {
    if (error instanceof Waiting) return { waitingFor: error.message };
    throw error;
  }
  const names = [...c.byName.keys()].sort();
  return { pools: names.map((name) => c.byName.get(name)).filter((p): p is PoolUse => p !== undefined) };
}
