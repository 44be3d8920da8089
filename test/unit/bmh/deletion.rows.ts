// Rows for deprovisioning, powering off before delete and deleting.
import { ProvisioningState as S } from '../../../domain/baremetalhost.js';
import { failed, host, running, succeeded } from '../../../devenv/builders/host.js';
import { monitorOff, monitorOn, T1 } from './registration.rows.js';
import type { Row } from './table.js';

const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'abc' };
const cleaning = { provisioning: { state: S.Deprovisioning, ID: 'x', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } } };

export const deletionRows: Row[] = [
  {
    name: 'deprovisioning without a request (status recovered): Deprovision requested',
    from: S.Deprovisioning,
    given: host().inState(S.Deprovisioning, cleaning).monitor(monitorOn),
    expect: { state: S.Deprovisioning, request: 'server-01-deprovision-1' },
  },
  {
    name: 'deprovisioning, Deprovision running: waits',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, cleaning)
      .operation('Deprovision', 6, { status: running(T1, 'erasing disk metadata') })
      .monitor(monitorOn),
    expect: { state: S.Deprovisioning, reason: /erasing disk metadata/u },
  },
  {
    name: 'deprovisioning, Deprovision succeeded: available, image cleared',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, { ...cleaning, errorCount: 1 })
      .operation('Deprovision', 6, { status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOn),
    expect: {
      state: S.Available,
      errorCount: 0,
      errorType: null,
      status: { provisioning: { image: { url: '' } }, operationHistory: { deprovision: { end: T1 } } },
    },
  },
  {
    name: 'deprovisioning, Deprovision failed transiently: provisioning error and retry',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, cleaning)
      .operation('Deprovision', 6, { status: failed(T1, 'Transient', 'agent did not answer') })
      .monitor(monitorOn),
    expect: { state: S.Deprovisioning, errorType: 'provisioning error', request: 'server-01-deprovision-7' },
  },
  {
    name: 'deprovisioning while deleting, Deprovision succeeded: powering off before delete',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, cleaning)
      .operation('Deprovision', 6, { status: succeeded(T1) })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.PoweringOffBeforeDelete, finalized: false },
  },
  {
    name: 'deprovisioning while deleting, second failure: retry, and the message says how to skip',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, cleaning)
      .operation('Deprovision', 6, { errorCount: 1, status: failed(T1, 'Transient', 'agent did not answer') })
      .monitor(monitorOn)
      .deleting(),
    expect: { errorCount: 2, request: 'server-01-deprovision-7', errorMessage: /annotate the host with baremetalhost\.metal3\.io\/detached/u },
  },
  {
    name: 'deprovisioning while deleting, fourth failure: gives up cleaning',
    from: S.Deprovisioning,
    given: host()
      .inState(S.Deprovisioning, cleaning)
      .operation('Deprovision', 9, { errorCount: 3, status: failed(T1, 'Transient', 'agent did not answer') })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.PoweringOffBeforeDelete, errorCount: 4, errorType: 'provisioning error' },
  },
  {
    name: 'powering off before delete: hard PowerOff requested',
    from: S.PoweringOffBeforeDelete,
    given: host().inState(S.PoweringOffBeforeDelete).monitor(monitorOn).deleting(),
    expect: { request: 'server-01-poweroff-1', requestSpec: { power: { mode: 'hard' } }, finalized: false },
  },
  {
    name: 'powering off before delete, PowerOff succeeded: deleting',
    from: S.PoweringOffBeforeDelete,
    given: host()
      .inState(S.PoweringOffBeforeDelete)
      .operation('PowerOff', 2, { status: succeeded(T1, { poweredOn: false }) })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.Deleting, status: { poweredOn: false } },
  },
  {
    name: 'powering off before delete, BMC unreachable twice: retry with the skip hint',
    from: S.PoweringOffBeforeDelete,
    given: host()
      .inState(S.PoweringOffBeforeDelete)
      .operation('PowerOff', 2, { errorCount: 1, status: failed(T1, 'Transient', 'BMC unreachable') })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.PoweringOffBeforeDelete, errorType: 'power management error', request: 'server-01-poweroff-3', errorMessage: /detached/u },
  },
  {
    name: 'powering off before delete, fourth failure: deletes without powering off',
    from: S.PoweringOffBeforeDelete,
    given: host()
      .inState(S.PoweringOffBeforeDelete)
      .operation('PowerOff', 5, { errorCount: 3, status: failed(T1, 'Transient', 'BMC unreachable') })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.Deleting, errorCount: 4 },
  },
  {
    name: 'powering off before delete with disablePowerOff: deleting',
    from: S.PoweringOffBeforeDelete,
    given: host().spec({ disablePowerOff: true, online: true }).inState(S.PoweringOffBeforeDelete).monitor(monitorOn).deleting(),
    expect: { state: S.Deleting },
  },
  {
    name: 'powering off before delete, BMC gone, user adds the detached annotation: deleting at once',
    from: S.PoweringOffBeforeDelete,
    given: host()
      .annotate('baremetalhost.metal3.io/detached')
      .inState(S.PoweringOffBeforeDelete)
      .operation('PowerOff', 2, { status: running(T1) })
      .monitor(monitorOn)
      .deleting(),
    expect: { state: S.Deleting },
  },
  {
    name: 'detached host deleted with deleteAction delay: waits',
    from: S.Available,
    given: host().annotate('baremetalhost.metal3.io/detached', '{"deleteAction":"delay"}').inState(S.Available, { operationalStatus: 'detached' }).deleting(),
    expect: { state: S.Available, finalized: false, reason: /deleteAction "delay"/u },
  },
  {
    name: 'deleting: Delete requested',
    from: S.Deleting,
    given: host()
      .inState(S.Deleting)
      .operation('PowerOff', 3, { status: succeeded(T1) })
      .monitor(monitorOff)
      .deleting(),
    expect: { request: 'server-01-delete-4', finalized: false },
  },
  {
    name: 'deleting, Delete running: waits',
    from: S.Deleting,
    given: host()
      .inState(S.Deleting)
      .operation('Delete', 4, { status: running(T1) })
      .monitor(monitorOff)
      .deleting(),
    expect: { request: 'server-01-delete-4', finalized: false },
  },
  {
    name: 'deleting, Delete succeeded: finalized, no children',
    from: S.Deleting,
    given: host()
      .inState(S.Deleting)
      .operation('Delete', 4, { status: succeeded(T1) })
      .monitor(monitorOff)
      .deleting(),
    expect: { finalized: true, children: [] },
  },
  {
    name: 'deleting, paused: nothing changes and the finalizer stays',
    from: S.Deleting,
    given: host()
      .annotate('baremetalhost.metal3.io/paused')
      .inState(S.Deleting)
      .operation('Delete', 4, { status: running(T1) })
      .deleting(),
    expect: { finalized: false, request: 'server-01-delete-4' },
  },
];
