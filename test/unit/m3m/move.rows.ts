// Rows for clusterctl move: the block-move annotation on an associated host, the pause that waits for
// a stable provisioning state, the unpause that puts block-move back, the release that removes it,
// and stale views of the host that must never write an older picture.
import { MachineState as S } from '../../../hooks/metal3machine/names.js';
import { machine } from '../../support/machine-builder.js';
import { BLOCK_MOVE, type Row } from './table.js';

const labels = { 'cluster.x-k8s.io/cluster-name': 'c1' };
const mine = { consumer: 'me', labels, annotations: BLOCK_MOVE };
const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2' };
const provisioned = { ...mine, state: 'provisioned', spec: { online: true, image: IMAGE, userData: { name: 'w-1-bootstrap', namespace: 'metal3' } } };
const associated = () => machine().associated('host-a').patch('credentials-label', 1, { target: 'host-a-bmc-secret' });
const ready = () => associated().spec({ providerID: 'metal3://metal3/host-a/w-1' }).nodeOperation(2, { phase: 'Succeeded' });
const paused = () => associated().clusterSpec({ paused: true });

const BLOCK_MOVE_PATH = '/metadata/annotations/clusterctl.cluster.x-k8s.io~1block-move';
const PAUSED_PATH = '/metadata/annotations/baremetalhost.metal3.io~1paused';
const STATUS_PATH = '/metadata/annotations/baremetalhost.metal3.io~1status';
const stillMine = [
  { op: 'test', path: '/spec/consumerRef/kind', value: 'Metal3Machine' },
  { op: 'test', path: '/spec/consumerRef/name', value: 'w-1' },
];
const version = (value: string) => ({ op: 'test', path: '/metadata/resourceVersion', value });

/** The status annotation the pause writes for a host of the builder in `state` (keys sorted, no hardware). */
function savedStatus(state: string): string {
  return JSON.stringify({
    errorMessage: '',
    lastUpdated: '2026-11-29T10:00:00Z',
    operationalStatus: 'OK',
    poweredOn: false,
    provisioning: { ID: 'host-uid-host-a', state },
  });
}

/** States with an operation under way (or not started): the host keeps block-move and runs on. */
const TRANSIENT = ['', 'registering', 'match profile', 'inspecting', 'preparing', 'provisioning', 'deprovisioning', 'powering off before delete', 'deleting'];
/** States with no operation under way: the host is paused at once. */
const STABLE = ['unmanaged', 'available', 'ready', 'provisioned', 'externally provisioned'];

const transientRows: Row[] = TRANSIENT.map((state) => ({
  name: `Cluster paused, host in state "${state}": not paused yet, block-move kept, the machine says it waits for a stable state`,
  state: S.Paused,
  given: paused().host('host-a', { ...mine, state }),
  expect: {
    children: ['w-1-credentials-label-1'],
    waitingFor: new RegExp(`BareMetalHost host-a to leave state "${state || 'none'}" before it is paused too`, 'u'),
    resyncAfterSeconds: 30,
    condition: { type: 'Paused', status: 'True', reason: 'WaitingForBareMetalHostPause', message: /clusterctl\.cluster\.x-k8s\.io\/block-move/u },
  },
}));

const stableRows: Row[] = STABLE.map((state) => ({
  name: `Cluster paused, host in state "${state}": paused with its status and block-move removed, in one resourceVersion-guarded patch`,
  state: S.Paused,
  given: paused().host('host-a', { ...mine, state, resourceVersion: '310' }),
  expect: {
    children: ['w-1-credentials-label-1', 'w-1-pause-2'],
    operations: {
      name: 'w-1-pause-2',
      ops: [
        version('310'),
        ...stillMine,
        { op: 'add', path: PAUSED_PATH, value: 'metal3.io/capm3' },
        { op: 'add', path: STATUS_PATH, value: savedStatus(state) },
        { op: 'remove', path: BLOCK_MOVE_PATH },
      ],
    },
    condition: { type: 'Paused', status: 'True', reason: 'Paused' },
  },
}));

export const moveRows: Row[] = [
  {
    name: 'association: the claim sets block-move in its resourceVersion-guarded patch, next to the annotations the host has',
    state: S.Associating,
    given: machine()
      .spec({ dataTemplate: { name: 'workers-dt' } })
      .host('host-a', { resourceVersion: '4711', labels: { a: 'b' }, annotations: { a: 'b' } }),
    expect: {
      operations: {
        name: 'w-1-claim-1',
        ops: [
          version('4711'),
          {
            op: 'add',
            path: '/spec/consumerRef',
            value: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', namespace: 'metal3' },
          },
          { op: 'add', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name', value: 'c1' },
          { op: 'add', path: BLOCK_MOVE_PATH, value: '' },
        ],
      },
    },
  },
  {
    name: 'kept while not paused: an associated host without block-move (claimed before it existed, or removed by hand) gets it back, guarded by the resourceVersion',
    state: S.Ready,
    given: ready().host('host-a', { ...provisioned, annotations: { a: 'b' }, resourceVersion: '120' }),
    expect: {
      children: ['w-1-block-move-3', 'w-1-credentials-label-1', 'w-1-node-provider-id-2'],
      operations: { name: 'w-1-block-move-3', ops: [version('120'), ...stillMine, { op: 'add', path: BLOCK_MOVE_PATH, value: '' }] },
    },
  },
  {
    name: 'block-move asked but its test failed, the cache now shows a newer host: asked again at that version',
    state: S.Ready,
    given: ready()
      .host('host-a', { ...provisioned, annotations: {}, resourceVersion: '130' })
      .patch('block-move', 3, { phase: 'Failed', reason: 'TestFailed', baseVersion: '120' }),
    expect: {
      children: ['w-1-block-move-4', 'w-1-credentials-label-1', 'w-1-node-provider-id-2'],
      operations: { name: 'w-1-block-move-4', ops: [version('130'), ...stillMine, { op: 'add', path: BLOCK_MOVE_PATH, value: '' }] },
    },
  },
  ...transientRows,
  {
    name: 'Cluster paused, host provisioning without block-move: block-move asked, the host is not paused',
    state: S.Paused,
    given: paused().host('host-a', { ...mine, annotations: {}, state: 'provisioning', resourceVersion: '140' }),
    expect: {
      children: ['w-1-block-move-2', 'w-1-credentials-label-1'],
      operations: { name: 'w-1-block-move-2', ops: [version('140'), ...stillMine, { op: 'add', path: BLOCK_MOVE_PATH, value: '' }] },
      condition: { type: 'Paused', status: 'True', reason: 'WaitingForBareMetalHostPause' },
    },
  },
  {
    name: 'deleting while the Cluster is paused, host deprovisioning: not paused, block-move kept, waits',
    state: S.Paused,
    given: paused()
      .deleting()
      .host('host-a', { ...mine, state: 'deprovisioning' }),
    expect: { children: ['w-1-credentials-label-1'], finalized: false, waitingFor: /host-a to leave state "deprovisioning"/u },
  },
  ...stableRows,
  {
    name: 'Cluster paused, host paused by its owner (another value) with block-move: block-move removed, the pause left alone',
    state: S.Paused,
    given: paused().host('host-a', { ...provisioned, annotations: { ...BLOCK_MOVE, 'baremetalhost.metal3.io/paused': 'ops-team' }, resourceVersion: '150' }),
    expect: {
      children: ['w-1-block-move-2', 'w-1-credentials-label-1'],
      operations: { name: 'w-1-block-move-2', ops: [version('150'), ...stillMine, { op: 'remove', path: BLOCK_MOVE_PATH }] },
      condition: { type: 'Paused', status: 'True', reason: 'Paused' },
    },
  },
  {
    name: 'Cluster unpaused: the provider pause lifted and block-move set again, in one patch',
    state: S.Ready,
    given: ready().host('host-a', { ...provisioned, annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-node-provider-id-2', 'w-1-unpause-3'],
      operations: {
        name: 'w-1-unpause-3',
        ops: [
          ...stillMine,
          { op: 'test', path: PAUSED_PATH, value: 'metal3.io/capm3' },
          { op: 'remove', path: PAUSED_PATH },
          { op: 'add', path: BLOCK_MOVE_PATH, value: '' },
        ],
      },
      condition: { type: 'Paused', status: 'False', reason: 'NotPaused' },
    },
  },
  {
    name: 'released: the release patch removes block-move with the consumerRef',
    state: S.Releasing,
    given: associated()
      .deleting()
      .host('host-a', { ...mine, state: 'available', spec: { online: false } })
      .patch('deprovision', 2),
    expect: {
      operations: {
        name: 'w-1-release-3',
        ops: [
          ...stillMine,
          { op: 'remove', path: '/spec/consumerRef' },
          { op: 'remove', path: '/metadata/labels/cluster.x-k8s.io~1cluster-name' },
          { op: 'remove', path: BLOCK_MOVE_PATH },
        ],
      },
    },
  },
  {
    name: 'stale host (older than the applied pause saw) shows it unpaused: a new pause can only apply to that old version',
    state: S.Paused,
    given: paused()
      .host('host-a', { ...mine, state: 'provisioned', resourceVersion: '150' })
      .patch('pause', 2, { baseVersion: '200' }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-pause-3'],
      operations: {
        name: 'w-1-pause-3',
        ops: [
          version('150'),
          ...stillMine,
          { op: 'add', path: PAUSED_PATH, value: 'metal3.io/capm3' },
          { op: 'add', path: STATUS_PATH, value: savedStatus('provisioned') },
          { op: 'remove', path: BLOCK_MOVE_PATH },
        ],
      },
    },
  },
  {
    name: 'pause test failed (the host changed first), the cache now shows the newer host: the pause is decided again on it',
    state: S.Paused,
    given: paused()
      .host('host-a', { ...mine, state: 'provisioned', resourceVersion: '210' })
      .patch('pause', 2, { phase: 'Failed', reason: 'TestFailed', baseVersion: '200' }),
    expect: {
      children: ['w-1-credentials-label-1', 'w-1-pause-3'],
      child: { name: 'w-1-pause-3', spec: { operations: [version('210'), {}, {}, {}, {}, {}] } },
    },
  },
];
