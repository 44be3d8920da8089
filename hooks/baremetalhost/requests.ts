// HostOperation children: new requests from intents, and the desired form of existing ones.
import type { ProvisioningState } from '../../domain/baremetalhost.js';
import type { KObject, SecretReference } from '../../domain/k8s.js';
import { labelValue, operationName } from '../../domain/naming.js';
import { ACTION_LABEL, HOST_LABEL, IRONHOOK_API_VERSION } from '../../domain/operations.js';
import type { Action, HostOperation, HostOperationSpec, HostStatusSnapshot, ProvisionParameters } from '../../domain/operations.js';
import type { HostContext } from './context.js';
import type { RequestIntent, RequestParameters } from './outcome.js';

export function newOperation(ctx: HostContext, intent: RequestIntent, snapshot: HostStatusSnapshot): KObject {
  const sequence = ctx.nextSequence;
  const spec: HostOperationSpec = {
    host: { name: ctx.name, uid: ctx.uid },
    action: intent.action,
    sequence,
    ...(intent.notBefore === undefined ? {} : { notBefore: intent.notBefore }),
    hostGeneration: ctx.generation,
    hostStatus: snapshot,
    bmc: {
      address: ctx.spec.bmc?.address ?? '',
      credentialsName: ctx.spec.bmc?.credentialsName ?? '',
      disableCertificateVerification: ctx.spec.bmc?.disableCertificateVerification ?? false,
    },
    ...optional('bootMACAddress', ctx.spec.bootMACAddress),
    bootMode: ctx.spec.bootMode ?? 'UEFI',
    ...intent.parameters,
  };
  return operationObject(operationName(ctx.name, intent.action, sequence), ctx.name, spec);
}

/** The desired form of a request that already exists: exactly what we created, nothing observed. */
export function keptOperation(operation: HostOperation): KObject {
  return operationObject(operation.metadata.name ?? '', operation.spec.host.name, operation.spec);
}

function operationObject(name: string, host: string, spec: HostOperationSpec): KObject {
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: 'HostOperation',
    metadata: { name, labels: { [ACTION_LABEL]: spec.action.toLowerCase(), [HOST_LABEL]: labelValue(host) } },
    spec,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, V>);
}

/** Is `ctx.current` a request of `action` issued while the host was in `state`? */
export function currentIs(ctx: HostContext, action: Action, state?: ProvisioningState): boolean {
  const current = ctx.current;
  if (current?.spec.action !== action) {
    return false;
  }
  return state === undefined || current.spec.hostStatus.state === state;
}

function secretRef(ctx: HostContext, ref: SecretReference | undefined): SecretReference | undefined {
  if (!ref?.name) {
    return undefined;
  }
  return { name: ref.name, namespace: ref.namespace ?? ctx.namespace };
}

export function provisionParameters(ctx: HostContext): RequestParameters {
  const spec = ctx.spec;
  const provision: ProvisionParameters = {
    ...optional('image', spec.image?.url ? spec.image : undefined),
    ...optional('customDeploy', spec.customDeploy?.method ? spec.customDeploy : undefined),
    ...optional('userData', secretRef(ctx, spec.userData)),
    ...optional('networkData', secretRef(ctx, spec.networkData)),
    ...optional('metaData', secretRef(ctx, spec.metaData)),
    ...optional('preprovisioningNetworkDataName', spec.preprovisioningNetworkDataName),
    ...optional('rootDeviceHints', ctx.status.provisioning.rootDeviceHints),
    ...optional('raid', ctx.status.provisioning.raid),
    ...optional('architecture', spec.architecture ?? ctx.status.hardware?.cpu?.arch),
  };
  return { provision };
}

export function deprovisionParameters(ctx: HostContext): RequestParameters {
  return { deprovision: { automatedCleaningMode: ctx.spec.automatedCleaningMode ?? 'metadata' } };
}

export function inspectParameters(ctx: HostContext): RequestParameters {
  return { inspect: { mode: ctx.spec.inspectionMode === 'fast' ? 'fast' : 'agent' } };
}
