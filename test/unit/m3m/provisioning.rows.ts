// Rows for data, host spec, provisioning, provider ID and ready.
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import { BLOCK_MOVE, type Row } from './table.js';

const mine = { consumer: 'me', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: BLOCK_MOVE };
const IMAGE = {
  url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256',
  checksumType: 'sha256',
  format: 'qcow2',
};
const provisioned = { ...mine, state: 'provisioned', spec: { online: true, image: IMAGE, userData: { name: 'w-1-bootstrap', namespace: 'metal3' } } };
const hardware = {
  hostname: 'node-a',
  nics: [
    { name: 'eno1', mac: '00:11:22:33:44:55', ip: '192.168.111.20' },
    { name: 'eno2', mac: '00:11:22:33:44:56' },
  ],
};
const withTemplate = () =>
  machine()
    .spec({ dataTemplate: { name: 'workers-dt' } })
    .associated('host-a')
    .host('host-a', mine)
    .patch('credentials-label', 1, { target: 'host-a-bmc-secret' });
const ready = () => machine().associated('host-a').host('host-a', provisioned).patch('credentials-label', 1, { target: 'host-a-bmc-secret' });

export const provisioningRows: Row[] = [
  {
    name: 'dataTemplate, no Metal3Data yet: the claim child is created and the machine waits',
    state: S.WaitingForData,
    given: withTemplate(),
    expect: {
      waitingFor: /a Metal3Data for Metal3DataClaim w-1/u,
      children: ['w-1', 'w-1-credentials-label-1'],
      child: { name: 'w-1', spec: { template: { name: 'workers-dt' } } },
      condition: { type: 'Metal3DataReady', status: 'False', reason: 'WaitingForMetal3Data' },
    },
  },
  {
    name: 'Metal3Data not ready with an error: the wait says why',
    state: S.WaitingForData,
    given: withTemplate().claimChild().data(false, { errorMessage: 'IP Allocation for provisioning failed : Exhausted IP Pools' }),
    expect: {
      waitingFor: /Metal3Data workers-dt-0 to be ready \(IP Allocation for provisioning failed : Exhausted IP Pools\)/u,
      children: ['w-1', 'w-1-credentials-label-1'],
    },
  },
  {
    name: 'dataTemplate in another namespace: permanent AssociateM3MetaDataFailed',
    state: S.WaitingForData,
    given: machine()
      .spec({ dataTemplate: { name: 'workers-dt', namespace: 'other' } })
      .associated('host-a')
      .host('host-a', mine),
    expect: {
      failureMessage: /differs from the machine's namespace/u,
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'AssociateM3MetaDataFailed' },
    },
  },
  {
    name: 'spec.metaData in another namespace: permanent AssociateM3MetaDataFailed, no host spec request',
    state: S.WaitingForData,
    given: machine()
      .spec({ metaData: { name: 'stolen', namespace: 'kube-system' } })
      .associated('host-a')
      .host('host-a', mine)
      .patch('credentials-label', 1, { target: 'host-a-bmc-secret' }),
    expect: {
      failureMessage: /spec\.metaData\.namespace kube-system differs from the machine's namespace metal3: cross-namespace references are not allowed/u,
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'AssociateM3MetaDataFailed' },
      children: ['w-1-credentials-label-1'],
    },
  },
  {
    name: 'spec.networkData in another namespace: permanent AssociateM3MetaDataFailed, no host spec request',
    state: S.WaitingForData,
    given: machine()
      .spec({ networkData: { name: 'stolen', namespace: 'kube-system' } })
      .associated('host-a')
      .host('host-a', mine)
      .patch('credentials-label', 1, { target: 'host-a-bmc-secret' }),
    expect: {
      failureMessage: /spec\.networkData\.namespace kube-system differs from the machine's namespace metal3: cross-namespace references are not allowed/u,
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'AssociateM3MetaDataFailed' },
      children: ['w-1-credentials-label-1'],
    },
  },
  {
    name: 'spec.userData in another namespace: permanent AssociateM3MetaDataFailed, no host spec request',
    state: S.WaitingForData,
    given: machine()
      .spec({ userData: { name: 'stolen', namespace: 'kube-system' } })
      .associated('host-a')
      .host('host-a', mine)
      .patch('credentials-label', 1, { target: 'host-a-bmc-secret' }),
    expect: {
      failureMessage: /spec\.userData\.namespace kube-system differs from the machine's namespace metal3: cross-namespace references are not allowed/u,
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'AssociateM3MetaDataFailed' },
      children: ['w-1-credentials-label-1'],
    },
  },
  {
    name: 'status.userData in another namespace: permanent AssociateM3MetaDataFailed, no host spec request',
    state: S.WaitingForData,
    given: machine()
      .status({ userData: { name: 'stolen', namespace: 'kube-system' } })
      .associated('host-a')
      .host('host-a', mine)
      .patch('credentials-label', 1, { target: 'host-a-bmc-secret' }),
    expect: {
      failureMessage: /status\.userData\.namespace kube-system differs from the machine's namespace metal3: cross-namespace references are not allowed/u,
      condition: { type: 'AssociateMetal3MachineMetaData', status: 'False', reason: 'AssociateM3MetaDataFailed' },
      children: ['w-1-credentials-label-1'],
    },
  },
  {
    name: 'Metal3Data ready: rendered Secrets recorded, the host spec asked for with them',
    state: S.SettingHostSpec,
    given: withTemplate().claimChild().data(true),
    expect: {
      status: {
        renderedData: { name: 'workers-dt-0', namespace: 'metal3' },
        metaData: { name: 'w-1-metadata', namespace: 'metal3' },
        networkData: { name: 'w-1-networkdata', namespace: 'metal3' },
      },
      condition: { type: 'Metal3DataReady', status: 'True', reason: 'Metal3DataSecretsReady' },
      child: {
        name: 'w-1-host-spec-2',
        spec: {
          operations: [
            { op: 'test' },
            { op: 'test' },
            { op: 'add', path: '/spec/image', value: IMAGE },
            { op: 'add', path: '/spec/metaData', value: { name: 'w-1-metadata', namespace: 'metal3' } },
            { op: 'add', path: '/spec/networkData', value: { name: 'w-1-networkdata', namespace: 'metal3' } },
            { op: 'add', path: '/spec/online', value: true },
            { op: 'add', path: '/spec/userData', value: { name: 'w-1-bootstrap', namespace: 'metal3' } },
          ],
        },
      },
    },
  },
  {
    name: 'no dataTemplate: SecretsSetExternally; image, userData, online, cleaning mode set on the host',
    state: S.SettingHostSpec,
    given: machine().spec({ automatedCleaningMode: 'disabled' }).associated('host-a').host('host-a', mine),
    expect: {
      waitingFor: /set automatedCleaningMode, image, online, userData on BareMetalHost host-a/u,
      condition: { type: 'Metal3DataReady', status: 'True', reason: 'SecretsSetExternally' },
      operations: {
        name: 'w-1-host-spec-2',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'add', path: '/spec/automatedCleaningMode', value: 'disabled' },
          { op: 'add', path: '/spec/image', value: IMAGE },
          { op: 'add', path: '/spec/online', value: true },
          { op: 'add', path: '/spec/userData', value: { name: 'w-1-bootstrap', namespace: 'metal3' } },
        ],
      },
    },
  },
  {
    name: 'customDeploy instead of an image',
    state: S.SettingHostSpec,
    given: machine()
      .spec({ image: {}, customDeploy: { method: 'install_coreos' } })
      .associated('host-a')
      .host('host-a', mine),
    expect: {
      operations: {
        name: 'w-1-host-spec-2',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'add', path: '/spec/customDeploy', value: { method: 'install_coreos' } },
          { op: 'add', path: '/spec/online', value: true },
          { op: 'add', path: '/spec/userData', value: { name: 'w-1-bootstrap', namespace: 'metal3' } },
        ],
      },
    },
  },
  {
    name: 'host spec patch running: waits, nothing new',
    state: S.SettingHostSpec,
    given: ready().host('host-a', mine).patch('host-spec', 2, { phase: 'Running' }),
    expect: { children: ['w-1-credentials-label-1', 'w-1-host-spec-2'] },
  },
  {
    name: 'host spec applied, cache still shows the old host: waits instead of asking again',
    state: S.SettingHostSpec,
    given: ready()
      .host('host-a', { ...mine, resourceVersion: '100' })
      .patch('host-spec', 2, { baseVersion: '100' }),
    expect: { children: ['w-1-credentials-label-1', 'w-1-host-spec-2'] },
  },
  {
    name: 'host powered off by someone after the patch: online asked again with the next sequence',
    state: S.SettingHostSpec,
    given: ready()
      .host('host-a', { ...provisioned, spec: { ...provisioned.spec, online: false }, resourceVersion: '300' })
      .patch('host-spec', 2, { baseVersion: '100' }),
    expect: {
      operations: {
        name: 'w-1-host-spec-3',
        ops: [
          { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
          { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
          { op: 'add', path: '/spec/online', value: true },
        ],
      },
    },
  },
  {
    name: 'host spec rejected: permanent UpdateError with the pool message',
    state: S.SettingHostSpec,
    given: ready().host('host-a', mine).patch('host-spec', 2, { phase: 'Failed', reason: 'Rejected', message: 'spec.image.checksumType: Unsupported value' }),
    expect: { failureMessage: /Rejected.*Unsupported value/u, status: { deprecated: { v1beta1: { failureReason: 'UpdateError' } } } },
  },
  {
    name: 'host provisioning: waits with its state',
    state: S.Provisioning,
    given: ready().host('host-a', { ...provisioned, state: 'provisioning' }),
    expect: {
      waitingFor: /BareMetalHost host-a to be provisioned \(state: provisioning\)/u,
      condition: { type: 'Ready', status: 'False', reason: 'NotReady' },
      resyncAfterSeconds: null,
    },
  },
  {
    name: 'host provisioning failed: the wait carries the host error',
    state: S.Provisioning,
    given: ready().host('host-a', { ...provisioned, state: 'provisioning', errorMessage: 'image download failed' }),
    expect: { waitingFor: /error: image download failed/u },
  },
  {
    name: 'host provisioned: spec.providerID patched on the machine and SetProviderID asked for the Node',
    state: S.SettingProviderID,
    given: ready().host('host-a', { ...provisioned, hardware }),
    expect: {
      waitingFor: /spec.providerID metal3:\/\/metal3\/host-a\/w-1/u,
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2', 'w-1-provider-id-3'],
      operations: {
        name: 'w-1-provider-id-3',
        ops: [
          { op: 'test', path: '/metadata/uid', value: '7a1b0000-0000-4000-8000-00000000a001' },
          { op: 'add', path: '/spec/providerID', value: 'metal3://metal3/host-a/w-1' },
        ],
      },
      child: {
        name: 'w-1-node-provider-id-2',
        spec: {
          cluster: { name: 'c1' },
          action: 'SetProviderID',
          node: { uuid: 'host-uid-host-a', hostnames: ['node-a'] },
          providerID: 'metal3://metal3/host-a/w-1',
          acceptedProviderIDs: ['metal3://host-uid-host-a'],
        },
      },
    },
  },
  {
    name: 'cloud provider enabled: only the Node operation, the machine waits for the Node',
    state: S.SettingProviderID,
    given: ready().metal3ClusterSpec({ cloudProviderEnabled: true }),
    expect: {
      waitingFor: /workload cluster Node with providerID metal3:\/\/metal3\/host-a\/w-1 \(cloud provider enabled\)/u,
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'],
    },
  },
  {
    name: 'cloud provider enabled, Node found: its providerID is copied to the machine',
    state: S.SettingProviderID,
    given: ready()
      .metal3ClusterSpec({ cloudProviderEnabled: true })
      .nodeOperation(2, { phase: 'Succeeded', node: { name: 'node-a', providerID: 'metal3://metal3/host-a/w-1' } }),
    expect: {
      operations: {
        name: 'w-1-provider-id-3',
        ops: [
          { op: 'test', path: '/metadata/uid', value: '7a1b0000-0000-4000-8000-00000000a001' },
          { op: 'add', path: '/spec/providerID', value: 'metal3://metal3/host-a/w-1' },
        ],
      },
    },
  },
  {
    name: 'cloud provider enabled, Node operation failed: permanent',
    state: S.SettingProviderID,
    given: ready()
      .metal3ClusterSpec({ cloudProviderEnabled: true })
      .nodeOperation(2, { phase: 'Failed', message: 'two Nodes carry metal3.io/uuid=host-uid-host-a' }),
    expect: { failureMessage: /two Nodes carry/u },
  },
  {
    name: 'providerID set: ready, provisioned, addresses from the host hardware',
    state: S.Ready,
    given: ready()
      .spec({ providerID: 'metal3://metal3/host-a/w-1' })
      .host('host-a', { ...provisioned, hardware })
      .nodeOperation(2),
    expect: {
      waitingFor: null,
      status: {
        initialization: { provisioned: true },
        addresses: [
          { type: 'InternalIP', address: '192.168.111.20' },
          { type: 'Hostname', address: 'node-a' },
          { type: 'InternalDNS', address: 'node-a' },
        ],
      },
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'],
      condition: { type: 'Ready', status: 'True', reason: 'Ready' },
      v1beta1: { type: 'Ready', status: 'True' },
    },
  },
  {
    name: 'ready, but the Node operation failed: still ready, the Ready message says so',
    state: S.Ready,
    given: ready().spec({ providerID: 'metal3://metal3/host-a/w-1' }).nodeOperation(2, { phase: 'Failed', message: 'Node node-a has providerID aws:///x' }),
    expect: { condition: { type: 'Ready', status: 'True', message: /Node failed: Node node-a has providerID aws/u } },
  },
];
