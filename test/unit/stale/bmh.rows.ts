// BareMetalHost and its annotations decorator with a parent one status write behind.
import { ProvisioningState as S } from '../../../domain/baremetalhost.js';
import type { CompositeSyncRequest } from '../../../domain/metacontroller.js';
import { failed, host, T0 } from '../../../devenv/builders/host.js';
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
  same: (status) => ({
    errorCount: status.errorCount,
    provisioningFailCount: status.provisioningFailCount,
    goodCredentials: status.goodCredentials,
    lastAttemptedImage: status.lastAttemptedImage,
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

export const bmhScenarios: Scenario[] = [
  { name: 'new host: Register requested', request: fixture('baremetalhost', 'seed-host-registering') },
  { name: 'registered: Inspect requested', request: fixture('baremetalhost', 'registered-inspection-requested') },
  { name: 'provisioning, Provision running', request: fixture('baremetalhost', 'provisioning-running') },
  { name: 'unknown BMC scheme: registration error', request: fixture('baremetalhost', 'unknown-scheme-registration-error') },
  { name: 'provisioned host deleted: Deprovision requested', request: fixture('baremetalhost', 'provisioned-host-deleted-deprovision-finalize') },
  { name: 'available, image and online: Provision requested', request: () => host().spec({ online: true, image: IMAGE }).inState(S.Available).monitor(monitorOff).request() },
  { name: 'Provision failed: Deprovision requested, fail count up', request: () => provisionFailed().request() },
  { name: 'paused before the first status write is seen: the Register request carries it', request: () => host().request(), meanwhile: paused },
  {
    name: 'paused right after Provision was requested',
    request: () => host().spec({ online: true, image: IMAGE }).inState(S.Available, { lastUpdated: T0 }).monitor(monitorOff).request(),
    meanwhile: paused,
  },
  { name: 'paused right after a failed Provision counted', request: () => provisionFailed().request(), meanwhile: paused },
];
