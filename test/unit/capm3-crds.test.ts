// The six Cluster API provider CRDs (Metal3Cluster, Metal3Machine, Metal3Remediation and their
// templates): identity, both served versions, printer columns, defaults, where v1beta1 and
// v1beta2 differ, and the examples of examples/capm3 checked against the schema of their version
// (CEL runs in test/e2e/validation.test.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GO_DURATION } from '../../domain/capm3/duration.js';
import {
  CRD_DIR,
  EXAMPLES_DIR,
  exampleObjects,
  readManifests,
  regexesIn,
  schemaAt,
  schemaErrors,
  walkSchema,
  type Crd,
  type LoadedCrd,
  type SchemaNode,
} from '../support/crds.js';
import type { KObject } from '../../domain/k8s.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';

interface Kind {
  kind: string;
  plural: string;
  shortNames: string[];
  status: boolean;
}

const KINDS: Kind[] = [
  { kind: 'Metal3Cluster', plural: 'metal3clusters', shortNames: ['m3c', 'm3cluster', 'm3clusters', 'metal3c', 'metal3cluster'], status: true },
  { kind: 'Metal3ClusterTemplate', plural: 'metal3clustertemplates', shortNames: ['m3ct'], status: false },
  { kind: 'Metal3Machine', plural: 'metal3machines', shortNames: ['m3m', 'm3machine', 'm3machines', 'metal3m', 'metal3machine'], status: true },
  {
    kind: 'Metal3MachineTemplate',
    plural: 'metal3machinetemplates',
    shortNames: ['m3mt', 'm3machinetemplate', 'm3machinetemplates', 'metal3mt', 'metal3machinetemplate'],
    status: true,
  },
  { kind: 'Metal3Remediation', plural: 'metal3remediations', shortNames: ['m3r', 'm3remediation'], status: true },
  {
    kind: 'Metal3RemediationTemplate',
    plural: 'metal3remediationtemplates',
    shortNames: ['m3rt', 'm3remediationtemplate', 'm3remediationtemplates', 'metal3rt', 'metal3remediationtemplate'],
    status: true,
  },
];

type FullCrd = Crd & { metadata: { labels?: Record<string, string> }; spec: { conversion?: unknown } };

function crdOf(kind: string): FullCrd {
  const { plural } = KINDS.find((k) => k.kind === kind)!;
  return readManifests(join(CRD_DIR, `${GROUP}_${plural}.yaml`))[0] as unknown as FullCrd;
}

function loaded(kind: string, version: string): LoadedCrd {
  const crd = crdOf(kind);
  const v = crd.spec.versions.find((x) => x.name === version)!;
  return { file: `${kind}#${version}`, crd, version: v, schema: v.schema.openAPIV3Schema };
}

const schema = (kind: string, version: string, path: string): SchemaNode => schemaAt(loaded(kind, version).schema, path);

describe('CRD identity', () => {
  it.each(KINDS)('$kind: names, category, contract labels, conversion webhook', ({ kind, plural, shortNames }) => {
    const crd = crdOf(kind);
    expect(crd.metadata).toEqual({ name: `${plural}.${GROUP}`, labels: { 'cluster.x-k8s.io/v1beta1': 'v1beta1', 'cluster.x-k8s.io/v1beta2': 'v1beta2' } });
    expect(crd.spec).toMatchObject({ group: GROUP, scope: 'Namespaced' });
    expect(crd.spec.names).toEqual({ kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames, categories: ['cluster-api'] });
    expect(crd.spec.conversion).toEqual(crdOf('Metal3Machine').spec.conversion);
    expect(crd.spec.conversion).toMatchObject({
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { name: 'ironhook-hooks', namespace: 'ironhook-system', path: '/convert' } }, conversionReviewVersions: ['v1'] },
    });
  });

  it.each(KINDS)('$kind: v1beta2 stored, v1beta1 served and deprecated, status subresource as upstream', ({ kind, status }) => {
    const subresources = status ? { status: {} } : undefined;
    expect(crdOf(kind).spec.versions.map((v): unknown[] => [v.name, v.served, v.storage, (v as { deprecated?: boolean }).deprecated, v.subresources])).toEqual([
      ['v1beta2', true, true, undefined, subresources],
      ['v1beta1', true, false, true, subresources],
    ]);
  });

  it.each(KINDS.flatMap((k) => ['v1beta1', 'v1beta2'].map((v) => [k.kind, v] as const)))('%s %s: structural, nothing preserved unknown', (kind, version) => {
    const problems: string[] = [];
    walkSchema(loaded(kind, version).schema, (node, path) => {
      if (node['x-kubernetes-preserve-unknown-fields'] === true) problems.push(`${path}: preserves unknown fields`);
      if (node.type === undefined) problems.push(`${path}: no type`);
      if (node.type === 'array' && node.items === undefined) problems.push(`${path}: array without items`);
    });
    expect(problems).toEqual([]);
  });
});

const col = (name: string, jsonPath: string) => [name, jsonPath];
const AGE = col('Age', '.metadata.creationTimestamp');
const CLUSTER = col('Cluster', '.metadata.labels.cluster\\.x-k8s\\.io/cluster-name');
const REMEDIATION = [
  col('Retry limit', '.spec.strategy.retryLimit'),
  col('Retry count', '.status.retryCount'),
  col('Last Remediated', '.status.lastRemediated'),
  col('Strategy', '.spec.strategy.type'),
  col('Phase', '.status.phase'),
];

const COLUMNS: [string, string, string[][]][] = [
  [
    'Metal3Cluster',
    'v1beta1',
    [AGE, col('Ready', '.status.ready'), col('Error', '.status.failureReason'), CLUSTER, col('Endpoint', '.spec.controlPlaneEndpoint')],
  ],
  [
    'Metal3Cluster',
    'v1beta2',
    [
      AGE,
      col('Provisioned', '.status.initialization.provisioned'),
      col('Error', '.status.deprecated.v1beta1.failureReason'),
      CLUSTER,
      col('Endpoint', '.spec.controlPlaneEndpoint'),
    ],
  ],
  ['Metal3Machine', 'v1beta1', [AGE, col('ProviderID', '.spec.providerID'), col('Ready', '.status.ready'), CLUSTER, col('Phase', '.status.phase')]],
  ['Metal3Machine', 'v1beta2', [AGE, col('ProviderID', '.spec.providerID'), col('Provisioned', '.status.initialization.provisioned'), CLUSTER]],
  ['Metal3MachineTemplate', 'v1beta1', [AGE]],
  ['Metal3MachineTemplate', 'v1beta2', [AGE]],
  ['Metal3Remediation', 'v1beta1', REMEDIATION],
  ['Metal3Remediation', 'v1beta2', REMEDIATION],
  ['Metal3ClusterTemplate', 'v1beta2', []],
  ['Metal3RemediationTemplate', 'v1beta2', []],
];

describe('printer columns (upstream kubebuilder printcolumns)', () => {
  it.each(COLUMNS)('%s %s', (kind, version, want) => {
    expect((loaded(kind, version).version.additionalPrinterColumns ?? []).map((c) => [c.name, c.jsonPath])).toEqual(want);
  });
});

describe('defaults', () => {
  it.each<[string, string, string, unknown]>([
    ['Metal3Cluster', 'v1beta2', 'spec.cloudProviderEnabled', false],
    ['Metal3Cluster', 'v1beta1', 'spec.cloudProviderEnabled', undefined],
    ['Metal3Cluster', 'v1beta1', 'spec.controlPlaneEndpoint.port', 6443],
    ['Metal3Cluster', 'v1beta2', 'spec.controlPlaneEndpoint.port', undefined],
    ['Metal3ClusterTemplate', 'v1beta2', 'spec.template.spec.cloudProviderEnabled', false],
    ['Metal3MachineTemplate', 'v1beta1', 'spec.nodeReuse', false],
    ['Metal3MachineTemplate', 'v1beta2', 'spec.nodeReuse', false],
    ['Metal3RemediationTemplate', 'v1beta1', 'spec.template.spec.strategy', {}],
    ['Metal3RemediationTemplate', 'v1beta1', 'spec.template.spec.strategy.type', 'Reboot'],
    ['Metal3RemediationTemplate', 'v1beta1', 'spec.template.spec.strategy.retryLimit', 1],
    ['Metal3RemediationTemplate', 'v1beta1', 'spec.template.spec.strategy.timeout', '600s'],
    ['Metal3RemediationTemplate', 'v1beta2', 'spec.template.spec.strategy.type', 'Reboot'],
    ['Metal3RemediationTemplate', 'v1beta2', 'spec.template.spec.strategy.retryLimit', 1],
    ['Metal3RemediationTemplate', 'v1beta2', 'spec.template.spec.strategy.timeoutSeconds', 600],
    ['Metal3Remediation', 'v1beta1', 'spec.strategy.timeout', undefined],
    ['Metal3Remediation', 'v1beta2', 'spec.strategy.type', undefined],
    ['Metal3Remediation', 'v1beta2', 'spec.strategy.timeoutSeconds', 600],
  ])('%s %s %s: %j', (kind, version, path, value) => {
    expect(schema(kind, version, path).default).toEqual(value);
  });

  it('the v1beta2 cloudProviderEnabled description says the default is a conscious choice', () => {
    expect(schema('Metal3Cluster', 'v1beta2', 'spec.cloudProviderEnabled').description).toContain('Defaults to false, the upstream v1beta2 default');
  });
});

/** Every schema path of a version with its type. */
function paths(kind: string, version: string): Map<string, string> {
  const out = new Map<string, string>();
  walkSchema(loaded(kind, version).schema, (node, path) => out.set(path, node.type ?? ''));
  return out;
}

function differences(kind: string): { onlyV1beta1: string[]; onlyV1beta2: string[] } {
  const v1 = paths(kind, 'v1beta1');
  const v2 = paths(kind, 'v1beta2');
  return {
    onlyV1beta1: [...v1]
      .filter(([p, t]) => v2.get(p) !== t)
      .map(([p]) => p)
      .sort(),
    onlyV1beta2: [...v2]
      .filter(([p, t]) => v1.get(p) !== t)
      .map(([p]) => p)
      .sort(),
  };
}

const REF_EXTRAS = (at: string): string[] => ['apiVersion', 'fieldPath', 'kind', 'resourceVersion', 'uid'].map((f) => `${at}.${f}`);
// status.conditions is a list of conditions in both versions (Cluster API v1beta1 conditions in
// v1beta1, metav1 conditions in v1beta2): only severity and observedGeneration tell them apart.
const V1_CONTRACT_STATUS = [
  '.status.conditions[].severity',
  '.status.failureMessage',
  '.status.failureReason',
  '.status.ready',
  '.status.v1beta2',
  ...['', '[]', '[].lastTransitionTime', '[].message', '[].observedGeneration', '[].reason', '[].status', '[].type'].map(
    (f) => `.status.v1beta2.conditions${f}`,
  ),
];
const V2_CONTRACT_STATUS = [
  '.status.conditions[].observedGeneration',
  '.status.deprecated',
  '.status.deprecated.v1beta1',
  '.status.initialization',
  '.status.initialization.provisioned',
  ...[
    '.conditions',
    '.conditions[]',
    '.failureMessage',
    '.failureReason',
    ...['lastTransitionTime', 'message', 'reason', 'severity', 'status', 'type'].map((f) => `.conditions[].${f}`),
  ].map((f) => `.status.deprecated.v1beta1${f}`),
];
const uniqueSorted = (list: string[]): string[] => [...new Set(list)].sort();

describe('v1beta1 and v1beta2 differ exactly where upstream versions differ', () => {
  it('Metal3Cluster: noCloudProvider, failureDomains map ↔ list, contract status', () => {
    const fdMap = (at: string): string[] => [at, `${at}{}`, `${at}{}.attributes`, `${at}{}.attributes{}`, `${at}{}.controlPlane`];
    const fdList = (at: string): string[] => [at, `${at}[]`, `${at}[].attributes`, `${at}[].attributes{}`, `${at}[].controlPlane`, `${at}[].name`];
    expect(differences('Metal3Cluster')).toEqual({
      onlyV1beta1: uniqueSorted(['.spec.noCloudProvider', ...fdMap('.spec.failureDomains'), ...fdMap('.status.failureDomains'), ...V1_CONTRACT_STATUS]),
      onlyV1beta2: uniqueSorted([...fdList('.spec.failureDomains'), ...fdList('.status.failureDomains'), ...V2_CONTRACT_STATUS]),
    });
  });

  it('Metal3Machine: format → diskFormat, ObjectReference → Metal3ObjectRef, phase dropped, contract status', () => {
    expect(differences('Metal3Machine')).toEqual({
      onlyV1beta1: uniqueSorted([
        '.spec.image.format',
        '.status.phase',
        ...REF_EXTRAS('.spec.dataTemplate'),
        ...REF_EXTRAS('.status.renderedData'),
        ...V1_CONTRACT_STATUS,
      ]),
      onlyV1beta2: uniqueSorted(['.spec.image.diskFormat', ...V2_CONTRACT_STATUS]),
    });
  });

  it('Metal3MachineTemplate: the machine differences under spec.template.spec, plus v1beta2 template metadata', () => {
    const at = '.spec.template.spec';
    expect(differences('Metal3MachineTemplate')).toEqual({
      onlyV1beta1: uniqueSorted([`${at}.image.format`, ...REF_EXTRAS(`${at}.dataTemplate`)]),
      onlyV1beta2: uniqueSorted([
        `${at}.image.diskFormat`,
        '.spec.template.metadata',
        '.spec.template.metadata.annotations',
        '.spec.template.metadata.annotations{}',
        '.spec.template.metadata.labels',
        '.spec.template.metadata.labels{}',
      ]),
    });
  });

  it('Metal3Remediation(Template): timeout ↔ timeoutSeconds', () => {
    expect(differences('Metal3Remediation')).toEqual({ onlyV1beta1: ['.spec.strategy.timeout'], onlyV1beta2: ['.spec.strategy.timeoutSeconds'] });
    expect(differences('Metal3RemediationTemplate')).toEqual({
      onlyV1beta1: ['.spec.template.spec.strategy.timeout'],
      onlyV1beta2: ['.spec.template.spec.strategy.timeoutSeconds'],
    });
  });

  it('v1beta2 enums and bounds follow upstream markers', () => {
    expect(schema('Metal3Remediation', 'v1beta2', 'spec.strategy.type').enum).toEqual(['Reboot']);
    expect(schema('Metal3Remediation', 'v1beta2', 'status.phase').enum).toEqual(['Running', 'Waiting', 'Deleting machine', 'Failed']);
    expect([
      schema('Metal3Remediation', 'v1beta2', 'spec.strategy.retryLimit').minimum,
      schema('Metal3Remediation', 'v1beta2', 'spec.strategy.timeoutSeconds').minimum,
    ]).toEqual([1, 100]);
    expect(schema('Metal3Cluster', 'v1beta2', 'spec.failureDomains')).toMatchObject({ minItems: 1, maxItems: 100, 'x-kubernetes-list-map-keys': ['name'] });
    expect(schema('Metal3Machine', 'v1beta2', 'spec.hostSelector.matchExpressions')).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key'],
    });
    expect(schema('Metal3Machine', 'v1beta2', 'status.initialization').minProperties).toBe(1);
  });
});

describe('CEL rules agree with the domain', () => {
  it('the v1beta1 timeout rules use the Go duration grammar the converter parses', () => {
    const rules = schema('Metal3Remediation', 'v1beta1', 'spec.strategy')['x-kubernetes-validations'] ?? [];
    const regexes = rules.flatMap((r) => regexesIn(r.rule));
    expect(regexes).toHaveLength(2);
    for (const regex of regexes) expect(regex).toBe(GO_DURATION.source);
  });

  it.each(['Metal3Machine#spec', 'Metal3MachineTemplate#spec.template.spec'])('%s carries the image rules of both versions', (where) => {
    const [kind, path] = where.split('#') as [string, string];
    const v1 = (schema(kind, 'v1beta1', path)['x-kubernetes-validations'] ?? []).map((r) => r.message);
    const v2 = (schema(kind, 'v1beta2', path)['x-kubernetes-validations'] ?? []).map((r) => r.message);
    expect(v1).toHaveLength(5);
    expect(v2).toEqual([...v1, 'either image or customDeploy is required']);
  });
});

/** Every object of examples/capm3 with a kind of these CRDs, with the schema of its version. */
function examples(): [string, LoadedCrd, KObject][] {
  return exampleObjects('capm3', (o) => KINDS.some((k) => k.kind === o.kind)).map(({ file, object: o }): [string, LoadedCrd, KObject] => [
    `${file} ${o.apiVersion.split('/')[1]!} ${o.kind}/${o.metadata.name ?? ''}`,
    loaded(o.kind, o.apiVersion.split('/')[1]!),
    o,
  ]);
}

describe('examples/capm3', () => {
  it('has the v1beta2 seed and upstream v1beta1 objects of every kind but the cluster template in v1beta2', () => {
    const seen = new Set(examples().map(([name]) => name.split(' ').slice(1, 3).join(' ').split('/')[0]));
    expect([...seen].sort()).toEqual(
      [
        'v1beta1 Metal3Cluster',
        'v1beta1 Metal3ClusterTemplate',
        'v1beta1 Metal3Machine',
        'v1beta1 Metal3MachineTemplate',
        'v1beta1 Metal3Remediation',
        'v1beta1 Metal3RemediationTemplate',
        'v1beta2 Metal3Cluster',
        'v1beta2 Metal3MachineTemplate',
        'v1beta2 Metal3RemediationTemplate',
      ].sort(),
    );
  });

  it.each(examples())('%s validates against its version', (_name, crd, object) => {
    expect(schemaErrors(crd, object)).toEqual([]);
  });

  it('the seed names no BMC and its workers use the `workers` Metal3DataTemplate of seed-workers.yaml', () => {
    const seed = readManifests(join(EXAMPLES_DIR, 'capm3', 'seed-cluster.yaml'));
    expect(JSON.stringify(seed)).not.toMatch(/ipmi:|redfish|bmc/iu);
    const template = seed.find((o) => o.kind === 'Metal3MachineTemplate') as unknown as {
      spec: { nodeReuse: boolean; template: { spec: { dataTemplate: { name: string }; hostSelector: object } } };
    };
    expect(template.spec.nodeReuse).toBe(true);
    expect(template.spec.template.spec.hostSelector).toBeDefined();
    const dataTemplates = readManifests(join(EXAMPLES_DIR, 'capm3', 'seed-workers.yaml')).filter((o) => o.kind === 'Metal3DataTemplate');
    expect(dataTemplates.map((o) => o.metadata.name)).toContain(template.spec.template.spec.dataTemplate.name);
  });
});
