// BareMetalHost and its annotations decorator with a parent one status write behind.
import { ProvisioningState as S } from '../../../domain/baremetalhost.js';
import type { CompositeSyncRequest } from '../../../domain/metacontroller.js';
import { failed, host, succeeded, T0 } from '../../../devenv/builders/host.js';
import { monitorOff, monitorOn, T1 } from '../bmh/registration.rows.js';
import { fixture, num, rec, text, type Route, type Scenario } from './harness.js';

const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum', format: 'qcow2' as const };
const LIFECYCLE: readonly string[] = [
  S.None,
  S.Unmanaged,
  S.Registering,
  S.MatchProfile,
  S.Inspecting,
  S.Preparing,
  S.Ready,
  S.Available,
  S.Provisioning,
  S.Provisioned,
  S.ExternallyProvisioned,
  S.Deprovisioning,
  S.PoweringOffBeforeDelete,
  S.Deleting,
];

export const bmhRoute: Route = {
  route: 'baremetalhost',
  progress: (status) => [num(rec(rec(status.ironhook).request).sequence), LIFECYCLE.indexOf(text(rec(status.provisioning).state))],
  // What a request's status snapshot carries or lets the hook rebuild (ADR 0005): all of it must survive.
  same: (status) => ({
    errorType: status.errorType,
    errorMessage: status.errorMessage,
    errorCount: status.errorCount,
    provisioningFailCount: status.provisioningFailCount,
    operationalStatus: status.operationalStatus,
    poweredOn: status.poweredOn,
    goodCredentials: status.goodCredentials,
    triedCredentials: status.triedCredentials,
    hardwareProfile: status.hardwareProfile,
    lastAttemptedImage: status.lastAttemptedImage,
    provisioning: status.provisioning,
    operationHistory: status.operationHistory,
    ironhook: status.ironhook,
  }),
};

/** CAPM3 (or clusterctl move) pauses the host while sync N's status write is still on its way. */
function paused(request: CompositeSyncRequest): void {
  request.parent.metadata.annotations = { ...request.parent.metadata.annotations, 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' };
}

const provisionFailed = () =>
  host()
    .spec({ online: true, image: IMAGE })
    .inState(S.Provisioning)
    .operation('Provision', 5, { status: failed(T1, 'Permanent', 'image checksum mismatch'), spec: { provision: { image: IMAGE } } })
    .monitor(monitorOn);

const HISTORY = {
  register: { start: T0, end: T0 },
  inspect: { start: T0, end: T0 },
  provision: { start: T0, end: T0 },
  deprovision: { start: null, end: null },
};

export const bmhScenarios: Scenario[] = [
  { name: 'new host: Register requested', request: fixture('baremetalhost', 'seed-host-registering') },
  { name: 'registered: Inspect requested', request: fixture('baremetalhost', 'registered-inspection-requested') },
  { name: 'provisioning, Provision running', request: fixture('baremetalhost', 'provisioning-running') },
  { name: 'unknown BMC scheme: registration error', request: fixture('baremetalhost', 'unknown-scheme-registration-error') },
  { name: 'provisioned host deleted: Deprovision requested', request: fixture('baremetalhost', 'provisioned-host-deleted-deprovision-finalize') },
  {
    name: 'available, image and online: Provision requested',
    request: () => host().spec({ online: true, image: IMAGE }).inState(S.Available).monitor(monitorOff).request(),
  },
  { name: 'Provision failed: Deprovision requested, fail count up', request: () => provisionFailed().request() },
  { name: 'paused before the first status write is seen: the Register request carries it', request: () => host().request(), meanwhile: paused },
  {
    name: 'paused right after Provision was requested',
    request: () => host().spec({ online: true, image: IMAGE }).inState(S.Available, { lastUpdated: T0 }).monitor(monitorOff).request(),
    meanwhile: paused,
  },
  { name: 'paused right after a failed Provision counted', request: () => provisionFailed().request(), meanwhile: paused },
  {
    name: 'Inspect failed transiently: retried, the error recorded',
    request: () =>
      host()
        .inState(S.Inspecting, { operationHistory: HISTORY })
        .operation('Inspect', 3, { status: failed(T1, 'Transient', 'BMC unreachable') })
        .monitor(monitorOff)
        .request(),
  },
  {
    name: 'disablePowerOff and a reboot annotation: Reboot requested, the annotation consumed',
    request: () =>
      host()
        .spec({ online: true, image: IMAGE, disablePowerOff: true })
        .annotate('reboot.metal3.io')
        .inState(S.Provisioned, { poweredOn: true, operationHistory: HISTORY, provisioning: { state: S.Provisioned, ID: 'x', image: IMAGE } })
        .operation('PowerOn', 4, { status: succeeded(T0, { poweredOn: true }) })
        .monitor(monitorOn)
        .request(),
  },
];
