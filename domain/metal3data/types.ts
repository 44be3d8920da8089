// Metal3DataTemplate, Metal3Data and Metal3DataClaim in their
// v1beta2 (hub) wire form, and the names Ironhook adds around them. The API server enforces the
// schema, so a field the CRD requires is present; the renderers decide what a missing optional
// field means.
import type { Metal3DataTemplateSpec, Metal3DataTemplateStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3datatemplate.js';
import type { Metal3DataClaimStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3dataclaim.js';

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

// The shapes are generated from manifests/crds (scripts/api-types.ts); the names below are the
// parts the renderers take apart.
export type { Metal3DataTemplateSpec } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3datatemplate.js';
export type { Metal3DataStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3data.js';
export type { Metal3DataClaimStatus } from '../api/infrastructure.cluster.x-k8s.io/v1beta2/metal3dataclaim.js';

export type MetaData = NonNullable<Metal3DataTemplateSpec['metaData']>;
export type NetworkData = NonNullable<Metal3DataTemplateSpec['networkData']>;
type Links = NonNullable<NetworkData['links']>;
type Networks = NonNullable<NetworkData['networks']>;

export type SourceObject = NonNullable<MetaData['objectNames']>[number]['object'];
export type EthernetLink = NonNullable<Links['ethernets']>[number];
export type BondLink = NonNullable<Links['bonds']>[number];
export type VlanLink = NonNullable<Links['vlans']>[number];
export type MacAddressSource = NonNullable<EthernetLink['macAddress']>;
export type StaticNetwork = NonNullable<Networks['ipv4']>[number] | NonNullable<Networks['ipv6']>[number];
export type DynamicNetwork = NonNullable<Networks['ipv4DHCP']>[number] | NonNullable<Networks['ipv6DHCP']>[number] | NonNullable<Networks['ipv6SLAAC']>[number];
export type Route = NonNullable<StaticNetwork['routes']>[number];
export type GatewaySource = Route['gateway'];
export type Services = NonNullable<Route['services']>;
export type FromPoolAnnotation = NonNullable<StaticNetwork['fromPoolAnnotation']>;
export type PoolReference = NonNullable<StaticNetwork['fromPoolRef']>;

export type IndexEntry = NonNullable<Metal3DataTemplateStatus['indexes']>[number];
/** The objects a claim's data is rendered from, found by the claim's own hook (status.ironhook). */
export type ClaimSources = NonNullable<Metal3DataClaimStatus['ironhook']>;
