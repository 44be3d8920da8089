// Rows for "", unmanaged, registering, inspecting, match profile and preparing.
import { ProvisioningState as S } from '../../../domain/baremetalhost.js';
import { delayed, failed, host, running, succeeded, T0 } from '../../../devenv/builders/host.js';
import type { HostBuilder } from '../../../devenv/builders/host.js';
import type { Row } from './table.js';

export const T1 = '2026-11-29T10:05:00Z';
const CREDS_V1 = { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '1' };
const CREDS_V2 = { ...CREDS_V1, credentialsVersion: '2' };
export const monitorOff = { observedTime: T0, changedTime: T0, poweredOn: false, reachable: true, credentials: CREDS_V1 };
export const monitorOn = { ...monitorOff, poweredOn: true };
const unregistered = { goodCredentials: undefined, triedCredentials: undefined };
const GOOD = { credentials: { name: 'server-01-bmc-secret', namespace: 'metal3' }, credentialsVersion: '1' };

/** The parent still shows the Register request's status; the Inspect request carries `snapshot`. */
function behindInspect(snapshot: Record<string, unknown>): HostBuilder {
  return host()
    .inState(S.Registering, { ...unregistered, ironhook: { request: { name: 'server-01-register-1', action: 'Register', sequence: 1, phase: 'Succeeded' } } })
    .operation('Inspect', 2, { spec: { hostStatus: { state: S.Registering, errorCount: 0, provisioningFailCount: 0, status: snapshot } } })
    .monitor(monitorOff);
}

/** status.provisioning in preparing, and software RAID applied before Ironhook (a migrated host). */
const PREPARING = { state: S.Preparing, ID: '6f3c2a1e-0000-4000-8000-000000000001', image: { url: '' }, rootDeviceHints: { deviceName: '/dev/sda' } };
const APPLIED_RAID = { softwareRAIDVolumes: [{ level: '1' as const }] };

const HARDWARE = { cpu: { arch: 'x86_64', count: 4 }, ramMebibytes: 8192, nics: [{ name: 'eth0', mac: '00:11:22:33:44:55', pxe: true }] };

export const registrationRows: Row[] = [
  {
    name: 'new host with BMC details: registering with a Register request',
    from: S.None,
    given: host(),
    expect: { state: S.Registering, operationalStatus: 'OK', request: 'server-01-register-1', children: ['BMCMonitor', 'HostOperation'] },
  },
  {
    name: 'new host without BMC: unmanaged/discovered, no children',
    from: S.None,
    given: host().withoutBMC(),
    expect: { state: S.Unmanaged, operationalStatus: 'discovered', children: [] },
  },
  {
    name: 'new host with an unknown BMC scheme: registration error, nothing requested',
    from: S.None,
    given: host().spec({ bmc: { address: 'foo://127.0.0.1', credentialsName: 'c' } }),
    expect: {
      state: S.Registering,
      operationalStatus: 'error',
      errorType: 'registration error',
      errorCount: 1,
      errorMessage: /Unknown BMC type 'foo'/u,
      children: [],
    },
  },
  {
    name: 'new host whose credentialsName names another namespace (stored before the CEL rule): registration error, nothing requested',
    from: S.None,
    given: host().spec({ bmc: { address: 'redfish://127.0.0.1/redfish/v1/Systems/1', credentialsName: 'kube-system/bmc-secret' } }),
    expect: {
      state: S.Registering,
      operationalStatus: 'error',
      errorType: 'registration error',
      errorMessage: /credentialsName is the name of a Secret in the host's own namespace, not namespace\/name/u,
      children: [],
    },
  },
  {
    name: 'new host with libvirt BMC and no boot MAC: registration error',
    from: S.None,
    given: host().spec({ bmc: { address: 'libvirt://127.0.0.1', credentialsName: 'c' }, bootMACAddress: undefined }),
    expect: { state: S.Registering, errorType: 'registration error', errorMessage: /requires a BootMACAddress/u },
  },
  {
    name: 'new host being deleted before any sync: finalized at once',
    from: S.None,
    given: host().withoutBMC().deleting(),
    expect: { finalized: true, children: [] },
  },
  {
    name: 'new host with the status annotation (moved from another cluster): status restored, annotation consumed',
    from: S.None,
    given: host()
      .annotate(
        'baremetalhost.metal3.io/status',
        JSON.stringify({
          operationalStatus: 'OK',
          errorMessage: '',
          errorCount: 0,
          poweredOn: true,
          lastUpdated: T0,
          provisioning: { state: 'provisioned', ID: 'moved', image: { url: 'http://127.0.0.1/os.qcow2' } },
          goodCredentials: { credentials: { name: 'server-01-bmc-secret', namespace: 'metal3' }, credentialsVersion: '1' },
        }),
      )
      .spec({ online: true, image: { url: 'http://127.0.0.1/os.qcow2', checksum: 'abc' } })
      .monitor(monitorOn),
    expect: { state: S.Provisioned, request: null, consumed: ['baremetalhost.metal3.io/status'], status: { provisioning: { ID: 'moved' } } },
  },
  {
    name: 'hardware details annotation with inspection disabled: folded into status.hardware and HardwareData',
    from: S.Preparing,
    given: host()
      .spec({ inspectionMode: 'disabled' })
      .annotate('inspect.metal3.io/hardwaredetails', JSON.stringify({ cpu: { arch: 'aarch64' } }))
      .inState(S.Preparing)
      .monitor(monitorOff),
    expect: {
      state: S.Available,
      status: { hardware: { cpu: { arch: 'aarch64' } } },
      consumed: ['inspect.metal3.io/hardwaredetails'],
      children: ['BMCMonitor', 'HardwareData', 'HostFirmwareSettings'],
    },
  },
  {
    name: 'unmanaged host still without BMC: slow poll',
    from: S.Unmanaged,
    given: host()
      .withoutBMC()
      .inState(S.Unmanaged, { operationalStatus: 'discovered', ...unregistered }),
    expect: { state: S.Unmanaged, operationalStatus: 'discovered', resyncAfterSeconds: 600, children: [] },
  },
  {
    name: 'unmanaged host gets BMC details: registering',
    from: S.Unmanaged,
    given: host().inState(S.Unmanaged, { operationalStatus: 'discovered', ...unregistered }),
    expect: { state: S.Registering, operationalStatus: 'OK', request: 'server-01-register-1' },
  },
  {
    name: 'unmanaged host deleted: finalized, nothing to release',
    from: S.Unmanaged,
    given: host().withoutBMC().inState(S.Unmanaged, unregistered).deleting(),
    expect: { finalized: true, children: [] },
  },
  {
    name: 'registering, Register not started yet: waits and keeps the request',
    from: S.Registering,
    given: host().inState(S.Registering, unregistered).operation('Register', 1),
    expect: { state: S.Registering, request: 'server-01-register-1', reason: /waiting for the driver pool to start Register/u },
  },
  {
    name: 'registering, Register running: triedCredentials recorded',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: { ...running(T0), result: { credentials: CREDS_V1 } } }),
    expect: { state: S.Registering, request: 'server-01-register-1', status: { triedCredentials: { credentialsVersion: '1' } } },
  },
  {
    name: 'registering, Register succeeded: Inspect requested, state held until the pool admits it',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: succeeded(T1, { credentials: CREDS_V1, poweredOn: false }) }),
    expect: {
      state: S.Registering,
      request: 'server-01-inspect-2',
      requestSpec: { inspect: { mode: 'agent' }, hostStatus: { state: S.Registering } },
      children: ['BMCMonitor', 'HostFirmwareSettings', 'HostOperation'],
      status: {
        goodCredentials: { credentialsVersion: '1' },
        hardwareProfile: 'unknown',
        provisioning: { rootDeviceHints: { deviceName: '/dev/sda' } },
        lastUpdated: T1,
      },
    },
  },
  {
    name: 'registering, Register succeeded, externally provisioned: no inspection',
    from: S.Registering,
    given: host()
      .spec({ externallyProvisioned: true })
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: succeeded(T1, { credentials: CREDS_V1 }) }),
    expect: { state: S.ExternallyProvisioned, errorCount: 0 },
  },
  {
    name: 'registering, Register succeeded, inspectionMode disabled: preparing',
    from: S.Registering,
    given: host()
      .spec({ inspectionMode: 'disabled' })
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: succeeded(T1, { credentials: CREDS_V1 }) }),
    expect: { state: S.Preparing },
  },
  {
    name: 'registering, Register succeeded, inspect.metal3.io: disabled: preparing',
    from: S.Registering,
    given: host()
      .annotate('inspect.metal3.io', 'disabled')
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: succeeded(T1, { credentials: CREDS_V1 }) }),
    expect: { state: S.Preparing },
  },
  {
    name: 'registering, Register failed transiently: error recorded, retry after back-off',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: failed(T1, 'Transient', 'BMC 127.0.0.1:6230 did not answer') }),
    expect: {
      state: S.Registering,
      operationalStatus: 'error',
      errorType: 'registration error',
      errorCount: 1,
      request: 'server-01-register-2',
      requestSpec: { hostStatus: { errorCount: 1 } },
    },
  },
  {
    name: 'registering, Register failed permanently: error shown, no retry',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: failed(T1, 'Permanent', 'the BMC rejected the credentials') }),
    expect: { errorType: 'registration error', errorCount: 1, errorMessage: /rejected the credentials/u, request: 'server-01-register-1' },
  },
  {
    name: 'registering, permanent failure and the Secret changed since: registers again',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: { ...failed(T1, 'Permanent', 'bad credentials'), result: { credentials: CREDS_V1 } } })
      .monitor({ ...monitorOff, credentials: CREDS_V2 }),
    expect: { request: 'server-01-register-2' },
  },
  {
    name: 'registering, permanent failure and the spec changed since: registers again',
    from: S.Registering,
    given: host()
      .generation(2)
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: failed(T1, 'Permanent', 'unsupported') }),
    expect: { request: 'server-01-register-2' },
  },
  {
    name: 'registering, stale parent without the registration result: recovered from the Inspect request, nothing re-registered',
    from: S.Registering,
    given: behindInspect({ goodCredentials: GOOD, provisioning: { state: S.Registering, ID: 'node-1', image: { url: '' } } }),
    expect: { state: S.Registering, request: 'server-01-inspect-2', status: { goodCredentials: { credentialsVersion: '1' }, provisioning: { ID: 'node-1' } } },
  },
  {
    name: 'registering, stale parent and an Inspect request with the whole status in its snapshot (earlier releases): recovered alike',
    from: S.Registering,
    given: behindInspect({
      errorCount: 0,
      errorMessage: '',
      provisioningFailCount: 0,
      operationalStatus: 'OK',
      poweredOn: false,
      goodCredentials: GOOD,
      provisioning: { state: S.Registering, ID: 'node-1', image: { url: '' } },
      ironhook: { consumedAnnotations: [], request: { name: 'server-01-inspect-2', action: 'Inspect', sequence: 2, phase: 'Pending' } },
    }),
    expect: {
      state: S.Registering,
      request: 'server-01-inspect-2',
      status: {
        goodCredentials: { credentialsVersion: '1' },
        provisioning: { ID: 'node-1' },
        ironhook: { request: { name: 'server-01-inspect-2', sequence: 2 } },
      },
    },
  },
  {
    name: 'registering, Inspect held back by the provisioning limit: delayed',
    from: S.Registering,
    given: host()
      .inState(S.Registering)
      .operation('Inspect', 2, { status: delayed('20 hosts are provisioning; limit 20') })
      .monitor(monitorOff),
    expect: { state: S.Registering, operationalStatus: 'delayed', request: 'server-01-inspect-2', reason: /limit 20/u },
  },
  {
    name: 'registering, Inspect admitted by the pool: inspecting',
    from: S.Registering,
    given: host()
      .inState(S.Registering)
      .operation('Inspect', 2, { status: running(T1) })
      .monitor(monitorOff),
    expect: { state: S.Inspecting, request: 'server-01-inspect-2', status: { operationHistory: { inspect: { start: T1, end: null } } } },
  },
  {
    name: 'registering host deleted: straight to deleting',
    from: S.Registering,
    given: host()
      .inState(S.Registering, unregistered)
      .operation('Register', 1, { status: running(T0) })
      .deleting(),
    expect: { state: S.Deleting, finalized: false },
  },
  {
    name: 'inspecting, Inspect running: waits with the pool message',
    from: S.Inspecting,
    given: host()
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: running(T1, 'waiting for the agent to look up') })
      .monitor(monitorOff),
    expect: { state: S.Inspecting, request: 'server-01-inspect-2', reason: /waiting for the agent to look up/u },
  },
  {
    name: 'inspecting, Inspect succeeded: preparing with hardware and HardwareData',
    from: S.Inspecting,
    given: host()
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: succeeded(T1, { hardware: HARDWARE }) })
      .monitor(monitorOff),
    expect: { state: S.Preparing, status: { hardware: HARDWARE }, children: ['BMCMonitor', 'HardwareData', 'HostFirmwareSettings', 'HostOperation'] },
  },
  {
    name: 'inspecting, Inspect failed transiently: inspection error and a retry',
    from: S.Inspecting,
    given: host()
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: failed(T1, 'Transient', 'timeout reached while inspecting the node') })
      .monitor(monitorOff),
    expect: { state: S.Inspecting, errorType: 'inspection error', request: 'server-01-inspect-3', requestSpec: { notBefore: expectNotBefore(T1) } },
  },
  {
    name: 'inspecting, Inspect failed permanently: inspection error, no retry',
    from: S.Inspecting,
    given: host()
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: failed(T1, 'Permanent', 'agent image does not boot') })
      .monitor(monitorOff),
    expect: { errorType: 'inspection error', request: 'server-01-inspect-2' },
  },
  {
    name: 'inspecting with the re-inspect annotation: the annotation is consumed',
    from: S.Inspecting,
    given: host()
      .annotate('inspect.metal3.io')
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: running(T1) })
      .monitor(monitorOff),
    expect: { consumed: ['inspect.metal3.io'] },
  },
  {
    name: 'inspecting host deleted: powering off before delete',
    from: S.Inspecting,
    given: host()
      .inState(S.Inspecting)
      .operation('Inspect', 2, { status: running(T1) })
      .monitor(monitorOff)
      .deleting(),
    expect: { state: S.PoweringOffBeforeDelete },
  },
  {
    name: 'legacy match profile: preparing',
    from: S.MatchProfile,
    given: host().inState(S.MatchProfile).monitor(monitorOff),
    expect: { state: S.Preparing },
  },
  {
    name: 'preparing, nothing to change: available with the root device hints recorded',
    from: S.Preparing,
    given: host()
      .spec({ rootDeviceHints: { deviceName: '/dev/nvme0n1' } })
      .inState(S.Preparing)
      .monitor(monitorOff),
    expect: { state: S.Available, status: { provisioning: { rootDeviceHints: { deviceName: '/dev/nvme0n1' } } }, errorCount: 0 },
  },
  {
    name: 'preparing with software RAID volumes: registration error naming the field to remove, nothing requested',
    from: S.Preparing,
    given: host()
      .spec({ raid: { softwareRAIDVolumes: [{ level: '1' }] } })
      .inState(S.Preparing)
      .monitor(monitorOff),
    expect: {
      state: S.Preparing,
      request: null,
      errorType: 'registration error',
      operationalStatus: 'error',
      errorMessage: /^software RAID is not implemented by the Ironhook agent flow; remove spec\.raid\.softwareRAIDVolumes$/u,
    },
  },
  {
    name: 'preparing, RAID applied before (a migrated host) and cleared in the spec: Prepare request',
    from: S.Preparing,
    given: host()
      .spec({ raid: { softwareRAIDVolumes: [] } })
      .inState(S.Preparing, { provisioning: { ...PREPARING, raid: APPLIED_RAID } })
      .monitor(monitorOff),
    expect: { state: S.Preparing, request: 'server-01-prepare-1', requestSpec: { prepare: { raid: { softwareRAIDVolumes: [] } } } },
  },
  {
    name: 'preparing, Prepare running: waits',
    from: S.Preparing,
    given: host()
      .spec({ raid: { softwareRAIDVolumes: [] } })
      .inState(S.Preparing, { provisioning: { ...PREPARING, raid: APPLIED_RAID } })
      .operation('Prepare', 3, { status: running(T1) })
      .monitor(monitorOff),
    expect: { state: S.Preparing, request: 'server-01-prepare-3' },
  },
  {
    name: 'preparing, Prepare succeeded: available with the cleared RAID recorded',
    from: S.Preparing,
    given: host()
      .spec({ raid: { softwareRAIDVolumes: [] } })
      .inState(S.Preparing, { provisioning: { ...PREPARING, raid: APPLIED_RAID } })
      .operation('Prepare', 3, { status: succeeded(T1), spec: { prepare: { raid: { softwareRAIDVolumes: [] } } } })
      .monitor(monitorOff),
    expect: { state: S.Available, status: { provisioning: { raid: { softwareRAIDVolumes: [] } } } },
  },
  {
    name: 'preparing, Prepare failed permanently: preparation error',
    from: S.Preparing,
    given: host()
      .spec({ raid: { softwareRAIDVolumes: [] } })
      .inState(S.Preparing, { provisioning: { ...PREPARING, raid: APPLIED_RAID } })
      .operation('Prepare', 3, { status: failed(T1, 'Permanent', 'RAID controller refused') })
      .monitor(monitorOff),
    expect: { state: S.Preparing, errorType: 'preparation error', operationalStatus: 'error' },
  },
  {
    name: 'hardware RAID on a redfish BMC: registration error naming the field (no driver configures RAID)',
    from: S.Registering,
    given: host()
      .spec({
        bmc: { address: 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1', credentialsName: 'server-01-bmc-secret' },
        raid: { hardwareRAIDVolumes: [{ level: '1' }] },
      })
      .inState(S.Registering, unregistered),
    expect: {
      state: S.Registering,
      request: null,
      errorType: 'registration error',
      errorMessage: /^BMC driver redfish\+http does not support configuring RAID; remove spec\.raid\.hardwareRAIDVolumes$/u,
    },
  },
  {
    name: 'UEFISecureBoot on an ipmi BMC: registration error (upstream text), nothing requested',
    from: S.None,
    given: host().spec({ bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: 'c' }, bootMode: 'UEFISecureBoot' }),
    expect: {
      state: S.Registering,
      request: null,
      errorType: 'registration error',
      errorMessage: /^BMC driver ipmi does not support secure boot$/u,
      children: [],
    },
  },
  {
    name: 'preparing host deleted: powering off before delete',
    from: S.Preparing,
    given: host().inState(S.Preparing).monitor(monitorOff).deleting(),
    expect: { state: S.PoweringOffBeforeDelete },
  },
];

/** Back-off for the first failure lies between 1 and 2 minutes after the failure. */
function expectNotBefore(failedAt: string): unknown {
  return {
    asymmetricMatch: (value: unknown): boolean => {
      const delay = (Date.parse(String(value)) - Date.parse(failedAt)) / 1000;
      return delay >= 60 && delay <= 120;
    },
    toString: () => 'a time 1–2 minutes after the failure',
  };
}
