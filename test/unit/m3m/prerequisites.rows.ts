// Rows for the states before a host is chosen: owner, cluster infrastructure, Metal3Cluster,
// pause and bootstrap data.
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import type { Row } from './table.js';

export const prerequisiteRows: Row[] = [
  {
    name: 'no owner reference: waits for a Machine, AssociateBareMetalHost False/WaitingForMetal3MachineOwnerRef',
    state: S.WaitingForMachine,
    given: machine().withoutOwner(),
    expect: {
      waitingFor: /Cluster API Machine to set itself as owner/u,
      children: [],
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForMetal3MachineOwnerRef' },
      v1beta1: { type: 'AssociateBMH', status: 'False', reason: 'WaitingForM3MachineOwnerRef', severity: 'Info' },
    },
  },
  {
    name: 'owner reference to a Machine not (yet) in the cache: waits naming it',
    state: S.WaitingForMachine,
    given: machine().withoutMachine(),
    expect: { waitingFor: /Machine w-1-m \(the owner\)/u, resyncAfterSeconds: null },
  },
  {
    name: 'Cluster infrastructure not provisioned: waits, WaitingForClusterInfrastructureReady',
    state: S.WaitingForClusterInfrastructure,
    given: machine().clusterInfrastructure(false),
    expect: {
      waitingFor: /Cluster c1 infrastructure to be provisioned/u,
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForClusterInfrastructureReady' },
      v1beta1: { type: 'AssociateBMH', status: 'False', reason: 'WaitingForClusterInfrastructure' },
    },
  },
  {
    name: 'Cluster missing: waits for it by name',
    state: S.WaitingForClusterInfrastructure,
    given: machine().withoutCluster(),
    expect: { waitingFor: /^Cluster c1$/u },
  },
  {
    name: 'v1beta1 Cluster with InfrastructureReady True counts as provisioned',
    state: S.WaitingForBootstrapData,
    given: machine()
      .clusterInfrastructure(true, 'v1beta1')
      .machine({ spec: { bootstrap: {} } }),
    expect: { waitingFor: /spec.bootstrap.dataSecretName/u },
  },
  {
    name: 'Metal3Cluster missing: waits, WaitingforMetal3Cluster',
    state: S.WaitingForMetal3Cluster,
    given: machine().withoutMetal3Cluster(),
    expect: { waitingFor: /Metal3Cluster c1/u, condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingforMetal3Cluster' } },
  },
  {
    name: 'Cluster paused: Paused True, resync 30 s, nothing asked of an unassociated machine',
    state: S.Paused,
    given: machine().clusterSpec({ paused: true }).host('host-a'),
    expect: { waitingFor: /unpaused/u, resyncAfterSeconds: 30, children: [], condition: { type: 'Paused', status: 'True', reason: 'Paused' } },
  },
  {
    name: 'paused annotation on an associated machine: the host is paused with its status (less hardware) saved',
    state: S.Paused,
    given: machine()
      .annotate('cluster.x-k8s.io/paused', '')
      .associated('host-a')
      .host('host-a', {
        consumer: 'me',
        state: 'provisioned',
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
        annotations: { a: 'b' },
        hardware: { hostname: 'node-a' },
      }),
    expect: {
      children: ['w-1-pause-1'],
      operations: {
        name: 'w-1-pause-1',
        ops: [
          { op: 'test', path: '/metadata/resourceVersion', value: '100' },
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'add', path: '/metadata/annotations/baremetalhost.metal3.io~1paused', value: 'metal3.io/capm3' },
          {
            op: 'add',
            path: '/metadata/annotations/baremetalhost.metal3.io~1status',
            value:
              '{"errorMessage":"","lastUpdated":"2026-11-29T10:00:00Z","operationalStatus":"OK","poweredOn":false,"provisioning":{"ID":"host-uid-host-a","state":"provisioned"}}',
          },
        ],
      },
    },
  },
  {
    name: 'paused, host already paused: nothing more is asked',
    state: S.Paused,
    given: machine()
      .clusterSpec({ paused: true })
      .associated('host-a')
      .host('host-a', { consumer: 'me', annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }),
    expect: { children: [] },
  },
  {
    name: 'no bootstrap data yet: waits, WaitingForBootstrapData',
    state: S.WaitingForBootstrapData,
    given: machine()
      .machine({ spec: { bootstrap: { configRef: { name: 'w-1-config' } } } })
      .machine({ spec: { bootstrap: {} } }),
    expect: {
      waitingFor: /Machine w-1-m has no spec.bootstrap.dataSecretName/u,
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForBootstrapData' },
      v1beta1: { type: 'AssociateBMH', status: 'False', reason: 'WaitingForBootstrapReady' },
    },
  },
  {
    name: 'bootstrap configRef whose Machine is not BootstrapReady: waits naming the config, even with dataSecretName (upstream)',
    state: S.WaitingForBootstrapData,
    given: machine().machine({
      spec: { bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'w-1-config' }, dataSecretName: 'w-1-config' } },
      status: { deprecated: { v1beta1: { conditions: [{ type: 'BootstrapReady', status: 'False' }] } } },
    }),
    expect: {
      waitingFor: /Machine w-1-m is not BootstrapReady yet \(bootstrap config KubeadmConfig w-1-config\)/u,
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForBootstrapData' },
    },
  },
  {
    name: 'bootstrap configRef with BootstrapReady True and no dataSecretName: user data is the Secret named after the config',
    state: S.Associating,
    given: machine().machine({
      spec: { bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'w-1-config' } } },
      status: { deprecated: { v1beta1: { conditions: [{ type: 'BootstrapReady', status: 'True' }] } } },
    }),
    expect: { status: { userData: { name: 'w-1-config', namespace: 'metal3' } } },
  },
  {
    name: 'bootstrap configRef ready by initialization.bootstrapDataSecretCreated: dataSecretName wins over the config name',
    state: S.Associating,
    given: machine().machine({
      spec: { bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'w-1-config' }, dataSecretName: 'w-1-data' } },
      status: { initialization: { bootstrapDataSecretCreated: true } },
    }),
    expect: { status: { userData: { name: 'w-1-data', namespace: 'metal3' } } },
  },
];
