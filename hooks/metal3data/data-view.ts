// What a Metal3Data sync sees, read once from the request: its template and claim, the objects
// named in its ironhook.dev/* annotations (Metal3Machine, BareMetalHost, Machine), its IPClaim,
// IPAddressClaim and Secret children, same-named Secrets it does not own, the IPAddresses of its
// IPClaims and the namespace's Cluster API IPAddresses.
import { CAPI_GROUP, CapiKind, INFRA_GROUP } from '../../domain/capi/types.js';
import { CAPI_IPAM_GROUP, IPAM_GROUP, Kind as IpamKind } from '../../domain/ipam/types.js';
import type { KObject } from '../../domain/k8s.js';
import { Kind, META_DATA_KEY, NETWORK_DATA_KEY, RenderAnnotation, type Metal3DataTemplateSpec } from '../../domain/metal3data/types.js';
import { isDeleting, isRecord, named, objectsOf, ownerOf, rec, str, type CompositeRequest } from '../kit/index.js';

export interface NeededSecret {
  key: typeof META_DATA_KEY | typeof NETWORK_DATA_KEY;
  name: string;
}

export interface DataView {
  c: CompositeRequest;
  data: KObject;
  name: string;
  namespace: string;
  template: KObject | undefined;
  spec: Metal3DataTemplateSpec;
  claim: KObject | undefined;
  m3mName: string;
  m3m: KObject | undefined;
  host: KObject | undefined;
  machine: KObject | undefined;
  ipClaims: KObject[];
  /** Cluster API IPAddressClaims (pools of other kinds than Metal3's IPPool). */
  capiClaims: KObject[];
  /** `ipam.cluster.x-k8s.io/<version>` the controller declares IPAddressClaim children in; none: not served. */
  capiApiVersion: string | undefined;
  secrets: KObject[];
  related: { secrets: KObject[]; addresses: KObject[]; capiAddresses: KObject[] };
}

/**
 * `ipam.cluster.x-k8s.io/<version>` of the controller's IPAddressClaim child rule: Cluster API
 * pools are served exactly when the CompositeController declares those children.
 */
export function capiApiVersionOf(controller: KObject | undefined): string | undefined {
  const rules = rec(controller?.spec).childResources;
  if (!Array.isArray(rules)) return undefined;
  const rule = rules.find(
    (r): r is { apiVersion: string } => isRecord(r) && r.resource === 'ipaddressclaims' && str(r.apiVersion).startsWith(`${CAPI_IPAM_GROUP}/`),
  );
  return rule?.apiVersion;
}

function annotation(data: KObject, key: string): string {
  return data.metadata.annotations?.[key] ?? '';
}

export function templateNameOf(data: KObject): string {
  return str(rec(rec(data.spec).template).name);
}

export function claimNameOf(data: KObject): string {
  return str(rec(rec(data.spec).claim).name);
}

function metal3MachineNameOf(data: KObject): string {
  return annotation(data, RenderAnnotation.Metal3Machine);
}

/** The Secret names a Metal3Data uses: spec.metaData / spec.networkData, else `<m3m>-metadata|-networkdata`. */
export function secretNames(data: KObject): { metaData: string; networkData: string } {
  const spec = rec(data.spec);
  const m3m = metal3MachineNameOf(data);
  const fallback = (suffix: string): string => (m3m === '' ? '' : `${m3m}-${suffix}`);
  return {
    metaData: str(rec(spec.metaData).name) || fallback('metadata'),
    networkData: str(rec(spec.networkData).name) || fallback('networkdata'),
  };
}

/** The claim this data serves, if it still lives (same name; same UID when the data recorded one). */
export function liveClaim(v: DataView): KObject | undefined {
  const owner = ownerOf(v.data, Kind.Metal3DataClaim, INFRA_GROUP);
  const claim = v.claim;
  if (claim === undefined || isDeleting(claim)) return undefined;
  return owner === undefined || claim.metadata.uid === undefined || owner.uid === claim.metadata.uid ? claim : undefined;
}

export function readView(c: CompositeRequest): DataView {
  const data = c.parent;
  const ns = c.namespace;
  const template = named(objectsOf(c.related, Kind.Metal3DataTemplate, INFRA_GROUP, ns), templateNameOf(data));
  const m3mName = metal3MachineNameOf(data);
  return {
    c,
    data,
    name: data.metadata.name ?? '',
    namespace: ns,
    template,
    spec: rec(template?.spec),
    claim: named(objectsOf(c.related, Kind.Metal3DataClaim, INFRA_GROUP, ns), claimNameOf(data)),
    m3mName,
    m3m: named(objectsOf(c.related, CapiKind.Metal3Machine, INFRA_GROUP, ns), m3mName),
    host: named(objectsOf(c.related, 'BareMetalHost', 'metal3.io', ns), annotation(data, RenderAnnotation.BareMetalHost)),
    machine: named(objectsOf(c.related, CapiKind.Machine, CAPI_GROUP, ns), annotation(data, RenderAnnotation.Machine)),
    ipClaims: objectsOf(c.children, IpamKind.IPClaim, IPAM_GROUP, ns),
    capiClaims: objectsOf(c.children, IpamKind.IPAddressClaim, CAPI_IPAM_GROUP, ns),
    capiApiVersion: capiApiVersionOf(c.controller),
    secrets: objectsOf(c.children, 'Secret', '', ns),
    related: {
      secrets: objectsOf(c.related, 'Secret', '', ns),
      addresses: objectsOf(c.related, IpamKind.IPAddress, IPAM_GROUP, ns),
      capiAddresses: objectsOf(c.related, IpamKind.IPAddress, CAPI_IPAM_GROUP, ns),
    },
  };
}

/** The Secrets the template asks for (one per section it defines). */
export function neededSecrets(v: DataView): NeededSecret[] {
  const names = secretNames(v.data);
  const needed: NeededSecret[] = [];
  if (v.spec.metaData !== undefined) needed.push({ key: META_DATA_KEY, name: names.metaData });
  if (v.spec.networkData !== undefined) needed.push({ key: NETWORK_DATA_KEY, name: names.networkData });
  return needed;
}
