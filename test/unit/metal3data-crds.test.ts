// The three CAPM3 data CRDs (manifests/crds/infrastructure.cluster.x-k8s.io_metal3data*.yaml),
// their Metacontroller objects, the examples under examples/capm3 and the hook outputs of the
// golden fixtures, checked against the OpenAPI schemas of both served versions (CEL is checked by
// the API server: test/e2e/metal3data.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRD_DIR, exampleObjects, ROOT, readManifests, schemaErrors, walkSchema, type Crd, type LoadedCrd, type SchemaNode } from '../support/crds.js';
import type { KObject } from '../../domain/k8s.js';

const KINDS = [
  // Upstream CAPM3 1.14 labels the template's CRD for clusterctl move: no Cluster owns a template.
  { kind: 'Metal3DataTemplate', plural: 'metal3datatemplates', short: 'm3dt', move: true },
  { kind: 'Metal3Data', plural: 'metal3datas', short: 'm3d', move: false },
  { kind: 'Metal3DataClaim', plural: 'metal3dataclaims', short: 'm3dc', move: false },
] as const;
const GROUP = 'infrastructure.cluster.x-k8s.io';

function crdOf(plural: string): Crd {
  const [crd] = readManifests(join(CRD_DIR, `${GROUP}_${plural}.yaml`)) as unknown as Crd[];
  return crd!;
}

function loaded(kind: string, version: string): LoadedCrd {
  const entry = KINDS.find((k) => k.kind === kind)!;
  const crd = crdOf(entry.plural);
  const v = crd.spec.versions.find((x) => x.name === version)!;
  return { file: `${entry.plural}#${version}`, crd, version: v, schema: v.schema.openAPIV3Schema };
}

/** Every schema path of a version, with the node's type (preserve-unknown nodes marked). */
function paths(schema: SchemaNode): Map<string, string> {
  const out = new Map<string, string>();
  walkSchema(schema, (node, path) => out.set(path, node['x-kubernetes-preserve-unknown-fields'] === true ? 'any' : (node.type ?? '')));
  return out;
}

function differences(kind: string): { onlyV1beta1: string[]; onlyV1beta2: string[] } {
  const v1 = paths(loaded(kind, 'v1beta1').schema);
  const v2 = paths(loaded(kind, 'v1beta2').schema);
  const onlyV1beta1 = [...v1]
    .filter(([p, t]) => v2.get(p) !== t)
    .map(([p]) => p)
    .sort();
  const onlyV1beta2 = [...v2]
    .filter(([p, t]) => v1.get(p) !== t)
    .map(([p]) => p)
    .sort();
  return { onlyV1beta1, onlyV1beta2 };
}

function structuralProblems(node: SchemaNode, path: string): string[] {
  const free = node['x-kubernetes-preserve-unknown-fields'] === true;
  const problems: string[] = [];
  if (free && !path.includes('.parameters')) problems.push(`${path}: preserves unknown fields`);
  if (!free && node.type === undefined) problems.push(`${path}: no type`);
  if (node.type === 'array' && node.items === undefined) problems.push(`${path}: array without items`);
  return problems;
}

describe('CRD identity', () => {
  it.each(KINDS)('$kind: names, Cluster API contract labels (and clusterctl move: $move), category, conversion webhook', ({ kind, plural, short, move }) => {
    const crd = crdOf(plural) as Crd & { metadata: { labels?: Record<string, string> }; spec: { conversion?: unknown } };
    const labels = { 'cluster.x-k8s.io/v1beta1': 'v1beta1', 'cluster.x-k8s.io/v1beta2': 'v1beta2', ...(move && { 'clusterctl.cluster.x-k8s.io/move': '' }) };
    expect(crd.metadata).toEqual({ name: `${plural}.${GROUP}`, labels });
    expect(crd.spec.group).toBe(GROUP);
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), categories: ['cluster-api'] });
    expect(crd.spec.names.shortNames?.[0]).toBe(short);
    expect(crd.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'ironhook-hooks', namespace: 'ironhook-system', path: '/convert', port: 8080 } },
        conversionReviewVersions: ['v1'],
      },
    });
  });

  it.each(KINDS)('$kind: v1beta2 is stored, v1beta1 served and deprecated, both with status and the same columns', ({ plural }) => {
    const versions = crdOf(plural).spec.versions as (Crd['spec']['versions'][number] & { deprecated?: boolean })[];
    expect(versions.map((v) => [v.name, v.served, v.storage, v.deprecated, v.subresources])).toEqual([
      ['v1beta2', true, true, undefined, { status: {} }],
      ['v1beta1', true, false, true, { status: {} }],
    ]);
    expect(versions[1]!.additionalPrinterColumns).toEqual(versions[0]!.additionalPrinterColumns);
  });

  it.each(KINDS.flatMap((k) => ['v1beta1', 'v1beta2'].map((v) => [k.kind, v] as const)))(
    '%s %s: structural, only bond parameter values are free JSON',
    (kind, version) => {
      const problems: string[] = [];
      walkSchema(loaded(kind, version).schema, (node, path) => problems.push(...structuralProblems(node, path)));
      expect(problems).toEqual([]);
    },
  );
});

describe('v1beta1 and v1beta2 differ exactly where upstream versions differ', () => {
  it('Metal3DataTemplate', () => {
    const pools = (suffix: string): string[] =>
      ['ipAddresses', 'prefixes', 'gateways', 'dnsServers'].flatMap((p) =>
        ['', '[]', '[].apiGroup', '[].key', '[].kind', '[].name'].map((tail) => `.spec.metaData.${p}${suffix}${tail}`),
      );
    const { onlyV1beta1, onlyV1beta2 } = differences('Metal3DataTemplate');
    expect(onlyV1beta1).toEqual(
      [
        ...pools('FromIPPool'),
        '.spec.networkData.links.bonds[].parameters',
        '.spec.networkData.links.bonds[].parameters{}',
        '.spec.templateReference',
        '.status.indexes',
        '.status.indexes{}',
      ].sort(),
    );
    expect(onlyV1beta2).toEqual(
      [
        ...pools('FromPool'),
        '.spec.metaData.fromHostInterfaces[].fromBootMAC',
        '.spec.networkData.links.bonds[].parameters',
        '.spec.networkData.links.bonds[].parameters[]',
        '.spec.networkData.links.bonds[].parameters[].name',
        '.spec.networkData.links.bonds[].parameters[].value',
        '.status.indexes',
        '.status.indexes[]',
        '.status.indexes[].index',
        '.status.indexes[].name',
      ].sort(),
    );
  });

  it('Metal3Data: ObjectReference → Metal3ObjectRef, templateReference dropped', () => {
    const refExtras = (at: string): string[] => ['apiVersion', 'fieldPath', 'kind', 'resourceVersion', 'uid'].map((f) => `${at}.${f}`);
    expect(differences('Metal3Data')).toEqual({
      onlyV1beta1: [...refExtras('.spec.claim'), ...refExtras('.spec.template'), '.spec.templateReference'].sort(),
      onlyV1beta2: [],
    });
  });

  it('Metal3DataClaim: ObjectReference → Metal3ObjectRef', () => {
    const refExtras = (at: string): string[] => ['apiVersion', 'fieldPath', 'kind', 'resourceVersion', 'uid'].map((f) => `${at}.${f}`);
    expect(differences('Metal3DataClaim')).toEqual({
      onlyV1beta1: [...refExtras('.spec.template'), ...refExtras('.status.renderedData')].sort(),
      onlyV1beta2: [],
    });
  });

  it('v1beta1 requires clusterName; v1beta2 bounds mtu and offset like upstream', () => {
    const spec = (v: string): SchemaNode => loaded('Metal3DataTemplate', v).schema.properties!.spec!;
    expect(spec('v1beta1').required).toEqual(['clusterName']);
    expect(spec('v1beta2').required).toBeUndefined();
    const mtu = (v: string): SchemaNode => spec(v).properties!.networkData!.properties!.links!.properties!.ethernets!.items!.properties!.mtu!;
    expect([mtu('v1beta1').minimum, mtu('v1beta2').minimum, mtu('v1beta2').maximum, mtu('v1beta2').default]).toEqual([undefined, 1280, 9000, 1500]);
  });
});

/** Every object of examples/capm3 with a kind of these CRDs, with the schema of its version. */
function examples(): [string, LoadedCrd, KObject][] {
  return exampleObjects('capm3', (o) => o.apiVersion.startsWith(`${GROUP}/`) && KINDS.some((k) => k.kind === o.kind)).map(
    ({ file, object: o }): [string, LoadedCrd, KObject] => [`${file} ${o.kind}/${o.metadata.name ?? ''}`, loaded(o.kind, o.apiVersion.split('/')[1]!), o],
  );
}

describe('examples/capm3', () => {
  it('has the upstream worked example, the seed and the every-field template', () => {
    expect(examples().map(([name]) => name)).toEqual([
      'every-field.yaml Metal3DataTemplate/every-field',
      'seed-workers.yaml Metal3DataTemplate/workers',
      'upstream-worked-example.yaml Metal3DataTemplate/workers-tpl',
    ]);
  });

  it.each(examples())('%s validates against its version', (_name, crd, object) => {
    expect(schemaErrors(crd, object)).toEqual([]);
  });
});

function fixtureResponses(route: string): [string, { status?: unknown; children?: KObject[] }, KObject][] {
  const dir = join(ROOT, 'test', 'fixtures', route);
  return readdirSync(dir)
    .filter((s) => !s.endsWith('-customize'))
    .flatMap((scenario) => {
      const path = join(dir, scenario, 'response.json');
      try {
        const request = JSON.parse(readFileSync(join(dir, scenario, 'request.json'), 'utf8')) as { parent: KObject };
        return [[`${route}/${scenario}`, JSON.parse(readFileSync(path, 'utf8')) as { status?: unknown; children?: KObject[] }, request.parent]];
      } catch {
        return [];
      }
    });
}

describe('hook outputs fit the schemas', () => {
  it.each([...fixtureResponses('metal3datatemplate'), ...fixtureResponses('metal3data')])('%s: status and Metal3Data children', (_name, response, parent) => {
    const withStatus = { ...parent, status: { ...(response.status as object), observedGeneration: 1 } };
    expect(schemaErrors(loaded(parent.kind, 'v1beta2'), withStatus)).toEqual([]);
    for (const child of (response.children ?? []).filter((c) => c.kind === 'Metal3Data')) {
      expect(schemaErrors(loaded('Metal3Data', 'v1beta2'), { ...child, metadata: { ...child.metadata, namespace: 'metal3' } })).toEqual([]);
    }
  });
});

interface Controller {
  metadata: { name: string };
  spec: {
    generateSelector?: boolean;
    parentResource: { apiVersion: string; resource: string };
    childResources: { apiVersion: string; resource: string; updateStrategy?: { method?: string } }[];
    hooks: Record<string, { version?: string; webhook?: { url?: string } }>;
  };
}

describe('manifests/controllers/metal3data.yaml', () => {
  const controllers = readManifests(join(ROOT, 'manifests', 'controllers', 'metal3data.yaml')) as unknown as Controller[];

  it.each<[string, string, string[]]>([
    ['ironhook-metal3datatemplate', 'metal3datatemplates', [`${GROUP}/v1beta2 metal3datas OnDelete`]],
    [
      'ironhook-metal3data',
      'metal3datas',
      ['v1 secrets OnDelete', 'ipam.metal3.io/v1alpha1 ipclaims OnDelete', 'ipam.cluster.x-k8s.io/v1beta2 ipaddressclaims OnDelete'],
    ],
    ['ironhook-metal3dataclaim', 'metal3dataclaims', []],
  ])('%s: parent %s, children, v2 hooks on /hooks/<kind>/…', (name, resource, children) => {
    const c = controllers.find((x) => x.metadata.name === name)!;
    expect(c.spec.generateSelector).toBe(true);
    expect(c.spec.parentResource).toMatchObject({ apiVersion: `${GROUP}/v1beta2`, resource });
    expect(c.spec.childResources.map((r) => `${r.apiVersion} ${r.resource} ${r.updateStrategy?.method ?? ''}`)).toEqual(children);
    const route = resource.replace(/s$/u, '');
    expect(Object.entries(c.spec.hooks).map(([hook, h]) => [hook, h.version, h.webhook?.url])).toEqual(
      ['sync', 'finalize', 'customize'].map((hook) => [hook, 'v2', `http://127.0.0.1:8080/hooks/${route}/${hook}`]),
    );
  });
});
