// The clusterctl provider repository (scripts/clusterctl-repo.ts) as clusterctl's provider contract
// asks for it, rendered through the real helm binary: metadata mapping the chart's release series
// to contract v1beta2, components with one Namespace holding every namespaced object, the provider
// label on everything, no certificate or key baked in, and only the variables documented in
// docs/clusterctl.md. The real clusterctl reads the same files in test/e2e/clusterctl.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { PROVIDER_NAMES, PROVIDER_NAMESPACE, providerVersion, SKIP_CRD_NAME_CHECK, writeRepository } from '../../scripts/clusterctl-repo.js';
import { prepareChart } from '../support/helm.js';

interface KubeObject {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { image: string }[] } } };
}

/** Kinds the components hold that are not namespaced (everything else must be in the provider namespace). */
const CLUSTER_SCOPED = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'CompositeController',
  'CustomResourceDefinition',
  'DecoratorController',
  'Namespace',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:=[^}]*)?\}/gu;
const TEMPLATE_VARIABLES = [
  'CLUSTER_APIENDPOINT_HOST',
  'CLUSTER_APIENDPOINT_PORT',
  'CLUSTER_NAME',
  'CONTROL_PLANE_IP_END',
  'CONTROL_PLANE_IP_START',
  'CONTROL_PLANE_MACHINE_COUNT',
  'IMAGE_CHECKSUM',
  'IMAGE_CHECKSUM_TYPE',
  'IMAGE_FORMAT',
  'IMAGE_URL',
  'IP_GATEWAY',
  'IP_PREFIX',
  'KUBERNETES_VERSION',
  'NAMESPACE',
  'NODE_REUSE',
  'POD_CIDR',
  'SERVICE_CIDR',
  'WORKER_IP_END',
  'WORKER_IP_START',
  'WORKER_MACHINE_COUNT',
];

let dir = '';
const read = (provider: string, file: string): string => readFileSync(join(dir, `infrastructure-${provider}`, providerVersion(), file), 'utf8');
const objectsOf = (text: string): KubeObject[] => parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject);
const imagesOf = (objects: KubeObject[], kind: string): string[] =>
  objects.filter((obj) => obj.kind === kind).flatMap((obj) => obj.spec?.template?.spec?.containers?.map((container) => container.image) ?? []);
const parsedComponents = new Map<string, KubeObject[]>();
/** The provider's components, parsed once (the file is large; every test reads it). */
const componentsOf = (provider: string): KubeObject[] => {
  const parsed = parsedComponents.get(provider) ?? objectsOf(read(provider, 'infrastructure-components.yaml'));
  parsedComponents.set(provider, parsed);
  return parsed;
};
const variablesOf = (text: string): string[] => [...new Set([...text.matchAll(VARIABLE)].map((match) => match[1] ?? ''))].sort();

beforeAll(() => {
  prepareChart();
  dir = mkdtempSync(join(tmpdir(), 'clusterctl-repo-'));
  writeRepository(dir);
}, 600_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.each(PROVIDER_NAMES)('clusterctl repository: infrastructure-%s', (provider) => {
  it('maps the chart release series to contract v1beta2', () => {
    const metadata = parse(read(provider, 'metadata.yaml')) as { kind: string; releaseSeries: { major: number; minor: number; contract: string }[] };
    const [major, minor] = providerVersion().slice(1).split('.').map(Number);
    expect(metadata.kind).toBe('Metadata');
    expect(metadata.releaseSeries).toContainEqual({ major, minor, contract: 'v1beta2' });
  });

  it('has one Namespace, and every namespaced object in it', () => {
    const objects = componentsOf(provider);
    expect(objects.filter((obj) => obj.kind === 'Namespace').map((obj) => obj.metadata.name)).toEqual([PROVIDER_NAMESPACE]);
    const misplaced = objects.filter((obj) => !CLUSTER_SCOPED.has(obj.kind) && obj.metadata.namespace !== PROVIDER_NAMESPACE);
    expect(misplaced.map((obj) => `${obj.kind}/${obj.metadata.name}`)).toEqual([]);
  });

  it('labels every object with the provider', () => {
    const objects = componentsOf(provider);
    const unlabelled = objects.filter((obj) => obj.metadata.labels?.['cluster.x-k8s.io/provider'] !== `infrastructure-${provider}`);
    expect(unlabelled.map((obj) => `${obj.kind}/${obj.metadata.name}`)).toEqual([]);
  });

  it('leaves certificates to cert-manager: no Secret, CA injected into the conversion CRDs', () => {
    const objects = componentsOf(provider);
    expect(objects.filter((obj) => obj.kind === 'Secret')).toEqual([]);
    expect(objects.filter((obj) => obj.kind === 'Certificate').length).toBeGreaterThan(0);
    const injected = objects.filter(
      (obj) => obj.kind === 'CustomResourceDefinition' && obj.metadata.annotations?.['cert-manager.io/inject-ca-from'] !== undefined,
    );
    expect(injected.length).toBeGreaterThan(0);
  });

  it('has METACONTROLLER_IMAGE, with a default, as its only variable; both Ironhook Deployments run the chart image', () => {
    expect(variablesOf(read(provider, 'infrastructure-components.yaml'))).toEqual(['METACONTROLLER_IMAGE']);
    const objects = componentsOf(provider);
    const image = `ghcr.io/ironhook/ironhook:${providerVersion().slice(1)}`;
    expect(imagesOf(objects, 'Deployment')).toEqual([image, image]);
    expect(imagesOf(objects, 'StatefulSet')).toEqual([
      expect.stringMatching(/^\$\{METACONTROLLER_IMAGE:=ghcr\.io\/metacontroller\/metacontroller:v4\.17\.2\}$/u),
    ]);
  });

  it("tells clusterctl's CRD name check to skip Metal3Data only, whose plural no core Cluster API object references", () => {
    const skipped = componentsOf(provider)
      .filter((obj) => obj.kind === 'CustomResourceDefinition' && obj.metadata.annotations?.[SKIP_CRD_NAME_CHECK] !== undefined)
      .map((obj) => obj.metadata.name);
    expect(skipped).toEqual(['metal3datas.infrastructure.cluster.x-k8s.io']);
  });

  it('ships the cluster template with the documented variables, every object in ${NAMESPACE}', () => {
    const text = read(provider, 'cluster-template.yaml');
    expect(variablesOf(text)).toEqual(TEMPLATE_VARIABLES);
    expect(objectsOf(text).filter((obj) => obj.metadata.namespace !== '${NAMESPACE}')).toEqual([]);
  });
});

it('clusterctl.yaml names both providers by file URL', () => {
  const config = parse(readFileSync(join(dir, 'clusterctl.yaml'), 'utf8')) as { providers: { name: string; url: string; type: string }[] };
  expect(config.providers.map((provider) => [provider.name, provider.type, new URL(provider.url).protocol])).toEqual([
    ['metal3', 'InfrastructureProvider', 'file:'],
    ['ironhook', 'InfrastructureProvider', 'file:'],
  ]);
});
