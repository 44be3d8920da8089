// The non-request children: the BMC monitor, HardwareData and the HostFirmwareSettings stub.
import { METAL3_API_VERSION } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import type { KObject } from '../../domain/k8s.js';
import { labelValue } from '../../domain/naming.js';
import { HOST_LABEL, IRONHOOK_API_VERSION } from '../../domain/operations.js';
import type { BMCMonitorSpec } from '../../domain/operations.js';
import type { HostContext } from './context.js';

export function monitorChild(ctx: HostContext): KObject {
  const spec: BMCMonitorSpec = {
    host: { name: ctx.name, uid: ctx.uid },
    bmc: {
      address: ctx.spec.bmc?.address ?? '',
      credentialsName: ctx.spec.bmc?.credentialsName ?? '',
      disableCertificateVerification: ctx.spec.bmc?.disableCertificateVerification ?? false,
    },
    intervalSeconds: ctx.config.monitorIntervalSeconds,
  };
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: 'BMCMonitor',
    metadata: { name: ctx.name, labels: { [HOST_LABEL]: labelValue(ctx.name) } },
    spec,
  };
}

export function hardwareDataChild(ctx: HostContext, status: BareMetalHostStatus): KObject | undefined {
  if (status.hardware === undefined || Object.keys(status.hardware).length === 0) {
    return undefined;
  }
  return { apiVersion: METAL3_API_VERSION, kind: 'HardwareData', metadata: { name: ctx.name }, spec: { hardware: status.hardware } };
}

/** Upstream creates an empty HostFirmwareSettings after the first successful registration. */
export function firmwareSettingsChild(ctx: HostContext, status: BareMetalHostStatus): KObject | undefined {
  if (status.goodCredentials === undefined) {
    return undefined;
  }
  return { apiVersion: METAL3_API_VERSION, kind: 'HostFirmwareSettings', metadata: { name: ctx.name }, spec: { settings: {} } };
}
