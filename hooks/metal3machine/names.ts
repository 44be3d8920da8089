// Names the Metal3Machine hooks use: the states of the machine lifecycle, the request purposes,
// and upstream's labels, annotations and condition reasons.

/** The Metal3Machine lifecycle (docs/capm3.md, "States"). Normal path first, then deletion. */
export const MachineState = {
  WaitingForMachine: 'WaitingForMachine',
  WaitingForClusterInfrastructure: 'WaitingForClusterInfrastructure',
  WaitingForMetal3Cluster: 'WaitingForMetal3Cluster',
  Paused: 'Paused',
  WaitingForBootstrapData: 'WaitingForBootstrapData',
  Associating: 'Associating',
  WaitingForData: 'WaitingForData',
  SettingHostSpec: 'SettingHostSpec',
  Provisioning: 'Provisioning',
  SettingProviderID: 'SettingProviderID',
  Ready: 'Ready',
  Deprovisioning: 'Deprovisioning',
  WaitingForDeprovision: 'WaitingForDeprovision',
  Releasing: 'Releasing',
  Finalized: 'Finalized',
} as const;
export type MachineState = (typeof MachineState)[keyof typeof MachineState];

/** The order of the states: a `continue` only ever moves forward, so one sync cannot loop. */
export const STATE_ORDER: readonly MachineState[] = Object.values(MachineState);

/** What a request child is for (label ironhook.dev/purpose, and the middle of its name). */
export const Purpose = {
  Claim: 'claim',
  CredentialsLabel: 'credentials-label',
  Associate: 'associate',
  HostSpec: 'host-spec',
  ProviderID: 'provider-id',
  NodeProviderID: 'node-provider-id',
  LabelSync: 'label-sync',
  Pause: 'pause',
  Unpause: 'unpause',
  BlockMove: 'block-move',
  Deprovision: 'deprovision',
  Release: 'release',
  CredentialsRelease: 'credentials-release',
} as const;
export type Purpose = (typeof Purpose)[keyof typeof Purpose];

/** Purposes whose requests act on the host; deletion waits for these to finish first. */
export const HOST_WRITES: readonly Purpose[] = [Purpose.Claim, Purpose.HostSpec, Purpose.Pause, Purpose.Unpause, Purpose.BlockMove];

export const NODE_REUSE_LABEL = 'infrastructure.cluster.x-k8s.io/node-reuse';
export const FAILURE_DOMAIN_LABEL = 'infrastructure.cluster.x-k8s.io/failure-domain';
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
export const DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
export const CLONED_FROM_NAME_ANNOTATION = 'cluster.x-k8s.io/cloned-from-name';
export const HOST_PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';
export const HOST_STATUS_ANNOTATION = 'baremetalhost.metal3.io/status';
/** The paused annotation's value when the provider set it (any other value belongs to the user). */
export const PAUSED_BY_CAPM3 = 'metal3.io/capm3';
/**
 * clusterctl's: `clusterctl move` waits while any object it moves carries it (any value). Kept on an
 * associated host that is not paused, as upstream main (value '', as upstream writes it).
 */
export const BLOCK_MOVE_ANNOTATION = 'clusterctl.cluster.x-k8s.io/block-move';
export const UNHEALTHY_ANNOTATIONS: readonly string[] = ['capi.metal3.io/unhealthy', 'capm3.metal3.io/unhealthy'];
export const CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';
/** On the Metal3Cluster: comma-separated label prefixes synced from each host to its Node. */
export const LABEL_SYNC_PREFIXES_ANNOTATION = 'metal3.io/metal3-label-sync-prefixes';
/** On a request: the target's resourceVersion when the hook asked, to tell a lagging cache from drift. */
export const BASE_VERSION_ANNOTATION = 'ironhook.dev/base-resource-version';

export const ProviderIDPrefix = 'metal3://';

/** `metal3://<namespace>/<host>/<machine>`. */
export function providerID(namespace: string, host: string, machine: string): string {
  return `${ProviderIDPrefix}${namespace}/${host}/${machine}`;
}

/** v1beta2 condition types and reasons, and their v1beta1 counterparts. */
export const Condition = {
  AssociateBareMetalHost: 'AssociateBareMetalHost',
  AssociateMetaData: 'AssociateMetal3MachineMetaData',
  Metal3DataReady: 'Metal3DataReady',
  Ready: 'Ready',
  Paused: 'Paused',
} as const;

export const V1Beta1Condition = {
  AssociateBMH: 'AssociateBMH',
  KubernetesNodeReady: 'KubernetesNodeReady',
  Metal3DataReady: 'Metal3DataReady',
  Ready: 'Ready',
} as const;

export const Reason = {
  WaitingForOwner: 'WaitingForMetal3MachineOwnerRef',
  WaitingForClusterInfrastructure: 'WaitingForClusterInfrastructureReady',
  WaitingForMetal3Cluster: 'WaitingforMetal3Cluster',
  WaitingForBootstrapData: 'WaitingForBootstrapData',
  AssociateFailed: 'AssociateBareMetalHostFailed',
  AssociateSuccess: 'AssociateBareMetalHostSuccess',
  AssociateViaNodeReuse: 'AssociateBareMetalHostViaNodeReuseSuccess',
  /** Ironhook's: the claim patch is with the driver pool (upstream's association is synchronous). */
  WaitingForHostClaim: 'WaitingForBareMetalHostClaim',
  /** Ironhook's: paused, but the host finishes its provisioning operation before it is paused too. */
  WaitingForHostPause: 'WaitingForBareMetalHostPause',
  MetaDataSuccess: 'AssociateMetal3MachineMetaDataSuccess',
  MetaDataFailed: 'AssociateM3MetaDataFailed',
  Deleting: 'Deleting',
  WaitingForMetal3Data: 'WaitingForMetal3Data',
  SecretsReady: 'Metal3DataSecretsReady',
  SecretsSetExternally: 'SecretsSetExternally',
  Ready: 'Ready',
  NotReady: 'NotReady',
  Paused: 'Paused',
  NotPaused: 'NotPaused',
} as const;

export const V1Beta1Reason: Readonly<Record<string, string>> = {
  [Reason.WaitingForOwner]: 'WaitingForM3MachineOwnerRef',
  [Reason.WaitingForClusterInfrastructure]: 'WaitingForClusterInfrastructure',
  [Reason.WaitingForMetal3Cluster]: 'WaitingforMetal3Cluster',
  [Reason.WaitingForBootstrapData]: 'WaitingForBootstrapReady',
  [Reason.AssociateFailed]: 'AssociateBMHFailed',
  [Reason.MetaDataFailed]: 'AssociateM3MetaDataFailed',
};

/** failureReason values under status.deprecated.v1beta1. */
export const FailureReason = {
  Create: 'CreateError',
  Update: 'UpdateError',
  Delete: 'DeleteError',
} as const;
