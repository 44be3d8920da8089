// The IP pools a template references, as upstream's getReferencedPools collects them: every
// metaData list (always a Metal3 IPPool, whatever apiGroup/kind the entry names), each static
// network's fromPoolAnnotation and, besides it, its fromPoolRef or ipAddressFromIPPool, each route
// gateway's fromPoolAnnotation (static networks only) and fromPoolRef or fromIPPool (a literal
// gateway does not stop them), and every dnsFromIPPool. One entry per name; an empty apiGroup or
// kind means ipam.metal3.io / IPPool, and a name used with two kinds is an error.
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

/** A referenced pool, its apiGroup and kind defaulted as upstream defaults them. */
export interface PoolUse {
  name: string;
  apiGroup: string;
  kind: string;
}

/** The annotation's value; undefined while the object is not known yet. */
export type AnnotationLookup = (object: SourceObject, annotation: string) => string | undefined;

export type PoolsResult = { pools: PoolUse[] } | { waitingFor: string };

/** Upstream's addRef defaults: an empty apiGroup is ipam.metal3.io, an empty kind IPPool. */
export function poolUse(name: string, apiGroup = '', kind = ''): PoolUse {
  return { name, apiGroup: apiGroup === '' ? IPAM_GROUP : apiGroup, kind: kind === '' ? IpamKind.IPPool : kind };
}

/** A Metal3 IPPool (claimed with an IPClaim); anything else is claimed with a Cluster API IPAddressClaim. */
export function isMetal3Pool(pool: PoolUse): boolean {
  return pool.apiGroup === IPAM_GROUP && pool.kind === IpamKind.IPPool;
}

class Waiting extends Error {}

class Collector {
  readonly byName = new Map<string, PoolUse>();

  constructor(private readonly lookup: AnnotationLookup) {}

  add(use: PoolUse): void {
    const seen = this.byName.get(use.name);
    if (seen !== undefined && (seen.apiGroup !== use.apiGroup || seen.kind !== use.kind)) {
      throw new RenderError(`pool ${use.name} is referenced both as ${seen.kind}.${seen.apiGroup} and as ${use.kind}.${use.apiGroup}`);
    }
    if (seen === undefined) this.byName.set(use.name, use);
  }

  /** A fromPoolRef, else a pool name (empty: none). */
  addRefOrName(ref: PoolReference | undefined, name: string | undefined): void {
    if (ref !== undefined && ref.name !== '') this.add(poolUse(ref.name, ref.apiGroup, ref.kind));
    else this.addName(name);
  }

  addName(name: string | undefined): void {
    if (name !== undefined && name !== '') this.add(poolUse(name));
  }

  /** The Metal3 IPPool an annotation names; an annotation reference with both fields empty is none. */
  addFromAnnotation(source: FromPoolAnnotation | undefined): void {
    if (source === undefined) return;
    const object: string = source.object;
    if (object === '' && source.annotation === '') return;
    const value = this.lookup(source.object, source.annotation);
    if (value === undefined) throw new Waiting(`the ${source.object} whose annotation ${source.annotation} names the pool`);
    if (value === '') throw new RenderError(`annotation ${source.annotation} on the ${source.object} must name an IP pool`);
    this.add(poolUse(value));
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
  c.addName(services?.dnsFromIPPool);
}

/** Routes of a static network (its gateway annotations count) or of a DHCP/SLAAC one (they do not). */
function collectRoutes(c: Collector, routes: Route[] | undefined, annotations: boolean): void {
  for (const route of routes ?? []) {
    if (annotations) c.addFromAnnotation(route.gateway.fromPoolAnnotation);
    c.addRefOrName(route.gateway.fromPoolRef, route.gateway.fromIPPool);
    collectServices(c, route.services);
  }
}

type Networks = NonNullable<NonNullable<Metal3DataTemplateSpec['networkData']>['networks']>;

function collectStatic(c: Collector, networks: readonly StaticNetwork[] | undefined): void {
  for (const net of networks ?? []) {
    c.addFromAnnotation(net.fromPoolAnnotation);
    c.addRefOrName(net.fromPoolRef, net.ipAddressFromIPPool);
    collectRoutes(c, net.routes, true);
  }
}

function collectDynamic(c: Collector, networks: readonly DynamicNetwork[] | undefined): void {
  for (const net of networks ?? []) collectRoutes(c, net.routes, false);
}

function collectNetworks(c: Collector, networks: Networks | undefined): void {
  collectStatic(c, networks?.ipv4);
  collectStatic(c, networks?.ipv6);
  collectDynamic(c, networks?.ipv4DHCP);
  collectDynamic(c, networks?.ipv6DHCP);
  collectDynamic(c, networks?.ipv6SLAAC);
}

/** metaData entries name Metal3 IPPools only: upstream ignores their apiGroup and kind. */
function collectMetaData(c: Collector, spec: Metal3DataTemplateSpec): void {
  const meta = spec.metaData;
  for (const list of [meta?.ipAddressesFromPool, meta?.prefixesFromPool, meta?.gatewaysFromPool, meta?.dnsServersFromPool]) {
    for (const item of list ?? []) c.add(poolUse(item.name));
  }
}

/** Every pool of the template, sorted by name, or what resolving them waits for. */
export function templatePools(spec: Metal3DataTemplateSpec, lookup: AnnotationLookup): PoolsResult {
  const c = new Collector(lookup);
  try {
    collectMetaData(c, spec);
    collectNetworks(c, spec.networkData?.networks);
    collectServices(c, spec.networkData?.services);
  } catch (error) {
    if (error instanceof Waiting) return { waitingFor: error.message };
    throw error;
  }
  return { pools: [...c.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}
