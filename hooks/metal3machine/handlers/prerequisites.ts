// The states before a host is chosen: owner Machine, cluster infrastructure, Metal3Cluster and
// bootstrap data (pause propagation: pause.ts).
import { CLUSTER_NAME_LABEL } from '../../../domain/capi/types.js';
import type { KObject } from '../../../domain/k8s.js';
import { rec, str } from '../../kit/index.js';
import type { MachineContext } from '../context.js';
import { MachineState as S, Reason } from '../names.js';
import { cont, wait, type Outcome } from '../outcome.js';

export function handleWaitingForMachine(ctx: MachineContext): Outcome {
  if (ctx.machine !== undefined) return cont(S.WaitingForClusterInfrastructure, 'the owner Machine exists');
  const owner = (ctx.m3m.metadata.ownerReferences ?? []).find((ref) => ref.kind === 'Machine');
  const reason = owner === undefined ? 'a Cluster API Machine to set itself as owner' : `Machine ${owner.name} (the owner) to appear`;
  return wait(reason, { conditionReason: Reason.WaitingForOwner });
}

function conditionTrue(conditions: unknown, type: string): boolean {
  return Array.isArray(conditions) && conditions.map(rec).some((c) => c.type === type && c.status === 'True');
}

/** v1beta2 `initialization.infrastructureProvisioned`, or the v1beta1 `InfrastructureReady` condition. */
function infrastructureReady(cluster: KObject): boolean {
  const status = rec(cluster.status);
  if (rec(status.initialization).infrastructureProvisioned === true) return true;
  return conditionTrue(rec(rec(status.deprecated).v1beta1).conditions, 'InfrastructureReady') || conditionTrue(status.conditions, 'InfrastructureReady');
}

export function handleWaitingForClusterInfrastructure(ctx: MachineContext): Outcome {
  const conditionReason = Reason.WaitingForClusterInfrastructure;
  if (ctx.clusterName === '') return wait(`the ${CLUSTER_NAME_LABEL} label on Machine ${ctx.machine?.metadata.name ?? ''}`, { conditionReason });
  if (ctx.cluster === undefined) return wait(`Cluster ${ctx.clusterName}`, { conditionReason });
  if (!infrastructureReady(ctx.cluster)) return wait(`Cluster ${ctx.clusterName} infrastructure to be provisioned`, { conditionReason });
  return cont(S.WaitingForMetal3Cluster, `Cluster ${ctx.clusterName} infrastructure is provisioned`);
}

export function handleWaitingForMetal3Cluster(ctx: MachineContext): Outcome {
  if (ctx.metal3Cluster !== undefined) return cont(S.Paused, 'the Metal3Cluster exists');
  const name = str(rec(rec(ctx.cluster?.spec).infrastructureRef).name);
  return wait(`Metal3Cluster ${name || `(Cluster ${ctx.clusterName} names no infrastructureRef)`}`, { conditionReason: Reason.WaitingForMetal3Cluster });
}

/**
 * Upstream's IsBootstrapReady and getUserDataSecretName: with a bootstrap configRef the Machine's
 * deprecated v1beta1 BootstrapReady condition must be True (or its v1beta2
 * initialization.bootstrapDataSecretCreated, which Cluster API sets with it), and the Secret is
 * dataSecretName or else the config's own name (the kubeadm provider names its Secret after the
 * config); without one, dataSecretName alone. Undefined while not ready.
 */
function bootstrapSecret(machine: KObject | undefined): string | undefined {
  const bootstrap = rec(rec(machine?.spec).bootstrap);
  const dataSecretName = str(bootstrap.dataSecretName);
  const configName = str(rec(bootstrap.configRef).name);
  if (configName === '') return dataSecretName === '' ? undefined : dataSecretName;
  const status = rec(machine?.status);
  const ready =
    conditionTrue(rec(rec(status.deprecated).v1beta1).conditions, 'BootstrapReady') || rec(status.initialization).bootstrapDataSecretCreated === true;
  if (!ready) return undefined;
  return dataSecretName === '' ? configName : dataSecretName;
}

function bootstrapWait(machine: KObject | undefined): string {
  const configRef = rec(rec(rec(machine?.spec).bootstrap).configRef);
  const name = machine?.metadata.name ?? '';
  if (str(configRef.name) === '') return `bootstrap data: Machine ${name} has no spec.bootstrap.dataSecretName yet`;
  return `bootstrap data: Machine ${name} is not BootstrapReady yet (bootstrap config ${str(configRef.kind) || 'configRef'} ${str(configRef.name)})`;
}

export function handleWaitingForBootstrapData(ctx: MachineContext): Outcome {
  const machine = ctx.machine;
  const secret = bootstrapSecret(machine);
  if (secret === undefined) return wait(bootstrapWait(machine), { conditionReason: Reason.WaitingForBootstrapData });
  const userData =
    Object.keys(rec(ctx.status.userData)).length > 0 ? ctx.status.userData : { name: secret, namespace: machine?.metadata.namespace ?? ctx.namespace };
  return cont(S.Associating, `bootstrap data in Secret ${secret}`, { status: { userData } });
}
