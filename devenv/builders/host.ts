// Fluent fixture builders for BareMetalHost hook tests and the benchmarks.
// Here, not in test/, because bench/ uses them and nothing outside test/ imports test/.
import type { BareMetalHost, BareMetalHostSpec, BareMetalHostStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncRequest, ObjectMap } from '../../domain/metacontroller.js';
import { operationName } from '../../domain/naming.js';
import { Phase } from '../../domain/operations.js';
import type { Action, BMCMonitor, HostOperation, HostOperationSpec, HostOperationStatus } from '../../domain/operations.js';

export const T0 = '2026-11-29T10:00:00Z';
const HOST_UID = '6f3c2a1e-0000-4000-8000-000000000001';

export class HostBuilder {
  private readonly host: BareMetalHost;
  private readonly children: KObject[] = [];
  private finalizing = false;

  constructor(name = 'server-01') {
    this.host = {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name, namespace: 'metal3', uid: HOST_UID, generation: 1, creationTimestamp: T0, resourceVersion: '100' },
      spec: {
        online: false,
        bootMACAddress: '00:11:22:33:44:55',
        bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: `${name}-bmc-secret` },
      },
    };
  }

  spec(patch: Partial<BareMetalHostSpec>): this {
    Object.assign(this.host.spec, patch);
    return this;
  }

  withoutBMC(): this {
    delete this.host.spec.bmc;
    return this;
  }

  annotate(key: string, value = ''): this {
    this.host.metadata.annotations = { ...this.host.metadata.annotations, [key]: value };
    return this;
  }

  generation(value: number): this {
    this.host.metadata.generation = value;
    return this;
  }

  /** A status as the hook would have written it for `state` (registered, inspected as needed). */
  inState(state: ProvisioningState, patch: Partial<BareMetalHostStatus> = {}): this {
    this.host.status = {
      operationalStatus: 'OK',
      errorMessage: '',
      errorCount: 0,
      poweredOn: false,
      provisioningFailCount: 0,
      lastUpdated: T0,
      goodCredentials: { credentials: { name: 'server-01-bmc-secret', namespace: 'metal3' }, credentialsVersion: '1' },
      triedCredentials: { credentials: { name: 'server-01-bmc-secret', namespace: 'metal3' }, credentialsVersion: '1' },
      hardwareProfile: 'unknown',
      provisioning: { state, ID: HOST_UID, image: { url: '' }, rootDeviceHints: { deviceName: '/dev/sda' } },
      ...patch,
    };
    return this;
  }

  status(patch: Partial<BareMetalHostStatus>): this {
    this.host.status = { ...this.host.status, ...patch };
    return this;
  }

  deleting(): this {
    this.host.metadata.deletionTimestamp = '2026-11-29T11:00:00Z';
    this.finalizing = true;
    return this;
  }

  /** A HostOperation child; the status is what the driver pool would have written. */
  operation(action: Action, sequence: number, opts: OperationOptions = {}): this {
    const operation = buildOperation(this.host, action, sequence, opts);
    this.children.push(operation);
    if (this.host.status && this.host.status.ironhook?.request === undefined) {
      const request = { name: operation.metadata.name ?? '', action, sequence, phase: Phase.Pending };
      this.host.status.ironhook = { ...this.host.status.ironhook, request };
    }
    return this;
  }

  monitor(status: BMCMonitor['status']): this {
    const name = this.host.metadata.name ?? '';
    this.children.push({
      apiVersion: 'ironhook.dev/v1alpha1',
      kind: 'BMCMonitor',
      metadata: { name, namespace: 'metal3' },
      spec: { host: { name, uid: HOST_UID }, bmc: this.host.spec.bmc, intervalSeconds: 60 },
      ...(status && { status }),
    });
    return this;
  }

  buildHost(): BareMetalHost {
    return structuredClone(this.host);
  }

  request(): CompositeSyncRequest {
    const children: ObjectMap = {
      'HostOperation.ironhook.dev/v1alpha1': {},
      'BMCMonitor.ironhook.dev/v1alpha1': {},
      'HardwareData.metal3.io/v1alpha1': {},
      'HostFirmwareSettings.metal3.io/v1alpha1': {},
    };
    for (const child of this.children) {
      const key = `${child.kind}.${child.apiVersion}`;
      const inner = children[key] ?? {};
      inner[`metal3/${child.metadata.name ?? ''}`] = structuredClone(child);
      children[key] = inner;
    }
    return { controller: CONTROLLER, parent: this.buildHost(), children, related: {}, finalizing: this.finalizing };
  }
}

function buildOperation(owner: BareMetalHost, action: Action, sequence: number, opts: OperationOptions): HostOperation {
  const name = owner.metadata.name ?? '';
  const state = opts.hostState ?? owner.status?.provisioning?.state ?? '';
  const spec: HostOperationSpec = {
    host: { name, uid: HOST_UID },
    action,
    sequence,
    hostGeneration: opts.hostGeneration ?? 1,
    hostStatus: { state, errorCount: opts.errorCount ?? 0, provisioningFailCount: 0 },
    bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: `${name}-bmc-secret`, disableCertificateVerification: false },
    ...opts.spec,
  };
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'HostOperation',
    metadata: { name: operationName(name, action, sequence), namespace: 'metal3', uid: `op-${sequence}` },
    spec,
    ...(opts.status && { status: opts.status }),
  };
}

export interface OperationOptions {
  hostState?: ProvisioningState;
  errorCount?: number;
  hostGeneration?: number;
  spec?: Partial<HostOperationSpec>;
  status?: HostOperationStatus;
}

const CONTROLLER: KObject = {
  apiVersion: 'metacontroller.k8s.io/v1alpha1',
  kind: 'CompositeController',
  metadata: { name: 'ironhook-baremetalhost' },
};

export function host(name?: string): HostBuilder {
  return new HostBuilder(name);
}

export const succeeded = (at: string, result: HostOperationStatus['result'] = {}): HostOperationStatus => ({
  phase: 'Succeeded',
  startTime: at,
  completionTime: at,
  result,
});

export const failed = (at: string, kind: 'Transient' | 'Permanent', message: string): HostOperationStatus => ({
  phase: 'Failed',
  startTime: at,
  completionTime: at,
  error: { kind, reason: kind === 'Transient' ? 'BMCUnreachable' : 'CredentialsInvalid', message },
});

export const running = (at: string, message = ''): HostOperationStatus => ({ phase: 'Running', startTime: at, message });
export const delayed = (reason: string): HostOperationStatus => ({ phase: 'Delayed', delayReason: reason });
