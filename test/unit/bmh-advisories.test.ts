// The advisory conditions (hooks/baremetalhost/advisories.ts): each Metal3 pitfall shows up as a
// True condition with a message that says what to do, and is absent when it does not apply.
import { describe, expect, it } from 'vitest';
import { ProvisioningState as S } from '../../domain/baremetalhost.js';
import type { Condition } from '../../domain/k8s.js';
import { syncBareMetalHost } from '../../hooks/baremetalhost/sync.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { failed, host, succeeded } from '../../devenv/builders/host.js';
import type { HostBuilder } from '../../devenv/builders/host.js';

const T1 = '2026-11-29T10:05:00Z';
const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum' };
const MONITOR = {
  observedTime: T1,
  changedTime: T1,
  poweredOn: true,
  reachable: true,
  credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '1' },
};
const NICS = [
  { name: 'eth0', mac: 'aa:bb:cc:00:00:01', pxe: true },
  { name: 'eth1', mac: '00:11:22:33:44:55', pxe: false },
];
const DISKS = [
  { name: '/dev/sda', sizeBytes: 480_000_000_000 },
  { name: '/dev/nvme0n1', sizeBytes: 960_000_000_000 },
];

function available(hardware: Record<string, unknown> = { nics: NICS, storage: DISKS }): HostBuilder {
  return host().spec({ online: true }).inState(S.Available, { hardware, poweredOn: true }).monitor(MONITOR);
}

function provisioned(extra: Record<string, unknown> = {}): HostBuilder {
  const provisioning = { state: S.Provisioned, ID: 'x', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } };
  return host()
    .spec({ online: true, image: IMAGE })
    .inState(S.Provisioned, { hardware: { nics: NICS, storage: DISKS }, poweredOn: true, provisioning, ...extra })
    .monitor(MONITOR);
}

const USER_DATA = { name: 'server-01-user-data', namespace: 'metal3' };

interface Scenario {
  name: string;
  given: HostBuilder;
  type: string;
  /** Expected reason and message of the True condition; null: the condition is absent. */
  want: { reason: string; message: RegExp } | null;
}

function conditionsOf(given: HostBuilder): Condition[] {
  const response = syncBareMetalHost(given.request(), { config: DEFAULT_HOOK_CONFIG });
  return (response.status as { conditions: Condition[] }).conditions;
}

const scenarios: Scenario[] = [
  {
    name: 'trap 1: bootMACAddress not among the inspected NICs',
    given: available({ nics: [NICS[0]] }),
    type: 'BootMACMismatch',
    want: {
      reason: 'NotAmongInspectedNICs',
      message: /bootMACAddress 00:11:22:33:44:55 is not the MAC of any NIC inspection found \(eth0 aa:bb:cc:00:00:01\).*never the BMC's/u,
    },
  },
  {
    name: 'trap 1: boot NIC cannot PXE boot and the ipmi scheme boots over the network',
    given: available(),
    type: 'BootMACMismatch',
    want: { reason: 'NotPXECapable', message: /NIC eth1, which inspection reports cannot PXE boot.*pick a PXE-capable NIC or a virtual-media scheme/u },
  },
  {
    name: 'trap 1: the same NIC is fine under virtual media',
    given: available().spec({ bmc: { address: 'redfish-virtualmedia://127.0.0.1:8000/redfish/v1/Systems/1', credentialsName: 'server-01-bmc-secret' } }),
    type: 'BootMACMismatch',
    want: null,
  },
  {
    name: 'trap 1: not judged before inspection',
    given: host(),
    type: 'BootMACMismatch',
    want: null,
  },
  {
    name: 'trap 3: online false is not hands-off; the paused annotation is the stop',
    given: available().spec({ online: false }),
    type: 'OnlineFalseNotPaused',
    want: { reason: 'StillReconciled', message: /still managed.*kubectl annotate bmh server-01 -n metal3 baremetalhost\.metal3\.io\/paused=$/u },
  },
  { name: 'trap 3: online true', given: available(), type: 'OnlineFalseNotPaused', want: null },
  {
    name: 'trap 4: metadata cleaning (the default) will erase the inspected disks',
    given: provisioned(),
    type: 'CleaningWillEraseDisks',
    want: {
      reason: 'AutomatedCleaningMetadata',
      message: /will erase, when the host is deprovisioned.*all 2 disks \(\/dev\/sda, \/dev\/nvme0n1\).*"automatedCleaningMode":"disabled"/u,
    },
  },
  {
    name: 'trap 4: cleaning disabled',
    given: provisioned().spec({ automatedCleaningMode: 'disabled' }),
    type: 'CleaningWillEraseDisks',
    want: null,
  },
  {
    name: 'trap 5: a failed cleaning blocks deletion; the exact detach command',
    given: provisioned({ provisioning: { state: S.Deprovisioning, ID: 'x', image: IMAGE } })
      .operation('Deprovision', 7, { status: failed(T1, 'Transient', 'agent did not answer erase_devices_metadata') })
      .deleting(),
    type: 'DeletionBlocked',
    want: {
      reason: 'DeletionStepFailed',
      message:
        /deletion waits for deprovisioning, which failed: agent did not answer.*kubectl annotate bmh server-01 -n metal3 baremetalhost\.metal3\.io\/detached=$/u,
    },
  },
  {
    name: 'trap 5: deleting without a failure',
    given: provisioned({ provisioning: { state: S.Deprovisioning, ID: 'x', image: IMAGE } }).deleting(),
    type: 'DeletionBlocked',
    want: null,
  },
  {
    name: 'trap 6: userData changed after provisioning',
    given: provisioned({ ironhook: { provisionedData: { userData: USER_DATA } } }).spec({ userData: { name: 'server-01-user-data-v2' } }),
    type: 'ProvisionedDataOutOfDate',
    want: {
      reason: 'SpecChangedAfterProvisioning',
      message: /spec\.userData changed from Secret metal3\/server-01-user-data to Secret metal3\/server-01-user-data-v2 since.*"path":"\/spec\/image"/u,
    },
  },
  {
    name: 'trap 6: networkData added after provisioning',
    given: provisioned({ ironhook: { provisionedData: {} } }).spec({ networkData: { name: 'net' } }),
    type: 'ProvisionedDataOutOfDate',
    want: { reason: 'SpecChangedAfterProvisioning', message: /spec\.networkData changed from none to Secret metal3\/net/u },
  },
  {
    name: 'trap 6: the spec names what was provisioned',
    given: provisioned({ ironhook: { provisionedData: { userData: USER_DATA } } }).spec({ userData: { name: 'server-01-user-data' } }),
    type: 'ProvisionedDataOutOfDate',
    want: null,
  },
  {
    name: 'trap 7: an md5 checksumType',
    given: available().spec({ image: { ...IMAGE, checksumType: 'md5' } }),
    type: 'ImageChecksumWeak',
    want: { reason: 'MD5Checksum', message: /md5 is deprecated and not FIPS-compliant.*sha256 or sha512/u },
  },
  {
    name: 'trap 7: a 32-digit checksum detected as md5',
    given: available().spec({ image: { url: IMAGE.url, checksum: 'd41d8cd98f00b204e9800998ecf8427e' } }),
    type: 'ImageChecksumWeak',
    want: { reason: 'MD5Checksum', message: /a 32-digit hex string, detected as md5/u },
  },
  { name: 'trap 7: sha256', given: available().spec({ image: { ...IMAGE, checksumType: 'sha256' } }), type: 'ImageChecksumWeak', want: null },
  {
    name: 'trap 8: an oci:// tag',
    given: available().spec({ image: { url: 'oci://registry.example/os/ubuntu:24.04' } }),
    type: 'ImageNotPinned',
    want: { reason: 'OCITagNotDigest', message: /checksum is ignored for oci:\/\/ images: pin it by digest/u },
  },
  {
    name: 'trap 8: an oci:// digest',
    given: available().spec({ image: { url: `oci://registry.example/os/ubuntu@sha256:${'a'.repeat(64)}` } }),
    type: 'ImageNotPinned',
    want: null,
  },
  {
    name: 'trap 11: registering, nothing inspected yet',
    given: host(),
    type: 'InspectionPending',
    want: { reason: 'NotInspectedYet', message: /status\.hardware is empty: inspection starts once registration succeeds/u },
  },
  {
    name: 'trap 11: inspection disabled',
    given: available({}).spec({ inspectionMode: 'disabled' }),
    type: 'InspectionPending',
    want: { reason: 'InspectionDisabled', message: /inspection is disabled \(spec\.inspectionMode\).*inspect\.metal3\.io\/hardwaredetails/u },
  },
  { name: 'trap 11: inspected', given: available(), type: 'InspectionPending', want: null },
];

describe('advisory conditions', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const found = conditionsOf(scenario.given).find((item) => item.type === scenario.type);
    if (scenario.want === null) {
      expect(found).toBeUndefined();
      return;
    }
    expect(found).toMatchObject({ status: 'True', reason: scenario.want.reason });
    expect(found?.message).toMatch(scenario.want.message);
  });

  it('a succeeded Provision records the data Secrets it deployed; a deprovisioning host forgets them', () => {
    const provisioning = { state: S.Provisioning, ID: 'x', image: { url: '' } };
    const given = host()
      .spec({ online: true, image: IMAGE, userData: { name: 'server-01-user-data' } })
      .inState(S.Provisioning, { provisioning, poweredOn: true })
      .operation('Provision', 6, { spec: { provision: { image: IMAGE, userData: USER_DATA } }, status: succeeded(T1) })
      .monitor(MONITOR);
    const response = syncBareMetalHost(given.request(), { config: DEFAULT_HOOK_CONFIG });
    expect(response.status).toMatchObject({ provisioning: { state: S.Provisioned }, ironhook: { provisionedData: { userData: USER_DATA } } });

    const cleaning = { state: S.Deprovisioning, ID: 'x', image: IMAGE };
    const leaving = provisioned({ provisioning: cleaning, ironhook: { provisionedData: { userData: USER_DATA } } }).spec({ image: undefined });
    const next = syncBareMetalHost(leaving.request(), { config: DEFAULT_HOOK_CONFIG });
    expect(next.status).toMatchObject({ provisioning: { state: S.Deprovisioning } });
    expect((next.status as { ironhook: Record<string, unknown> }).ironhook.provisionedData).toBeUndefined();
  });

  it('conditions stay sorted by type', () => {
    const types = conditionsOf(provisioned().spec({ online: false })).map((item) => item.type);
    expect(types).toEqual([...types].sort((a, b) => a.localeCompare(b)));
  });
});
