// Metal3DataTemplate, Metal3Data and Metal3DataClaim (reference/capm3-ipam.md §7) in their
// v1beta2 (hub) wire form, and the names Ironhook adds around them. Inputs come from the API
// server, so every field is optional here; the renderers decide what a missing field means.
import type { SecretReference } from '../k8s.js';
import type { Metal3ObjectRef } from '../capi/types.js';

export const Kind = {
  Metal3DataTemplate: 'Metal3DataTemplate',
  Metal3Data: 'Metal3Data',
  Metal3DataClaim: 'Metal3DataClaim',
} as const;

export const Resource = {
  Metal3DataTemplate: 'metal3datatemplates',
  Metal3Data: 'metal3datas',
  Metal3DataClaim: 'metal3dataclaims',
} as const;

/** Upstream's finalizers (§1); in Ironhook Metacontroller's finalizers play their part. */
export const UpstreamFinalizer = {
  Metal3DataTemplate: 'metal3datatemplate.infrastructure.cluster.x-k8s.io',
  Metal3Data: 'metal3data.infrastructure.cluster.x-k8s.io',
  Metal3DataClaim: 'metal3dataclaim.infrastructure.cluster.x-k8s.io',
} as const;

/** Metacontroller object names (manifests/controllers/metal3data.yaml). */
export const ControllerName = {
  Metal3DataTemplate: 'ironhook-metal3datatemplate',
  Metal3Data: 'ironhook-metal3data',
  Metal3DataClaim: 'ironhook-metal3dataclaim',
} as const;

/** On each Metal3Data: the claim it serves (hashed when long), so the claim can find it. */
export const DATA_CLAIM_LABEL = 'ironhook.dev/metal3dataclaim';
/** On each IPClaim of a Metal3Data (and so on its IPAddress): the Metal3Data's name. */
export const DATA_LABEL = 'ironhook.dev/metal3data';

/** On each Metal3Data, fixed at creation: the objects its rendering reads. */
export const RenderAnnotation = {
  Metal3Machine: 'ironhook.dev/metal3machine',
  BareMetalHost: 'ironhook.dev/baremetalhost',
  Machine: 'ironhook.dev/machine',
} as const;

export const SECRET_TYPE = 'infrastructure.cluster.x-k8s.io/secret';
export const META_DATA_KEY = 'metaData';
export const NETWORK_DATA_KEY = 'networkData';

export type SourceObject = 'machine' | 'metal3machine' | 'baremetalhost';

export interface FromPool {
  key: string;
  name: string;
  apiGroup?: string;
  kind?: string;
}

export interface MetaData {
  strings?: { key: string; value: string }[];
  objectNames?: { key: string; object: SourceObject }[];
  indexes?: { key: string; offset?: number; step?: number; prefix?: string; suffix?: string }[];
  namespaces?: { key: string }[];
  ipAddressesFromPool?: FromPool[];
  prefixesFromPool?: FromPool[];
  gatewaysFromPool?: FromPool[];
  dnsServersFromPool?: FromPool[];
  fromHostInterfaces?: { key: string; interface?: string; fromBootMAC?: boolean }[];
  fromLabels?: { key: string; object: SourceObject; label: string }[];
  fromAnnotations?: { key: string; object: SourceObject; annotation: string }[];
}

export interface FromPoolAnnotation {
  object: SourceObject;
  annotation: string;
}

export interface PoolReference {
  name?: string;
  kind?: string;
  apiGroup?: string;
}

export interface MacAddressSource {
  string?: string;
  fromHostInterface?: string;
  fromAnnotation?: { object: SourceObject; annotation: string };
}

interface LinkCommon {
  id: string;
  name?: string;
  mtu?: number;
  macAddress?: MacAddressSource;
}

export interface EthernetLink extends LinkCommon {
  type: string;
}

export interface BondLink extends LinkCommon {
  bondMode: string;
  bondXmitHashPolicy?: string;
  bondLinks?: string[];
  parameters?: { name: string; value?: unknown }[];
}

export interface VlanLink extends LinkCommon {
  vlanID: number;
  vlanLink: string;
}

export interface GatewaySource {
  string?: string;
  fromIPPool?: string;
  fromPoolRef?: PoolReference;
  fromPoolAnnotation?: FromPoolAnnotation;
}

export interface Services {
  dns?: string[];
  dnsFromIPPool?: string;
}

export interface Route {
  network: string;
  prefix?: number;
  gateway?: GatewaySource;
  services?: Services;
}

export interface StaticNetwork {
  id: string;
  link: string;
  ipAddressFromIPPool?: string;
  fromPoolRef?: PoolReference;
  fromPoolAnnotation?: FromPoolAnnotation;
  routes?: Route[];
}

export interface DynamicNetwork {
  id: string;
  link: string;
  routes?: Route[];
}

export interface NetworkData {
  links?: { ethernets?: EthernetLink[]; bonds?: BondLink[]; vlans?: VlanLink[] };
  networks?: {
    ipv4?: StaticNetwork[];
    ipv6?: StaticNetwork[];
    ipv4DHCP?: DynamicNetwork[];
    ipv6DHCP?: DynamicNetwork[];
    ipv6SLAAC?: DynamicNetwork[];
  };
  services?: Services;
}

export interface Metal3DataTemplateSpec {
  clusterName?: string;
  metaData?: MetaData;
  networkData?: NetworkData;
}

export interface IndexEntry {
  name: string;
  index: number;
}

export interface Metal3DataTemplateStatus {
  indexes?: IndexEntry[];
  lastUpdated?: string;
}

export interface Metal3DataSpec {
  index?: number;
  template?: Metal3ObjectRef;
  claim?: Metal3ObjectRef;
  metaData?: SecretReference;
  networkData?: SecretReference;
}

/** Ironhook's additions to the Metal3Data status; upstream clients ignore the block. */
export interface Metal3DataIronhookStatus {
  /** What the Metal3Data waits for (not an error: it resolves by itself). */
  waitingFor?: string;
  /** The IP addresses it holds, by pool name. */
  addresses?: Record<string, string>;
}

export interface Metal3DataStatus {
  ready?: boolean;
  errorMessage?: string;
  ironhook?: Metal3DataIronhookStatus;
}

export interface Metal3DataClaimSpec {
  template?: Metal3ObjectRef;
}

/** The objects a claim's data is rendered from, found by the claim's own hook. */
export interface ClaimSources {
  metal3Machine?: string;
  bareMetalHost?: string;
  machine?: string;
  waitingFor?: string;
}

export interface Metal3DataClaimStatus {
  renderedData?: Metal3ObjectRef;
  errorMessage?: string;
  ironhook?: ClaimSources;
}
