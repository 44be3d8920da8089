// Everything one sync needs to know about a host, read once from the Metacontroller request.
import { Annotation, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHost, BareMetalHostSpec, BareMetalHostStatus, IronhookHostStatus } from '../../domain/baremetalhost.js';
import { latestTime } from '../../domain/backoff.js';
import type { KObject } from '../../domain/k8s.js';
import { objectsOf } from '../../domain/metacontroller.js';
import { IRONHOOK_API_VERSION } from '../../domain/operations.js';
import type { BMCMonitor, HostOperation } from '../../domain/operations.js';
import { HookInputError, isRecord, parseComposite } from '../kit/index.js';
import type { CompositeRequest } from '../kit/index.js';
import type { HookConfig } from '../types.js';
import { hardwareDetails, statusAnnotation } from './annotations.js';
import { normalizeStatus, recoverFromRequest } from './status.js';

export interface HostContext {
  readonly host: BareMetalHost;
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  readonly spec: BareMetalHostSpec;
  readonly annotations: Readonly<Record<string, string>>;
  /** The observed status with defaults filled in and a lost status write recovered. */
  readonly status: BareMetalHostStatus;
  readonly state: ProvisioningState;
  /** The request with the highest sequence, if any. */
  readonly current: HostOperation | undefined;
  readonly nextSequence: number;
  readonly monitor: BMCMonitor | undefined;
  readonly hardwareData: KObject | undefined;
  readonly firmwareSettings: KObject | undefined;
  /** The newest instant seen in the request: the hook's only notion of "now". */
  readonly observedTime: string;
  readonly deleting: boolean;
  readonly config: HookConfig;
}

/** A BareMetalHost sync or finalize request; anything else is a HookInputError (HTTP 400). */
export function parseHostRequest(body: unknown): CompositeRequest {
  const request = parseComposite(body, 'BareMetalHost');
  if (!isRecord(request.parent.spec)) {
    throw new HookInputError('parent.spec must be an object');
  }
  return request;
}

export function readContext(request: CompositeRequest, config: HookConfig): HostContext {
  const host = request.parent as BareMetalHost;
  const operations = objectsOf(request.children, 'HostOperation', IRONHOOK_API_VERSION) as HostOperation[];
  const current = highestSequence(operations);
  const monitor = objectsOf(request.children, 'BMCMonitor', IRONHOOK_API_VERSION)[0] as BMCMonitor | undefined;
  const hardwareData = objectsOf(request.children, 'HardwareData', 'metal3.io/v1alpha1')[0];
  const status = withHardwareData(recoverFromRequest(normalizeStatus(observedStatus(host)), current), hardwareData);
  return {
    host,
    ...identity(host),
    spec: host.spec,
    annotations: host.metadata.annotations ?? {},
    status,
    state: status.provisioning.state,
    current,
    nextSequence: nextSequence(current, status),
    monitor,
    hardwareData,
    firmwareSettings: objectsOf(request.children, 'HostFirmwareSettings', 'metal3.io/v1alpha1')[0],
    observedTime: newestObservedTime(host, operations, monitor),
    deleting: request.finalizing || host.metadata.deletionTimestamp !== undefined,
    config,
  };
}

/**
 * The status to start from. An empty status (no lastUpdated) is restored from the status
 * annotation (hosts moved between clusters); hardware details from the annotation fill an
 * empty `status.hardware`, or replace it while inspection is disabled.
 */
function observedStatus(host: BareMetalHost): Partial<BareMetalHostStatus> {
  const annotations = host.metadata.annotations ?? {};
  const current = host.status ?? {};
  const restored = current.lastUpdated ? undefined : statusAnnotation(annotations);
  const status = (restored ?? current) as Partial<BareMetalHostStatus>;
  const details = hardwareDetails(annotations);
  return details !== undefined && hardwareReplaceable(host, status) ? { ...status, hardware: details } : status;
}

/** A stale status may miss the hardware that the HardwareData child already holds. */
export function withHardwareData(status: BareMetalHostStatus, hardwareData: KObject | undefined): BareMetalHostStatus {
  const hardware = (hardwareData?.spec as { hardware?: BareMetalHostStatus['hardware'] } | undefined)?.hardware;
  return status.hardware === undefined && hardware !== undefined ? { ...status, hardware } : status;
}

function hardwareReplaceable(host: BareMetalHost, status: Partial<BareMetalHostStatus>): boolean {
  const disabled = host.spec.inspectionMode === 'disabled' || host.metadata.annotations?.[Annotation.Inspect] === 'disabled';
  return disabled || Object.keys(status.hardware ?? {}).length === 0;
}

function identity(host: BareMetalHost): Pick<HostContext, 'name' | 'namespace' | 'uid' | 'generation'> {
  const { name = '', namespace = '', uid = '', generation = 0 } = host.metadata;
  return { name, namespace, uid, generation };
}

function nextSequence(current: HostOperation | undefined, status: BareMetalHostStatus): number {
  return Math.max(current?.spec.sequence ?? 0, status.ironhook?.request?.sequence ?? 0) + 1;
}

function highestSequence(operations: HostOperation[]): HostOperation | undefined {
  let best: HostOperation | undefined;
  for (const operation of operations) {
    if (best === undefined || operation.spec.sequence > best.spec.sequence) {
      best = operation;
    }
  }
  return best;
}

function newestObservedTime(host: BareMetalHost, operations: HostOperation[], monitor: BMCMonitor | undefined): string {
  const times = operations.flatMap((operation) => [operation.status?.startTime, operation.status?.completionTime]);
  return latestTime(host.metadata.creationTimestamp, host.status?.lastUpdated, monitor?.status?.changedTime, ...times) ?? '1970-01-01T00:00:00Z';
}

function annotation(ctx: HostContext, key: string): string | undefined {
  return ctx.annotations[key];
}

/** What the status last written recorded of `operation` (status.ironhook.request), if it is that request. */
export function requestRecordOf(ctx: HostContext, operation: HostOperation): IronhookHostStatus['request'] {
  const record = ctx.status.ironhook?.request;
  return record !== undefined && record.name === operation.metadata.name ? record : undefined;
}

export function isPaused(ctx: HostContext): boolean {
  return annotation(ctx, Annotation.Paused) !== undefined;
}

export function inspectionDisabled(ctx: HostContext): boolean {
  return ctx.spec.inspectionMode === 'disabled' || annotation(ctx, Annotation.Inspect) === 'disabled';
}

export function hasBMC(ctx: HostContext): boolean {
  return Boolean(ctx.spec.bmc?.address) || Boolean(ctx.spec.bmc?.credentialsName);
}

export function stateIs(ctx: HostContext, ...states: ProvisioningState[]): boolean {
  return states.includes(ctx.state);
}

export const STABLE_STATES: readonly ProvisioningState[] = [
  ProvisioningState.Available,
  ProvisioningState.Ready,
  ProvisioningState.Provisioned,
  ProvisioningState.ExternallyProvisioned,
];
