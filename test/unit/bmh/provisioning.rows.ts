// Rows for available, ready, provisioning, provisioned and externally provisioned.
import { ProvisioningState as S } from '../../../domain/baremetalhost.js';
import { delayed, failed, host, running, succeeded, T0 } from '../../../devenv/builders/host.js';
import { monitorOff, monitorOn, T1 } from './registration.rows.js';
import type { Row } from './table.js';

const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum', format: 'qcow2' as const };
const OTHER = { ...IMAGE, url: 'http://127.0.0.1:8081/images/ubuntu-24.04.qcow2' };
const deployed = (state: S) => ({ provisioning: { state, ID: 'x', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } } });
const provisionSpec = { provision: { image: IMAGE } };

export const provisioningRows: Row[] = [
  {
    name: 'available, online false and off: steady',
    from: S.Available,
    given: host().inState(S.Available).monitor(monitorOff),
    expect: {
      state: S.Available,
      operationalStatus: 'OK',
      request: null,
      children: ['BMCMonitor', 'HostFirmwareSettings'],
      reason: /power is off as requested/u,
    },
  },
  {
    name: 'available, online true and off: PowerOn',
    from: S.Available,
    given: host().spec({ online: true }).inState(S.Available).monitor(monitorOff),
    expect: { request: 'server-01-poweron-1', requestSpec: { power: { mode: 'hard' } } },
  },
  {
    name: 'available, online false and on: soft PowerOff',
    from: S.Available,
    given: host().inState(S.Available).monitor(monitorOn),
    expect: { request: 'server-01-poweroff-1', requestSpec: { power: { mode: 'soft' } } },
  },
  {
    name: 'available, power never read yet: waits for the monitor',
    from: S.Available,
    given: host().spec({ online: true }).inState(S.Available),
    expect: { request: null, reason: /read the power state/u },
  },
  {
    name: 'available, PowerOn running: waits',
    from: S.Available,
    given: host()
      .spec({ online: true })
      .inState(S.Available)
      .operation('PowerOn', 4, { status: running(T1) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweron-4' },
  },
  {
    name: 'available, PowerOn succeeded but the monitor read before it: the request result wins',
    from: S.Available,
    given: host()
      .spec({ online: true })
      .inState(S.Available, { errorCount: 1 })
      .operation('PowerOn', 4, { status: succeeded(T1, { poweredOn: true }) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweron-4', status: { poweredOn: true }, errorCount: 0 },
  },
  {
    name: 'available, PowerOn failed transiently: power management error and retry',
    from: S.Available,
    given: host()
      .spec({ online: true })
      .inState(S.Available)
      .operation('PowerOn', 4, { status: failed(T1, 'Transient', 'BMC timeout') })
      .monitor(monitorOff),
    expect: { errorType: 'power management error', operationalStatus: 'error', request: 'server-01-poweron-5' },
  },
  {
    name: 'available, image and online: Provision requested while still available',
    from: S.Available,
    given: host().spec({ online: true, image: IMAGE }).inState(S.Available).monitor(monitorOff),
    expect: {
      state: S.Available,
      request: 'server-01-provision-1',
      requestSpec: { ...provisionSpec, hostStatus: { state: S.Available } },
      status: { lastAttemptedImage: IMAGE },
    },
  },
  {
    name: 'available, Provision held back by the limit: delayed',
    from: S.Available,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Available)
      .operation('Provision', 5, { status: delayed('provisioning limit 20 reached') })
      .monitor(monitorOff),
    expect: { state: S.Available, operationalStatus: 'delayed', request: 'server-01-provision-5' },
  },
  {
    name: 'available, Provision admitted: provisioning',
    from: S.Available,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Available)
      .operation('Provision', 5, { status: running(T1) })
      .monitor(monitorOff),
    expect: { state: S.Provisioning, request: 'server-01-provision-5', status: { provisioning: { bootMode: 'UEFI' } } },
  },
  {
    name: 'available, pending Provision but the image was removed: request dropped',
    from: S.Available,
    given: host().inState(S.Available).operation('Provision', 5).monitor(monitorOff),
    expect: { state: S.Available, request: null },
  },
  {
    name: 'available, image but online false: not provisioned',
    from: S.Available,
    given: host().spec({ image: IMAGE }).inState(S.Available).monitor(monitorOff),
    expect: { state: S.Available, request: null },
  },
  {
    name: 'available, userData in another namespace: provisioning error, nothing requested',
    from: S.Available,
    given: host()
      .spec({ online: true, image: IMAGE, userData: { name: 'ud', namespace: 'other' } })
      .inState(S.Available)
      .monitor(monitorOff),
    expect: { errorType: 'provisioning error', errorMessage: /userData: cross-namespace Secret references are not allowed/u, request: null },
  },
  {
    name: 'available, custom deploy: Provision with the method',
    from: S.Available,
    given: host()
      .spec({ online: true, customDeploy: { method: 'install_coreos' } })
      .inState(S.Available)
      .monitor(monitorOff),
    expect: { request: 'server-01-provision-1', requestSpec: { provision: { customDeploy: { method: 'install_coreos' } } } },
  },
  {
    name: 'available, retry limit reached for this image: provisioning error',
    from: S.Available,
    given: host().spec({ online: true, image: IMAGE }).inState(S.Available, { provisioningFailCount: 5, lastAttemptedImage: IMAGE }).monitor(monitorOff),
    expect: { errorType: 'provisioning error', errorMessage: /retry limit 5 reached/u, request: null },
  },
  {
    name: 'available, retry limit reached but the image changed: provisions again',
    from: S.Available,
    given: host().spec({ online: true, image: OTHER }).inState(S.Available, { provisioningFailCount: 5, lastAttemptedImage: IMAGE }).monitor(monitorOff),
    expect: { request: 'server-01-provision-1', status: { provisioningFailCount: 0 } },
  },
  {
    name: 'available, externallyProvisioned set: externally provisioned',
    from: S.Available,
    given: host().spec({ externallyProvisioned: true }).inState(S.Available).monitor(monitorOff),
    expect: { state: S.ExternallyProvisioned },
  },
  {
    name: 'available, re-inspection requested: Inspect',
    from: S.Available,
    given: host().annotate('inspect.metal3.io').inState(S.Available).monitor(monitorOff),
    expect: { state: S.Available, request: 'server-01-inspect-1', requestSpec: { hostStatus: { state: S.Available } } },
  },
  {
    name: 'available, re-inspection annotation already consumed: ignored',
    from: S.Available,
    given: host()
      .annotate('inspect.metal3.io')
      .inState(S.Available, { ironhook: { consumedAnnotations: ['inspect.metal3.io'] } })
      .monitor(monitorOff),
    expect: { request: null, consumed: ['inspect.metal3.io'] },
  },
  {
    name: 'available, RAID changed (applied RAID cleared): preparing',
    from: S.Available,
    given: host()
      .spec({ raid: { hardwareRAIDVolumes: [], softwareRAIDVolumes: [] } })
      .inState(S.Available, {
        provisioning: { state: S.Available, ID: '6f3c2a1e-0000-4000-8000-000000000001', image: { url: '' }, raid: { softwareRAIDVolumes: [{ level: '1' }] } },
      })
      .monitor(monitorOff),
    expect: { state: S.Preparing },
  },
  {
    name: 'available, reboot annotation without force: not honoured here',
    from: S.Available,
    given: host().spec({ online: true }).annotate('reboot.metal3.io/maintenance').inState(S.Available, { poweredOn: true }).monitor(monitorOn),
    expect: { request: null },
  },
  {
    name: 'available, forced reboot annotation: PowerOff',
    from: S.Available,
    given: host()
      .spec({ online: true })
      .annotate('reboot.metal3.io/maintenance', '{"force": true}')
      .inState(S.Available, { poweredOn: true })
      .monitor(monitorOn),
    expect: { request: 'server-01-poweroff-1' },
  },
  {
    name: 'legacy ready: renamed to available',
    from: S.Ready,
    given: host().inState(S.Ready).monitor(monitorOff),
    expect: { state: S.Available },
  },
  {
    name: 'available, Secret rotated: registers again before anything else',
    from: S.Available,
    given: host()
      .inState(S.Available)
      .monitor({ ...monitorOff, credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '9' } }),
    expect: { state: S.Available, request: 'server-01-register-1' },
  },
  {
    name: 'provisioning, Secret got a new resourceVersion (e.g. a label) while Provision runs: Provision goes on, no Register yet',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: running(T1, 'writing the image'), spec: provisionSpec })
      .monitor({ ...monitorOn, credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '9' } }),
    expect: { state: S.Provisioning, request: 'server-01-provision-5' },
  },
  {
    name: 'provisioning, Provision succeeded after the Secret changed: provisioned first, no Register in the same sync',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: succeeded(T1, { poweredOn: true }), spec: provisionSpec })
      .monitor({ ...monitorOn, credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '9' } }),
    expect: { state: S.Provisioned, request: 'server-01-provision-5' },
  },
  {
    name: 'provisioning, Provision succeeded after spec.bmc named another Secret: provisioned first, no Register in the same sync',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE, bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: 'server-01-new-secret' } })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: succeeded(T1, { poweredOn: true }), spec: provisionSpec })
      .monitor(monitorOn),
    expect: { state: S.Provisioned, request: 'server-01-provision-5' },
  },
  {
    name: 'provisioned, the Provision success committed and the Secret changed: registers again, stays provisioned',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioned, {
        ...deployed(S.Provisioned),
        poweredOn: true,
        ironhook: { request: { name: 'server-01-provision-5', action: 'Provision', sequence: 5, phase: 'Succeeded' } },
      })
      .operation('Provision', 5, { status: succeeded(T1, { poweredOn: true }), spec: provisionSpec })
      .monitor({ ...monitorOn, credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '9' } }),
    expect: { state: S.Provisioned, request: 'server-01-register-6' },
  },
  {
    name: 'provisioning, Provision failed after the Secret changed: registers again before retrying',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: failed(T1, 'Transient', 'agent did not answer'), spec: provisionSpec })
      .monitor({ ...monitorOn, credentials: { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '9' } }),
    expect: { state: S.Provisioning, request: 'server-01-register-6' },
  },
  {
    name: 'provisioning, Provision running: waits',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: running(T1, 'writing the image'), spec: provisionSpec })
      .monitor(monitorOn),
    expect: { state: S.Provisioning, request: 'server-01-provision-5', reason: /writing the image/u },
  },
  {
    name: 'provisioning, Provision succeeded: provisioned with the image recorded',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: succeeded(T1, { poweredOn: true }), spec: provisionSpec })
      .monitor(monitorOn),
    expect: { state: S.Provisioned, status: { provisioning: { image: IMAGE }, poweredOn: true }, errorCount: 0 },
  },
  {
    name: 'provisioning, Provision succeeded after the last power reading: provisioned and on in the same status write',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: succeeded(T1, { poweredOn: true }), spec: provisionSpec })
      .monitor(monitorOff),
    expect: { state: S.Provisioned, status: { poweredOn: true } },
  },
  {
    name: 'provisioning, Provision succeeded but a newer reading says off: provisioned and off',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: succeeded(T0, { poweredOn: true }), spec: provisionSpec })
      .monitor({ ...monitorOff, observedTime: T1, changedTime: T1 }),
    expect: { state: S.Provisioned, status: { poweredOn: false } },
  },
  {
    name: 'provisioning, Provision failed: provisioning error, Deprovision requested, fail count up',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: failed(T1, 'Permanent', 'image checksum mismatch'), spec: provisionSpec })
      .monitor(monitorOn),
    expect: {
      state: S.Provisioning,
      errorType: 'provisioning error',
      errorCount: 1,
      request: 'server-01-deprovision-6',
      requestSpec: { hostStatus: { state: S.Provisioning, errorCount: 1, provisioningFailCount: 1 } },
      status: { provisioningFailCount: 1 },
    },
  },
  {
    name: 'provisioning, Deprovision pending after a failure: keeps waiting for it',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning, { errorType: 'provisioning error', errorMessage: 'x', errorCount: 1, operationalStatus: 'error' })
      .operation('Deprovision', 6, { errorCount: 1 })
      .monitor(monitorOn),
    expect: { state: S.Provisioning, request: 'server-01-deprovision-6', errorType: 'provisioning error' },
  },
  {
    name: 'provisioning, Deprovision admitted: deprovisioning',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Deprovision', 6, { status: running(T1) })
      .monitor(monitorOn),
    expect: { state: S.Deprovisioning, request: 'server-01-deprovision-6' },
  },
  {
    name: 'provisioning, image URL changed: cancelled, Deprovision requested',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: OTHER })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: running(T1), spec: provisionSpec })
      .monitor(monitorOn),
    expect: { state: S.Provisioning, request: 'server-01-deprovision-6' },
  },
  {
    name: 'provisioning, only the checksum changed: not cancelled',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: { ...IMAGE, checksum: 'abc' } })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: running(T1), spec: provisionSpec })
      .monitor(monitorOn),
    expect: { request: 'server-01-provision-5' },
  },
  {
    name: 'provisioning host deleted: Deprovision requested',
    from: S.Provisioning,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioning)
      .operation('Provision', 5, { status: running(T1), spec: provisionSpec })
      .monitor(monitorOn)
      .deleting(),
    expect: { request: 'server-01-deprovision-6', finalized: false },
  },
  {
    name: 'provisioned, online and on: steady',
    from: S.Provisioned,
    given: host().spec({ online: true, image: IMAGE }).inState(S.Provisioned, deployed(S.Provisioned)).monitor(monitorOn),
    expect: { state: S.Provisioned, request: null, operationalStatus: 'OK' },
  },
  {
    name: 'provisioned, image removed: Deprovision requested',
    from: S.Provisioned,
    given: host().spec({ online: true }).inState(S.Provisioned, deployed(S.Provisioned)).monitor(monitorOn),
    expect: { state: S.Provisioned, request: 'server-01-deprovision-1', requestSpec: { deprovision: { automatedCleaningMode: 'metadata' } } },
  },
  {
    name: 'provisioned, image URL changed: Deprovision requested',
    from: S.Provisioned,
    given: host().spec({ online: true, image: OTHER, automatedCleaningMode: 'disabled' }).inState(S.Provisioned, deployed(S.Provisioned)).monitor(monitorOn),
    expect: { request: 'server-01-deprovision-1', requestSpec: { deprovision: { automatedCleaningMode: 'disabled' } } },
  },
  {
    name: 'provisioned, bare reboot annotation while on: soft PowerOff made for it',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), poweredOn: true })
      .monitor(monitorOn),
    expect: { request: 'server-01-poweroff-1', requestSpec: { power: { mode: 'soft', reboots: ['reboot.metal3.io'] } }, consumed: [] },
  },
  {
    // A reading taken before the annotation appeared says nothing about the reboot (soak, issue 14).
    name: 'provisioned, bare reboot annotation and a reading that says off: PowerOff made for it anyway, not consumed',
    from: S.Provisioned,
    given: host().spec({ online: true, image: IMAGE }).annotate('reboot.metal3.io').inState(S.Provisioned, deployed(S.Provisioned)).monitor(monitorOff),
    expect: { request: 'server-01-poweroff-1', requestSpec: { power: { reboots: ['reboot.metal3.io'] } }, consumed: [] },
  },
  {
    name: 'provisioned, bare reboot annotation and an earlier PowerOff not made for it: a new PowerOff',
    from: S.Provisioned,
    given: host()
      .spec({ online: false, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .operation('PowerOff', 1, { status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweroff-2', requestSpec: { power: { reboots: ['reboot.metal3.io'] } }, consumed: [] },
  },
  {
    name: 'provisioned, the PowerOff made for a bare reboot annotation succeeded: consumed, powering on',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .operation('PowerOff', 1, { spec: { power: { mode: 'soft', reboots: ['reboot.metal3.io'] } }, status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweron-2', consumed: ['reboot.metal3.io'] },
  },
  {
    name: 'provisioned, online false, the PowerOff made for a bare reboot annotation succeeded: consumed, remembered on the request',
    from: S.Provisioned,
    given: host()
      .spec({ online: false, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .operation('PowerOff', 1, { spec: { power: { mode: 'soft', reboots: ['reboot.metal3.io'] } }, status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOn),
    expect: {
      request: 'server-01-poweroff-1',
      consumed: ['reboot.metal3.io'],
      status: { poweredOn: false, ironhook: { request: { name: 'server-01-poweroff-1', answeredReboots: ['reboot.metal3.io'] } } },
    },
  },
  {
    name: 'provisioned, bare reboot annotation answered, removed and added again: a new PowerOff',
    from: S.Provisioned,
    given: host()
      .spec({ online: false, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, {
        ...deployed(S.Provisioned),
        ironhook: { request: { name: 'server-01-poweroff-1', action: 'PowerOff', sequence: 1, phase: 'Succeeded', answeredReboots: ['reboot.metal3.io'] } },
      })
      .operation('PowerOff', 1, { spec: { power: { mode: 'soft', reboots: ['reboot.metal3.io'] } }, status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweroff-2', consumed: [] },
  },
  {
    name: 'provisioned, consumed reboot annotation still present: powers on',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), ironhook: { consumedAnnotations: ['reboot.metal3.io'] } })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweron-1' },
  },
  {
    name: 'provisioned, hard phased reboot annotation: hard PowerOff, kept off',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io/remediation', '{"mode":"hard"}')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .monitor(monitorOn),
    expect: { request: 'server-01-poweroff-1', requestSpec: { power: { mode: 'hard' } } },
  },
  {
    name: 'provisioned, phased reboot annotation and off: stays off, annotation not consumed',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io/remediation')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .monitor(monitorOff),
    expect: { request: null, consumed: [] },
  },
  {
    name: 'provisioned, disablePowerOff and a reboot annotation: Reboot made for it, not consumed before it succeeds',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE, disablePowerOff: true })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), poweredOn: true })
      .monitor(monitorOn),
    expect: { request: 'server-01-reboot-1', requestSpec: { power: { reboots: ['reboot.metal3.io'] } }, consumed: [] },
  },
  {
    name: 'provisioned, disablePowerOff and the Reboot for a bare annotation succeeded: consumed',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE, disablePowerOff: true })
      .annotate('reboot.metal3.io')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), poweredOn: true })
      .operation('Reboot', 1, { spec: { power: { mode: 'soft', reboots: ['reboot.metal3.io'] } }, status: succeeded(T1, { poweredOn: true }) })
      .monitor(monitorOn),
    expect: { request: 'server-01-reboot-1', consumed: ['reboot.metal3.io'] },
  },
  {
    name: 'provisioned, disablePowerOff and a phased reboot annotation: one Reboot made for it',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE, disablePowerOff: true })
      .annotate('reboot.metal3.io/remediation', '{"mode":"hard"}')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), poweredOn: true })
      .monitor(monitorOn),
    expect: { request: 'server-01-reboot-1', requestSpec: { power: { mode: 'hard', reboots: ['reboot.metal3.io/remediation'] } }, consumed: [] },
  },
  {
    name: 'provisioned, disablePowerOff, phased reboot done and the annotation still there: remembered as answered, no second Reboot',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE, disablePowerOff: true })
      .annotate('reboot.metal3.io/remediation', '{"mode":"hard"}')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), poweredOn: true })
      .operation('Reboot', 1, { spec: { power: { mode: 'hard', reboots: ['reboot.metal3.io/remediation'] } }, status: succeeded(T1) })
      .monitor(monitorOn),
    expect: { request: 'server-01-reboot-1', consumed: ['reboot.metal3.io/remediation'] },
  },
  {
    name: 'provisioned, phased annotation and a PowerOff made for it succeeded: kept off, not consumed',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('reboot.metal3.io/remediation')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .operation('PowerOff', 1, { spec: { power: { mode: 'soft', reboots: ['reboot.metal3.io/remediation'] } }, status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOff),
    expect: { request: 'server-01-poweroff-1', consumed: [] },
  },
  {
    name: 'provisioned, detached annotation: Detach requested',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('baremetalhost.metal3.io/detached')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .monitor(monitorOn),
    expect: { request: 'server-01-detach-1' },
  },
  {
    name: 'provisioned, Detach succeeded: detached, no monitor',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('baremetalhost.metal3.io/detached')
      .inState(S.Provisioned, deployed(S.Provisioned))
      .operation('Detach', 2, { status: succeeded(T1) })
      .monitor(monitorOn),
    expect: { operationalStatus: 'detached', children: ['HostFirmwareSettings', 'HostOperation'] },
  },
  {
    name: 'provisioned and detached: slow poll, nothing requested',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .annotate('baremetalhost.metal3.io/detached')
      .inState(S.Provisioned, { ...deployed(S.Provisioned), operationalStatus: 'detached' })
      .operation('Detach', 2, { status: succeeded(T1) }),
    expect: { operationalStatus: 'detached', resyncAfterSeconds: 600, request: 'server-01-detach-2' },
  },
  {
    name: 'provisioned, detached annotation removed: re-attaches by registering',
    from: S.Provisioned,
    given: host()
      .spec({ online: true, image: IMAGE })
      .inState(S.Provisioned, { ...deployed(S.Provisioned), operationalStatus: 'detached' })
      .operation('Detach', 2, { status: succeeded(T1) }),
    expect: { request: 'server-01-register-3', operationalStatus: 'OK' },
  },
  {
    name: 'provisioned host deleted: Deprovision requested',
    from: S.Provisioned,
    given: host().spec({ online: true, image: IMAGE }).inState(S.Provisioned, deployed(S.Provisioned)).monitor(monitorOn).deleting(),
    expect: { state: S.Provisioned, request: 'server-01-deprovision-1', finalized: false },
  },
  {
    name: 'externally provisioned, online and off: PowerOn',
    from: S.ExternallyProvisioned,
    given: host().spec({ online: true, externallyProvisioned: true }).inState(S.ExternallyProvisioned).monitor(monitorOff),
    expect: { state: S.ExternallyProvisioned, request: 'server-01-poweron-1' },
  },
  {
    name: 'externally provisioned, flag cleared: provisioned with the spec image',
    from: S.ExternallyProvisioned,
    given: host().spec({ online: true, image: IMAGE }).inState(S.ExternallyProvisioned).monitor(monitorOn),
    expect: { state: S.Provisioned, status: { provisioning: { image: IMAGE } } },
  },
  {
    name: 'externally provisioned host deleted: powering off before delete',
    from: S.ExternallyProvisioned,
    given: host().spec({ externallyProvisioned: true }).inState(S.ExternallyProvisioned).monitor(monitorOn).deleting(),
    expect: { state: S.PoweringOffBeforeDelete },
  },
  {
    name: 'available, paused: status and children come back unchanged',
    from: S.Available,
    given: host()
      .spec({ online: true })
      .annotate('baremetalhost.metal3.io/paused')
      .inState(S.Available)
      .operation('PowerOff', 2, { status: succeeded(T0) })
      .monitor(monitorOff),
    expect: { state: S.Available, request: 'server-01-poweroff-2', status: { lastUpdated: T0 }, children: ['BMCMonitor', 'HostOperation'] },
  },
  {
    // Created paused (e.g. moved by clusterctl): a composite hook always writes a status, so it is
    // the blank one that the CRD's required fields accept, not {} (refused on every sync).
    name: 'created paused, no status yet: a blank valid status, nothing requested',
    from: S.None,
    given: host().spec({ online: true }).annotate('baremetalhost.metal3.io/paused'),
    expect: {
      state: S.None,
      operationalStatus: '',
      errorCount: 0,
      request: null,
      status: { poweredOn: false, provisioningFailCount: 0, errorMessage: '' },
      children: [],
    },
  },
];
