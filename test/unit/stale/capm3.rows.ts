// Metal3Machine, Metal3MachineTemplate and Metal3Cluster with a parent one status write behind.
import { STATE_ORDER, type MachineState } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import { fixture, num, rec, text, type Route, type Scenario } from './harness.js';

export const m3mRoute: Route = {
  route: 'metal3machine',
  progress: (status) => {
    const ironhook = rec(status.ironhook);
    return [num(ironhook.sequence), STATE_ORDER.indexOf(text(ironhook.state) as MachineState)];
  },
  same: (status) => ({ userData: status.userData, renderedData: status.renderedData, metaData: status.metaData, networkData: status.networkData }),
};

const mine = { consumer: 'me', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } };

export const m3mScenarios: Scenario[] = [
  { name: 'no owner Machine yet: waits', request: fixture('metal3machine', 'first-sync-without-owner') },
  { name: 'available host: claim requested', request: fixture('metal3machine', 'claim') },
  { name: 'claim lost: the next host claimed', request: fixture('metal3machine', 'claim-lost-rechoose') },
  { name: 'host provisioned: provider ID requested', request: fixture('metal3machine', 'host-provisioned-provider-id') },
  { name: 'ready', request: fixture('metal3machine', 'ready') },
  { name: 'deleted: Deprovision requested', request: fixture('metal3machine', 'delete-deprovision-finalize') },
  { name: 'deleted: host released for reuse', request: fixture('metal3machine', 'delete-release-node-reuse-finalize') },
  {
    name: 'claim applied: association and the Secret label requested',
    request: () =>
      machine()
        .host('host-a', { ...mine, resourceVersion: '101' })
        .patch('claim', 1, { baseVersion: '100' })
        .request(),
  },
  {
    name: 'Metal3Data ready: rendered data recorded, host spec requested',
    request: () =>
      machine()
        .spec({ dataTemplate: { name: 'workers-dt' } })
        .associated('host-a')
        .host('host-a', mine)
        .patch('credentials-label', 1, { target: 'host-a-bmc-secret' })
        .claimChild()
        .data(true)
        .request(),
  },
];

export const m3mtRoute: Route = { route: 'metal3machinetemplate', progress: () => [], same: (status) => status };

export const m3mtScenarios: Scenario[] = [
  { name: 'first patches', request: fixture('metal3machinetemplate', 'first-patches') },
  { name: 'applied patch dropped', request: fixture('metal3machinetemplate', 'applied-patch-dropped') },
  { name: 'test failed: next sequence', request: fixture('metal3machinetemplate', 'test-failed-next-sequence') },
  { name: 'paused: patches kept', request: fixture('metal3machinetemplate', 'paused-keeps-patches') },
];

export const m3cRoute: Route = {
  route: 'metal3cluster',
  progress: (status) => [rec(status.initialization).provisioned === true ? 1 : 0],
  same: (status) => ({ failureDomains: status.failureDomains, failure: rec(rec(status.deprecated).v1beta1).failureReason }),
};

export const m3cScenarios: Scenario[] = [
  { name: 'no owner: waits', request: fixture('metal3cluster', 'no-owner-waits') },
  { name: 'ready with failure domains', request: fixture('metal3cluster', 'ready-with-failure-domains') },
  { name: 'invalid endpoint', request: fixture('metal3cluster', 'invalid-endpoint-port') },
  { name: 'paused by the Cluster', request: fixture('metal3cluster', 'paused-by-cluster') },
  { name: 'deletion blocked by Machines', request: fixture('metal3cluster', 'deletion-blocked-by-machines-finalize') },
];
