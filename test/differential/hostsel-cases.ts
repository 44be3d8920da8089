// Random worlds for the host-selection sweep: a Metal3Machine (hostSelector, its own
// failureDomain), its owner Machine (control plane, MachineDeployment or neither, failure domain),
// the MachineSets upstream reads, and BareMetalHosts of every state, consumer, label and
// annotation that chooseHost looks at, some of them in another namespace.
import fc from 'fast-check';

import type { KObject, OwnerReference } from '../../domain/k8s.js';

export const NS = 'metal3';
export const M3M_NAME = 'w-1';
export const FD_LABEL = 'infrastructure.cluster.x-k8s.io/failure-domain';
export const REUSE_LABEL = 'infrastructure.cluster.x-k8s.io/node-reuse';
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const T0 = '2026-11-29T10:00:00Z';
const T1 = '2026-11-29T10:05:00Z';

export interface HostselCase {
  readonly clusterName: string;
  readonly metal3Machine: KObject;
  readonly machine: KObject;
  readonly machineSets: readonly KObject[];
  readonly hosts: readonly KObject[];
}

/** Label keys hosts carry and selectors ask for, each with the values hosts may have. */
const HOST_LABELS: Readonly<Record<string, readonly string[]>> = {
  role: ['worker', 'cp', ''],
  rack: ['r1', 'r2', 'r3'],
  cores: ['8', '16', '32', '007', '9223372036854775807', '9223372036854775808', '9007199254740993', '1-2'],
  gpu: ['', 'a100'],
  'example.com/tier': ['gold', 'silver'],
};
const KEYS = Object.keys(HOST_LABELS);
const BAD_KEYS = ['bad key', 'a/b/c', '-lead', 'x'.repeat(64), 'Example.com/x', '/x', ''];
const BAD_VALUES = ['bad value', 'y'.repeat(64), '-x', 'x.'];
const NUMBERS = ['16', '0', '007', '9223372036854775806', '9007199254740992', '16', '0', '-5', '+5', '9223372036854775808', '1e3'];
const OPERATORS = ['In', 'in', 'NotIn', 'notin', 'Exists', 'exists', '!', 'Gt', 'gt', 'Lt', 'lt', '=', '==', '!='];
const ODD_OPERATORS = ['IN', 'DoesNotExist', '\u0130n', 'NOTIN', 'bogus', ''];
const operator = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...OPERATORS) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_OPERATORS) });
const STATES = [
  '',
  'unmanaged',
  'registering',
  'match profile',
  'preparing',
  'ready',
  'available',
  'provisioning',
  'provisioned',
  'externally provisioned',
  'deprovisioning',
  'inspecting',
  'powering off before delete',
  'deleting',
  'Available',
  'unknown',
];
const REUSE_VALUES = ['cp-kcp', 'md-workers', 'md-other', 'cp-other', ''];
const DOMAINS = ['fd1', 'fd2', 'fd3'];

/** `value` with weight `some` against undefined with weight `none`. */
function sometimes<T>(value: fc.Arbitrary<T>, some: number, none: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: some, arbitrary: value }, { weight: none, arbitrary: fc.constant(undefined) });
}

const key = fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_KEYS) });

function valuesFor(k: string): fc.Arbitrary<string> {
  const known = HOST_LABELS[k] ?? ['v'];
  return fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_VALUES) });
}

const matchLabels = fc.uniqueArray(key, { maxLength: 1 }).chain((keys) => fc.tuple(...keys.map((k) => valuesFor(k).map((v) => [k, v] as const))));

/** CRD: values are a set of non-empty strings. */
function expressionValues(k: string): fc.Arbitrary<readonly string[]> {
  const known = (HOST_LABELS[k] ?? []).filter((v) => v !== '');
  const odd = [...NUMBERS, ...BAD_VALUES];
  const value =
    known.length === 0
      ? fc.constantFrom(...odd)
      : fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.constantFrom(...odd) });
  return fc.uniqueArray(value, { maxLength: 3 });
}

/** Mostly the value count the operator needs, sometimes any count. */
function fittingValues(k: string, operator: string): fc.Arbitrary<readonly string[]> {
  const op = operator.toLowerCase();
  const any = expressionValues(k);
  if (op === 'exists' || op === '!' || op === 'doesnotexist') return fc.oneof({ weight: 12, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: any });
  if (op === 'gt' || op === 'lt') return fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...NUMBERS).map((n) => [n]) }, { weight: 1, arbitrary: any });
  if (op === '=' || op === '==' || op === '!=')
    return fc.oneof(
      {
        weight: 12,
        arbitrary: valuesFor(k)
          .filter((v) => v !== '')
          .map((v) => [v]),
      },
      { weight: 1, arbitrary: any },
    );
  return fc.oneof({ weight: 12, arbitrary: any.filter((v) => v.length > 0) }, { weight: 1, arbitrary: any });
}

/** CRD: matchExpressions is a list map keyed by `key`. */
const matchExpressions = fc
  .uniqueArray(key, { maxLength: 2 })
  .chain((keys) => fc.tuple(...keys.map((k) => operator.chain((op) => fittingValues(k, op).map((values) => ({ key: k, operator: op, values }))))));

const hostSelector: fc.Arbitrary<Record<string, unknown> | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant({}) },
  {
    weight: 6,
    arbitrary: fc.record({ labels: matchLabels, expressions: matchExpressions }).map(({ labels, expressions }) => ({
      ...(labels.length > 0 && { matchLabels: Object.fromEntries(labels) }),
      ...(expressions.length > 0 && { matchExpressions: expressions }),
    })),
  },
);

const failureDomain = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: fc.constantFrom(...DOMAINS) },
  { weight: 1, arbitrary: fc.constantFrom('bad value', 'z'.repeat(64)) },
);

/** Who the Machine belongs to, and what Cluster API would have written on it for that. */
interface Ownership {
  labels: Record<string, string>;
  ownerReferences: OwnerReference[];
  machineSets: KObject[];
}

const KCP: OwnerReference = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', name: 'kcp', uid: 'kcp-uid', controller: true };
const OTHER_OWNER: OwnerReference = { apiVersion: 'example.com/v1', kind: 'Thing', name: 'thing', uid: 'thing-uid' };
const BAD_OWNER: OwnerReference = { apiVersion: 'a/b/c', kind: 'Thing', name: 'bad', uid: 'bad-uid' };

function machineSet(name: string, uid: string, deployment: string | undefined): KObject {
  const owners: OwnerReference[] =
    deployment === undefined ? [] : [{ apiVersion: CAPI, kind: 'MachineDeployment', name: deployment, uid: `${deployment}-uid`, controller: true }];
  return { apiVersion: CAPI, kind: 'MachineSet', metadata: { name, namespace: NS, uid, ownerReferences: owners }, spec: { clusterName: 'c' } };
}

/**
 * Consistent worlds only: the deployment-name label is on the Machine exactly when its MachineSet
 * has a MachineDeployment owner, and names it (as Cluster API keeps it). Worlds where the two
 * disagree are the documented deviation "MachineDeployment name from the Machine's label".
 */
const ownership: fc.Arbitrary<Ownership> = fc.oneof(
  fc.constantFrom<Ownership>(
    { labels: { 'cluster.x-k8s.io/control-plane': '', 'cluster.x-k8s.io/control-plane-name': 'kcp' }, ownerReferences: [KCP], machineSets: [] },
    { labels: { 'cluster.x-k8s.io/control-plane': '' }, ownerReferences: [OTHER_OWNER, KCP], machineSets: [] },
    { labels: { 'cluster.x-k8s.io/control-plane': '' }, ownerReferences: [BAD_OWNER, KCP], machineSets: [] },
    { labels: { 'cluster.x-k8s.io/control-plane': '' }, ownerReferences: [], machineSets: [] },
    { labels: { 'cluster.x-k8s.io/control-plane-name': 'kcp' }, ownerReferences: [KCP], machineSets: [] },
    { labels: {}, ownerReferences: [], machineSets: [] },
    { labels: {}, ownerReferences: [OTHER_OWNER], machineSets: [] },
  ),
  fc
    .record({ deployment: fc.option(fc.constantFrom('workers', 'other'), { nil: undefined }), decoy: fc.boolean() })
    .map(({ deployment, decoy }): Ownership => ({
      labels: deployment === undefined ? {} : { 'cluster.x-k8s.io/deployment-name': deployment },
      ownerReferences: [{ apiVersion: CAPI, kind: 'MachineSet', name: 'ms-1', uid: 'ms-1-uid', controller: true }],
      machineSets: [machineSet('ms-1', 'ms-1-uid', deployment), ...(decoy ? [machineSet('ms-0', 'ms-0-uid', 'decoy')] : [])],
    })),
);

const consumerRef = sometimes(
  fc.constantFrom<Record<string, string>>(
    {},
    { apiVersion: INFRA, kind: 'Metal3Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: `${INFRA}/x`, kind: 'Metal3Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: INFRA, kind: 'Metal3Machine', name: M3M_NAME, namespace: '' },
    { apiVersion: INFRA, kind: 'Metal3Machine', name: M3M_NAME, namespace: 'other' },
    { apiVersion: INFRA, kind: 'Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: 'example.com/v1', kind: 'Metal3Machine', name: M3M_NAME, namespace: NS },
    { apiVersion: INFRA, kind: 'Metal3Machine', name: 'w-2', namespace: NS },
  ),
  1,
  3,
);

const hostLabels = fc
  .record({
    plain: fc.tuple(...KEYS.map((k) => sometimes(fc.constantFrom(...(HOST_LABELS[k] ?? [])), 2, 1).map((v) => [k, v] as const))),
    domain: sometimes(fc.constantFrom(...DOMAINS), 1, 1),
    reuse: sometimes(fc.constantFrom(...REUSE_VALUES), 1, 3),
    cluster: sometimes(fc.constantFrom('c1', 'other'), 1, 2),
  })
  .map(({ plain, domain, reuse, cluster }) => ({
    ...Object.fromEntries(plain.filter((entry): entry is readonly [string, string] => entry[1] !== undefined)),
    ...(domain !== undefined && { [FD_LABEL]: domain }),
    ...(reuse !== undefined && { [REUSE_LABEL]: reuse }),
    ...(cluster !== undefined && { [CLUSTER_LABEL]: cluster }),
  }));

const hostAnnotations = fc
  .uniqueArray(
    fc.constantFrom(
      ['baremetalhost.metal3.io/paused', ''],
      ['baremetalhost.metal3.io/paused', 'metal3.io/capm3'],
      ['capi.metal3.io/unhealthy', ''],
      ['capm3.metal3.io/unhealthy', 'capm3/UnhealthyNode'],
      ['baremetalhost.metal3.io/detached', ''],
      ['example.com/note', 'x'],
    ),
    { maxLength: 2, selector: ([k]) => k },
  )
  .chain((entries) => fc.constantFrom(entries, [], [], []))
  .map((entries) => Object.fromEntries(entries));

interface HostFields {
  namespace: string;
  state: string;
  online: boolean;
  poweredOn: boolean;
  /** errorType, errorMessage */
  error: readonly [string, string];
  operationalStatus: string;
  consumerRef: Record<string, string> | undefined;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  image: boolean;
  externallyProvisioned: boolean;
}

const hostFields: fc.Arbitrary<HostFields> = fc.record({
  namespace: fc.constantFrom(NS, NS, NS, NS, NS, NS, NS, NS, 'other'),
  state: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('available', 'ready') }, { weight: 4, arbitrary: fc.constantFrom(...STATES) }),
  online: fc.boolean(),
  poweredOn: fc.boolean(),
  error: fc.oneof(
    { weight: 6, arbitrary: fc.constant(['', '']) },
    { weight: 1, arbitrary: fc.constantFrom(['registration error', 'BMC unreachable'], ['', 'stale message'], ['provisioning error', '']) },
  ),
  operationalStatus: fc.constantFrom('OK', 'discovered', 'error', 'detached'),
  consumerRef,
  labels: hostLabels,
  annotations: hostAnnotations,
  image: fc.boolean(),
  externallyProvisioned: fc.boolean(),
});

/** Half the hosts are free to take as far as state, consumer, error and annotations go. */
const someHostFields = fc.oneof(
  hostFields,
  hostFields.map((f): HostFields => ({ ...f, state: f.state === 'ready' ? 'ready' : 'available', consumerRef: undefined, error: ['', ''], annotations: {} })),
);

function host(name: string, f: HostFields, deleting: boolean): KObject {
  const metadata: KObject['metadata'] = { name, namespace: f.namespace, uid: `uid-${name}`, resourceVersion: '100', creationTimestamp: T0 };
  if (Object.keys(f.labels).length > 0) metadata.labels = f.labels;
  if (Object.keys(f.annotations).length > 0) metadata.annotations = f.annotations;
  // The API server keeps an object with a deletionTimestamp only while finalizers hold it.
  if (deleting) Object.assign(metadata, { deletionTimestamp: T1, finalizers: ['baremetalhost.metal3.io'] });
  const [errorType, errorMessage] = f.error;
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata,
    spec: {
      online: f.online,
      bmc: { address: 'ipmi://127.0.0.1:6230', credentialsName: `${name}-bmc` },
      ...(f.consumerRef !== undefined && { consumerRef: f.consumerRef }),
      ...(f.image && { image: { url: 'http://127.0.0.1/i.qcow2', checksum: 'abc' } }),
      ...(f.externallyProvisioned && { externallyProvisioned: true }),
    },
    status: {
      operationalStatus: f.operationalStatus,
      errorType,
      errorMessage,
      poweredOn: f.poweredOn,
      provisioning: { state: f.state, ID: `uid-${name}` },
    },
  };
}

const hosts = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom('h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9', 'h10', 'h11'),
    fields: someHostFields,
    deleting: fc.nat(11).map((n) => n === 0),
  }),
  { minLength: 1, maxLength: 9, selector: (h) => h.name },
);

function metal3Machine(clusterName: string, uid: string, selector: Record<string, unknown> | undefined, domain: string | undefined): KObject {
  return {
    apiVersion: INFRA,
    kind: 'Metal3Machine',
    metadata: {
      name: M3M_NAME,
      namespace: NS,
      uid,
      generation: 1,
      resourceVersion: '500',
      creationTimestamp: T0,
      labels: { [CLUSTER_LABEL]: clusterName },
      ownerReferences: [{ apiVersion: CAPI, kind: 'Machine', name: `${M3M_NAME}-m`, uid: 'machine-uid', controller: true }],
      finalizers: ['metacontroller.io/compositecontroller-ironhook-metal3machine'],
    },
    spec: {
      image: { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'abc', checksumType: 'sha256', diskFormat: 'qcow2' },
      ...(selector !== undefined && { hostSelector: selector }),
      ...(domain !== undefined && { failureDomain: domain }),
    },
  };
}

function machine(clusterName: string, owner: Ownership, domain: string | undefined): KObject {
  return {
    apiVersion: CAPI,
    kind: 'Machine',
    metadata: {
      name: `${M3M_NAME}-m`,
      namespace: NS,
      uid: 'machine-uid',
      creationTimestamp: T0,
      labels: { [CLUSTER_LABEL]: clusterName, ...owner.labels },
      ownerReferences: owner.ownerReferences,
    },
    spec: {
      clusterName,
      bootstrap: { dataSecretName: `${M3M_NAME}-bootstrap` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: M3M_NAME },
      ...(domain !== undefined && { failureDomain: domain }),
    },
  };
}

export const hostselCase: fc.Arbitrary<HostselCase> = fc
  .record({
    clusterName: fc.constantFrom('c1', 'prod-east', 'x'),
    uid: fc.uuid(),
    selector: hostSelector,
    m3mDomain: sometimes(fc.constantFrom(...DOMAINS), 1, 2),
    machineDomain: failureDomain,
    owner: ownership,
    hosts,
  })
  .map((w) => ({
    clusterName: w.clusterName,
    metal3Machine: metal3Machine(w.clusterName, w.uid, w.selector, w.m3mDomain),
    machine: machine(w.clusterName, w.owner, w.machineDomain),
    machineSets: w.owner.machineSets,
    hosts: w.hosts.map((h) => host(h.name, h.fields, h.deleting)),
  }));
