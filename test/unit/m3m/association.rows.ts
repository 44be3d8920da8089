// Rows for Associating: choosing and claiming a host, the claim's outcomes, the self annotation.
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import type { Row } from './table.js';

const mine = { consumer: 'me', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } };
const IMAGE = {
  url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256',
  checksumType: 'sha256',
  format: 'qcow2',
};

export const associationRows: Row[] = [
  {
    name: 'the host annotation names another namespace: permanent AssociateBareMetalHostFailed, the same-named host here is not touched',
    state: S.Associating,
    given: machine().annotate('metal3.io/BareMetalHost', 'kube-system/host-a').host('host-a', mine),
    expect: {
      failureMessage:
        /the metal3\.io\/BareMetalHost annotation names a BareMetalHost in namespace kube-system, not the machine's namespace metal3: cross-namespace references are not allowed/u,
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'AssociateBareMetalHostFailed' },
      children: [],
    },
  },
  {
    name: 'associated through a claim that took the node-reuse label: reason AssociateBareMetalHostViaNodeReuseSuccess',
    state: S.SettingHostSpec,
    given: machine()
      .associated('host-a')
      .patch('claim', 1, { operations: [{ op: 'remove', path: '/metadata/labels/infrastructure.cluster.x-k8s.io~1node-reuse' }] })
      .host('host-a', mine),
    expect: { condition: { type: 'AssociateBareMetalHost', status: 'True', reason: 'AssociateBareMetalHostViaNodeReuseSuccess' } },
  },
  {
    name: 'associated through a plain claim: reason AssociateBareMetalHostSuccess',
    state: S.SettingHostSpec,
    given: machine().associated('host-a').patch('claim', 1).host('host-a', mine),
    expect: { condition: { type: 'AssociateBareMetalHost', status: 'True', reason: 'AssociateBareMetalHostSuccess' } },
  },
  {
    name: 'one available host: claim patch guarded by the observed resourceVersion',
    state: S.Associating,
    given: machine().host('host-a', { resourceVersion: '4711', labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'md-workers' } }),
    expect: {
      waitingFor: /the driver pool to claim BareMetalHost host-a/u,
      children: ['w-1-claim-1'],
      child: {
        name: 'w-1-claim-1',
        spec: { target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: 'metal3', name: 'host-a' } },
        annotations: { 'ironhook.dev/base-resource-version': '4711' },
      },
      operations: {
        name: 'w-1-claim-1',
        ops: [
          { op: 'test', path: '/metadata/resourceVersion', value: '4711' },
          {
            op: 'add',
            path: '/spec/consumerRef',
            value: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', namespace: 'metal3' },
          },
          { op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' },
          { op: 'remove', path: '/metadata/labels/infrastructure.cluster.x-k8s.io~1node-reuse' },
          // clusterctl move waits while an associated host that is not paused carries it.
          { op: 'add', path: '/metadata/annotations', value: { 'clusterctl.cluster.x-k8s.io/block-move': '' } },
          // No dataTemplate: the host spec is in the same guarded patch, as upstream's Associate.
          { op: 'add', path: '/spec/image', value: IMAGE },
          { op: 'add', path: '/spec/online', value: true },
          { op: 'add', path: '/spec/userData', value: { name: 'w-1-bootstrap', namespace: 'metal3' } },
        ],
      },
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForBareMetalHostClaim' },
      status: { userData: { name: 'w-1-bootstrap', namespace: 'metal3' } },
    },
  },
  {
    name: 'host without labels: the claim creates the label map',
    state: S.Associating,
    given: machine().host('host-a'),
    expect: {
      child: {
        name: 'w-1-claim-1',
        spec: {
          operations: [
            { op: 'test' },
            { op: 'add' },
            { op: 'add', path: '/metadata/labels', value: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
            { op: 'add', path: '/metadata/annotations', value: { 'clusterctl.cluster.x-k8s.io/block-move': '' } },
            { path: '/spec/image' },
            { path: '/spec/online' },
            { path: '/spec/userData' },
          ],
        },
      },
    },
  },
  {
    name: 'no dataTemplate, metaData and networkData Secrets in the spec, cleaning mode: all in the claim',
    state: S.Associating,
    given: machine()
      .spec({ metaData: { name: 'md' }, networkData: { name: 'nd', namespace: 'metal3' }, automatedCleaningMode: 'disabled' })
      .host('host-a', { labels: { a: 'b' } }),
    expect: {
      operations: {
        name: 'w-1-claim-1',
        ops: [
          { op: 'test', path: '/metadata/resourceVersion', value: '100' },
          {
            op: 'add',
            path: '/spec/consumerRef',
            value: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', namespace: 'metal3' },
          },
          { op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' },
          { op: 'add', path: '/metadata/annotations', value: { 'clusterctl.cluster.x-k8s.io/block-move': '' } },
          { op: 'add', path: '/spec/automatedCleaningMode', value: 'disabled' },
          { op: 'add', path: '/spec/image', value: IMAGE },
          { op: 'add', path: '/spec/metaData', value: { name: 'md' } },
          { op: 'add', path: '/spec/networkData', value: { name: 'nd', namespace: 'metal3' } },
          { op: 'add', path: '/spec/online', value: true },
          { op: 'add', path: '/spec/userData', value: { name: 'w-1-bootstrap', namespace: 'metal3' } },
        ],
      },
    },
  },
  {
    name: 'a dataTemplate: the claim carries no host spec (written once the Metal3Data is ready)',
    state: S.Associating,
    given: machine()
      .spec({ dataTemplate: { name: 'workers-dt' } })
      .host('host-a', { labels: { a: 'b' } }),
    expect: {
      operations: {
        name: 'w-1-claim-1',
        ops: [
          { op: 'test', path: '/metadata/resourceVersion', value: '100' },
          {
            op: 'add',
            path: '/spec/consumerRef',
            value: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', namespace: 'metal3' },
          },
          { op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' },
          { op: 'add', path: '/metadata/annotations', value: { 'clusterctl.cluster.x-k8s.io/block-move': '' } },
        ],
      },
    },
  },
  {
    name: 'a metaData Secret in another namespace: the claim carries no host spec (WaitingForData refuses the reference)',
    state: S.Associating,
    given: machine()
      .spec({ metaData: { name: 'md', namespace: 'kube-system' } })
      .host('host-a', { labels: { a: 'b' } }),
    expect: {
      child: { name: 'w-1-claim-1', spec: { operations: [{ op: 'test' }, { op: 'add' }, { op: 'add' }, { op: 'add', path: '/metadata/annotations' }] } },
    },
  },
  {
    name: 'a host that already has an image: the claim only turns it on (the provisioning fields are never overwritten)',
    state: S.Associating,
    given: machine().host('host-a', { labels: { a: 'b' }, spec: { image: { url: 'http://127.0.0.1:8081/other.qcow2' } } }),
    expect: {
      child: {
        name: 'w-1-claim-1',
        spec: {
          operations: [
            { op: 'test' },
            { op: 'add' },
            { op: 'add' },
            { op: 'add', path: '/metadata/annotations' },
            { op: 'add', path: '/spec/online', value: true },
          ],
        },
      },
    },
  },
  {
    name: 'no available host: transient AssociateBareMetalHostFailed, resync 30 s',
    state: S.Associating,
    given: machine().host('host-a', { state: 'inspecting' }).host('host-b', { consumer: 'w-2' }),
    expect: {
      waitingFor: /no available BareMetalHost in namespace metal3/u,
      resyncAfterSeconds: 30,
      children: [],
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'AssociateBareMetalHostFailed' },
      v1beta1: { type: 'AssociateBMH', status: 'False', reason: 'AssociateBMHFailed', severity: 'Warning' },
    },
  },
  {
    name: 'claim running: waits and keeps it, asks nothing new',
    state: S.Associating,
    given: machine().host('host-a').patch('claim', 1, { phase: 'Running' }),
    expect: { waitingFor: /claim BareMetalHost host-a/u, children: ['w-1-claim-1'], status: { ironhook: { host: 'host-a', sequence: 1 } } },
  },
  {
    name: 'claim applied: the machine annotation and the BMC Secret label are asked for',
    state: S.Associating,
    given: machine()
      .host('host-a', { ...mine, resourceVersion: '101' })
      .patch('claim', 1, { baseVersion: '100' }),
    expect: {
      waitingFor: /metal3.io\/BareMetalHost annotation naming BareMetalHost host-a/u,
      children: ['w-1-associate-2', 'w-1-claim-1', 'w-1-credentials-label-3'],
      operations: {
        name: 'w-1-associate-2',
        ops: [
          { op: 'test', path: '/metadata/uid', value: '7a1b0000-0000-4000-8000-00000000a001' },
          { op: 'add', path: '/metadata/annotations/metal3.io~1BareMetalHost', value: 'metal3/host-a' },
        ],
      },
      child: {
        name: 'w-1-credentials-label-3',
        spec: {
          target: { apiVersion: 'v1', kind: 'Secret', name: 'host-a-bmc-secret' },
          operations: [{ op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' }],
        },
      },
    },
  },
  {
    name: 'claim lost (TestFailed), the host now consumed by another machine: the next host is claimed with the next sequence',
    state: S.Associating,
    given: machine()
      .host('host-a', { consumer: 'w-2', resourceVersion: '101' })
      .host('host-b', { resourceVersion: '200' })
      .patch('claim', 1, { phase: 'Failed', reason: 'TestFailed', baseVersion: '100' }),
    expect: { children: ['w-1-claim-2'], child: { name: 'w-1-claim-2', spec: { target: { name: 'host-b' } } } },
  },
  {
    name: 'claim lost but the cache still shows the host as it was: waits for the change instead of retrying',
    state: S.Associating,
    given: machine().host('host-a', { resourceVersion: '100' }).patch('claim', 1, { phase: 'Failed', reason: 'TestFailed', baseVersion: '100' }),
    expect: { waitingFor: /new state of BareMetalHost host-a/u, children: ['w-1-claim-1'] },
  },
  {
    name: 'host already consumed by this machine but no annotation (status lost): annotation asked, no claim',
    state: S.Associating,
    given: machine().host('host-a', mine),
    expect: { children: ['w-1-associate-1', 'w-1-credentials-label-2'] },
  },
  {
    name: 'annotated host missing: waits for it (no new choice)',
    state: S.Associating,
    given: machine().associated('host-x').host('host-a'),
    expect: { waitingFor: /BareMetalHost host-x \(named by the metal3.io\/BareMetalHost annotation\)/u, children: [] },
  },
  {
    name: 'annotated host consumed by another machine: permanent failure',
    state: S.Associating,
    given: machine().associated('host-a').host('host-a', { consumer: 'w-9' }),
    expect: {
      failureMessage: /BareMetalHost host-a is consumed by Metal3Machine w-9/u,
      condition: { type: 'AssociateBareMetalHost', status: 'False', reason: 'AssociateBareMetalHostFailed' },
      v1beta1: { type: 'AssociateBMH', status: 'False', severity: 'Error' },
      status: { deprecated: { v1beta1: { failureReason: 'CreateError' } } },
    },
  },
  {
    name: 'annotated host whose consumerRef is gone: claimed again',
    state: S.Associating,
    given: machine().associated('host-a').host('host-a', { resourceVersion: '300' }).patch('credentials-label', 2, { target: 'host-a-bmc-secret' }),
    expect: { children: ['w-1-claim-3', 'w-1-credentials-label-2'], waitingFor: /claim BareMetalHost host-a again/u },
  },
  {
    name: 'hostSelector with DoesNotExist: permanent failure naming the operator',
    state: S.Associating,
    given: machine()
      .spec({ hostSelector: { matchExpressions: [{ key: 'rack', operator: 'DoesNotExist' }] } })
      .host('host-a'),
    expect: { failureMessage: /operator "DoesNotExist" on rack is not supported/u, children: [] },
  },
  {
    name: 'node-reuse host still deprovisioning: transient wait naming it',
    state: S.Associating,
    given: machine()
      .host('host-a', { state: 'deprovisioning', labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'md-workers' } })
      .host('host-b'),
    expect: { waitingFor: /node-reuse=md-workers are not available yet: host-a \(deprovisioning\)/u, resyncAfterSeconds: 30 },
  },
];
