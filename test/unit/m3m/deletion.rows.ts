// Rows for deletion: deprovision, wait, release (with node reuse), finalized.
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import type { Row } from './table.js';

const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'abc', format: 'qcow2' };
const labels = { 'cluster.x-k8s.io/cluster-name': 'c1' };
const provisioned = {
  consumer: 'me',
  labels,
  state: 'provisioned',
  spec: { online: true, image: IMAGE, userData: { name: 'w-1-bootstrap', namespace: 'metal3' }, metaData: { name: 'w-1-metadata', namespace: 'metal3' } },
};
const cleaned = { consumer: 'me', labels, state: 'available', spec: { online: false } };
const gone = () =>
  machine().deleting().associated('host-a').spec({ providerID: 'metal3://metal3/host-a/w-1' }).patch('credentials-label', 1, { target: 'host-a-bmc-secret' });

export const deletionRows: Row[] = [
  {
    name: 'provisioned host: deprovision patch clears image and data and powers off; the data claim is dropped',
    state: S.Deprovisioning,
    given: gone()
      .spec({ dataTemplate: { name: 'workers-dt' } })
      .claimChild()
      .host('host-a', provisioned)
      .nodeOperation(2, { phase: 'Succeeded' }),
    expect: {
      finalized: false,
      children: ['w-1-credentials-label-1', 'w-1-deprovision-3'],
      operations: {
        name: 'w-1-deprovision-3',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'remove', path: '/spec/image' },
          { op: 'remove', path: '/spec/userData' },
          { op: 'remove', path: '/spec/metaData' },
          { op: 'add', path: '/spec/online', value: false },
        ],
      },
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'Deleting' },
      v1beta1: { type: 'KubernetesNodeReady', status: 'False', reason: 'Deleting' },
    },
  },
  {
    name: 'host with disablePowerOff: deprovisioning leaves it on',
    state: S.Deprovisioning,
    given: gone().host('host-a', { ...provisioned, spec: { ...provisioned.spec, disablePowerOff: true } }),
    expect: { child: { name: 'w-1-deprovision-2', spec: { operations: [{}, {}, { op: 'remove', path: '/spec/image' }, { op: 'remove' }, { op: 'remove' }] } } },
  },
  {
    name: 'deleted while provisioning: the deprovision patch cancels it',
    state: S.Deprovisioning,
    given: gone()
      .host('host-a', { ...provisioned, state: 'provisioning' })
      .patch('host-spec', 2, { baseVersion: '90' }),
    expect: { children: ['w-1-credentials-label-1', 'w-1-deprovision-3', 'w-1-host-spec-2'] },
  },
  {
    name: 'deleted while the host spec patch is still pending: waits for it before deprovisioning',
    state: S.Deprovisioning,
    given: gone().host('host-a', provisioned).patch('host-spec', 2, { phase: 'Pending' }),
    expect: {
      waitingFor: /request w-1-host-spec-2 on BareMetalHost host-a to finish before deprovisioning/u,
      children: ['w-1-credentials-label-1', 'w-1-host-spec-2'],
      finalized: false,
    },
  },
  {
    name: 'deleted while the claim is running: waits for it (the host may become ours)',
    state: S.Deprovisioning,
    given: machine().deleting().host('host-a').patch('claim', 1, { phase: 'Running' }),
    expect: { waitingFor: /w-1-claim-1/u, finalized: false },
  },
  {
    name: 'deprovision patch running: waits',
    state: S.Deprovisioning,
    given: gone().host('host-a', provisioned).patch('deprovision', 2, { phase: 'Running' }),
    expect: { waitingFor: /deprovision BareMetalHost host-a/u, children: ['w-1-credentials-label-1', 'w-1-deprovision-2'] },
  },
  {
    name: 'host deprovisioning: waits for it to finish',
    state: S.WaitingForDeprovision,
    given: gone()
      .host('host-a', { ...cleaned, state: 'deprovisioning' })
      .patch('deprovision', 2),
    expect: {
      waitingFor: /host-a to finish deprovisioning \(state: deprovisioning\)/u,
      finalized: false,
      condition: { type: 'Ready', status: 'False', reason: 'Deleting' },
    },
  },
  {
    name: 'externally provisioned host still on: waits for power off',
    state: S.WaitingForDeprovision,
    given: gone().host('host-a', { ...cleaned, state: 'externally provisioned', poweredOn: true }),
    expect: { waitingFor: /externally provisioned BareMetalHost host-a to power off/u },
  },
  {
    name: 'host available again: release patch with the node-reuse label (template nodeReuse) and the Secret label removed',
    state: S.Releasing,
    given: gone().templateSpec({ nodeReuse: true }).host('host-a', cleaned).patch('deprovision', 2),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-credentials-release-4', 'w-1-deprovision-2', 'w-1-release-3'],
      operations: {
        name: 'w-1-release-3',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'remove', path: '/spec/consumerRef' },
          { op: 'remove', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name' },
          { op: 'add', path: '/metadata/labels/infrastructure.cluster.x-k8s.io~1node-reuse', value: 'md-workers' },
        ],
      },
      child: {
        name: 'w-1-credentials-release-4',
        spec: { target: { kind: 'Secret', name: 'host-a-bmc-secret' }, operations: [{ op: 'test', value: 'c1' }, { op: 'remove' }] },
      },
    },
  },
  {
    name: 'control-plane machine: node-reuse label cp-<control plane>',
    state: S.Releasing,
    given: gone()
      .templateSpec({ nodeReuse: true })
      .machine({
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/control-plane': '', 'cluster.x-k8s.io/control-plane-name': 'kcp' },
        ownerReferences: [{ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', name: 'kcp', uid: 'k' }],
      })
      .host('host-a', cleaned),
    expect: { child: { name: 'w-1-release-2', spec: { operations: [{}, {}, {}, {}, { op: 'add', value: 'cp-kcp' }] } } },
  },
  {
    name: 'Cluster being deleted: no node-reuse label',
    state: S.Releasing,
    given: gone().templateSpec({ nodeReuse: true }).clusterDeleting().host('host-a', cleaned),
    expect: {
      operations: {
        name: 'w-1-release-2',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'remove', path: '/spec/consumerRef' },
          { op: 'remove', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name' },
        ],
      },
    },
  },
  {
    name: 'deleting, host still paused by the provider (Cluster no longer paused): unpause asked first, deprovisioning waits for it',
    state: S.Deprovisioning,
    given: gone().host('host-a', { ...provisioned, annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-deprovision-3', 'w-1-unpause-2'],
      operations: {
        name: 'w-1-unpause-2',
        ops: [
          { op: 'test', path: '/metadata/annotations/baremetalhost.metal3.io~1paused', value: 'metal3.io/capm3' },
          { op: 'remove', path: '/metadata/annotations/baremetalhost.metal3.io~1paused' },
        ],
      },
    },
  },
  {
    name: 'release running: waits',
    state: S.Releasing,
    given: gone().host('host-a', cleaned).patch('release', 3, { phase: 'Pending' }),
    expect: { waitingFor: /release BareMetalHost host-a/u, finalized: false },
  },
  {
    name: 'released, Secret label removal still running: waits for it',
    state: S.Finalized,
    given: gone().host('host-a', { state: 'available' }).patch('release', 3).patch('credentials-release', 4, { phase: 'Running', target: 'host-a-bmc-secret' }),
    expect: { waitingFor: /remove the cluster-name label from Secret host-a-bmc-secret/u, finalized: false },
  },
  {
    name: 'released: finalized, no children',
    state: S.Finalized,
    given: gone().host('host-a', { state: 'available' }).patch('release', 3).patch('credentials-release', 4, { target: 'host-a-bmc-secret' }),
    expect: { finalized: true, children: [] },
  },
  {
    name: 'never associated: finalized at once',
    state: S.Finalized,
    given: machine().deleting().host('host-a'),
    expect: { finalized: true, children: [] },
  },
  {
    name: 'host consumed by another machine: nothing to release, finalized',
    state: S.Finalized,
    given: machine().deleting().associated('host-a').host('host-a', { consumer: 'w-2' }),
    expect: { finalized: true },
  },
  {
    name: 'paused while deleting: nothing deprovisioned',
    state: S.Paused,
    given: gone()
      .clusterSpec({ paused: true })
      .host('host-a', { ...provisioned, annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }),
    expect: { finalized: false, children: ['w-1-credentials-label-1'], resyncAfterSeconds: 30 },
  },
  {
    name: 'node reuse without the cloned-from-name annotation: the template is the one the MachineSet names, the label its MachineDeployment',
    state: S.Releasing,
    given: gone()
      .notCloned()
      .machineSet('workers-md', 'workers-v2')
      .extraTemplate('workers-v2', { nodeReuse: true, template: { spec: {} } })
      .host('host-a', cleaned),
    expect: {
      operations: {
        name: 'w-1-release-2',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'remove', path: '/spec/consumerRef' },
          { op: 'remove', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name' },
          { op: 'add', path: '/metadata/labels/infrastructure.cluster.x-k8s.io~1node-reuse', value: 'md-workers-md' },
        ],
      },
    },
  },
  {
    name: "node reuse: the MachineSet's template wins over a cloned-from-name naming another one (upstream main)",
    state: S.Releasing,
    given: gone()
      .templateSpec({ nodeReuse: false })
      .machineSet('workers-md', 'workers-v2')
      .extraTemplate('workers-v2', { nodeReuse: true, template: { spec: {} } })
      .host('host-a', cleaned),
    expect: { child: { name: 'w-1-release-2', spec: { operations: [{}, {}, {}, {}, { op: 'add', value: 'md-workers-md' }] } } },
  },
  {
    name: 'node reuse: a MachineSet naming a template that is gone falls back to cloned-from-name',
    state: S.Releasing,
    given: gone().templateSpec({ nodeReuse: true }).machineSet('workers-md', 'deleted-tpl').host('host-a', cleaned),
    expect: { child: { name: 'w-1-release-2', spec: { operations: [{}, {}, {}, {}, { op: 'add', value: 'md-workers-md' }] } } },
  },
  {
    name: 'no template by either way: no node-reuse label',
    state: S.Releasing,
    given: gone().notCloned().host('host-a', cleaned),
    expect: { child: { name: 'w-1-release-2', spec: { operations: [{}, {}, {}, {}] } } },
  },
];
