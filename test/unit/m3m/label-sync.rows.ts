// Rows for the BareMetalHost → Node label sync of a ready machine (metal3.io/metal3-label-sync-prefixes).
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import { BLOCK_MOVE, type Row } from './table.js';

const PREFIXES = 'metal3.io/metal3-label-sync-prefixes';
const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2' };
const hostLabels = { 'cluster.x-k8s.io/cluster-name': 'c1', 'rack.example.com/row': 'r7', 'zone.example.com/name': 'z1', 'other.io/x': 'y', plain: 'p' };
const host = (labels: Record<string, string> = hostLabels, annotations?: Record<string, string>) =>
  machine()
    .spec({ providerID: 'metal3://metal3/host-a/w-1' })
    .associated('host-a')
    .host('host-a', {
      consumer: 'me',
      state: 'provisioned',
      labels,
      annotations: { ...BLOCK_MOVE, ...annotations },
      spec: { online: true, image: IMAGE, userData: { name: 'w-1-bootstrap', namespace: 'metal3' } },
    })
    .patch('credentials-label', 1, { target: 'host-a-bmc-secret' })
    .nodeOperation(2, { phase: 'Succeeded' });
const withNode = () => host().machine({ status: { nodeRef: { name: 'node-a' } } });
const SPEC = {
  cluster: { name: 'c1' },
  action: 'SyncLabels',
  node: { name: 'node-a' },
  syncLabels: { prefixes: ['rack.example.com', 'zone.example.com'], labels: { 'rack.example.com/row': 'r7', 'zone.example.com/name': 'z1' } },
};

export const labelSyncRows: Row[] = [
  {
    name: 'label sync: no prefix annotation on the Metal3Cluster: nothing is synced',
    state: S.Ready,
    given: withNode(),
    expect: { children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'] },
  },
  {
    name: 'label sync: prefixes set, the host labels under them go to the Machine nodeRef Node (prefixes trimmed, sorted, duplicates dropped)',
    state: S.Ready,
    given: withNode().metal3ClusterAnnotate(PREFIXES, ' zone.example.com, ,rack.example.com,zone.example.com'),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-label-sync-3', 'w-1-node-provider-id-2'],
      child: { name: 'w-1-label-sync-3', spec: SPEC },
      condition: { type: 'Ready', status: 'True', message: /label sync of Node node-a requested/u },
    },
  },
  {
    name: 'label sync: the same labels already synced: no new request, the Ready message tells the outcome',
    state: S.Ready,
    given: withNode().metal3ClusterAnnotate(PREFIXES, 'rack.example.com,zone.example.com').nodeRequest('label-sync', 3, SPEC, { message: 'synced 2 labels' }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-label-sync-3', 'w-1-node-provider-id-2'],
      condition: { type: 'Ready', status: 'True', message: /label sync: Succeeded \(synced 2 labels\)/u },
    },
  },
  {
    name: 'label sync: a host label changed since the last sync: the next request replaces the old one',
    state: S.Ready,
    given: withNode()
      .metal3ClusterAnnotate(PREFIXES, 'rack.example.com,zone.example.com')
      .nodeRequest('label-sync', 3, { ...SPEC, syncLabels: { ...SPEC.syncLabels, labels: { 'rack.example.com/row': 'r6' } } }),
    expect: { children: ['w-1-credentials-label-1', 'w-1-label-sync-4', 'w-1-node-provider-id-2'], child: { name: 'w-1-label-sync-4', spec: SPEC } },
  },
  {
    name: 'label sync: a change while the previous sync runs waits for it to finish',
    state: S.Ready,
    given: withNode()
      .metal3ClusterAnnotate(PREFIXES, 'rack.example.com,zone.example.com')
      .nodeRequest('label-sync', 3, { ...SPEC, syncLabels: { ...SPEC.syncLabels, labels: {} } }, { phase: 'Pending' }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-label-sync-3', 'w-1-node-provider-id-2'],
      condition: { type: 'Ready', status: 'True', message: /w-1-label-sync-3 is running/u },
    },
  },
  {
    name: 'label sync: every host label under the prefixes removed: the request carries none, so the Node loses them',
    state: S.Ready,
    given: host({ 'cluster.x-k8s.io/cluster-name': 'c1' })
      .machine({ status: { nodeRef: { name: 'node-a' } } })
      .metal3ClusterAnnotate(PREFIXES, 'rack.example.com'),
    expect: { child: { name: 'w-1-label-sync-3', spec: { syncLabels: { prefixes: ['rack.example.com'], labels: {} } } } },
  },
  {
    name: 'label sync: no nodeRef on the Machine yet: waits for it, the Ready message says so',
    state: S.Ready,
    given: host().metal3ClusterAnnotate(PREFIXES, 'rack.example.com'),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'],
      condition: { type: 'Ready', status: 'True', message: /label sync waits for the Machine's status.nodeRef/u },
    },
  },
  {
    name: 'label sync: an invalid prefix syncs nothing and is named',
    state: S.Ready,
    given: withNode().metal3ClusterAnnotate(PREFIXES, 'rack.example.com,Not_A_Domain'),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'],
      condition: { type: 'Ready', status: 'True', message: /prefix "Not_A_Domain" is not a DNS-1123 subdomain/u },
    },
  },
  {
    name: 'label sync: a paused Metal3Cluster syncs nothing',
    state: S.Ready,
    given: withNode().metal3ClusterAnnotate(PREFIXES, 'rack.example.com').metal3ClusterAnnotate('cluster.x-k8s.io/paused', ''),
    expect: { children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2'], condition: { type: 'Ready', status: 'True', message: /label sync is paused/u } },
  },
  {
    name: 'label sync: a deleting machine drops its label-sync request',
    state: S.Deprovisioning,
    given: withNode().metal3ClusterAnnotate(PREFIXES, 'rack.example.com').nodeRequest('label-sync', 3, SPEC).deleting(),
    expect: { children: ['w-1-credentials-label-1', 'w-1-deprovision-4'] },
  },
];
