// `npm run clusterctl:repo [-- <dir>]` (docs/clusterctl.md): a local clusterctl provider repository
// for Ironhook, built from the Helm chart. For each provider name (metal3, so that
// `clusterctl init --infrastructure metal3` installs Ironhook, and ironhook) it writes
// <dir>/infrastructure-<name>/v<version>/ with metadata.yaml, infrastructure-components.yaml
// and cluster-template.yaml, and <dir>/clusterctl.yaml with the `providers:` entries that point
// clusterctl at them. Default <dir>: .ironhook/clusterctl.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ROOT } from './chart-sync.js';

/** The namespace the components install into (clusterctl's default target namespace). */
export const PROVIDER_NAMESPACE = 'ironhook-system';
/** The names clusterctl knows Ironhook by. */
export const PROVIDER_NAMES = ['metal3', 'ironhook'] as const;
const RELEASE = 'ironhook';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

function helmBinary(): string {
  const cached = process.env.HELM ?? join(process.env.IRONHOOK_CACHE ?? join(homedir(), '.cache', 'ironhook'), 'bin', 'helm');
  if (!existsSync(cached)) execFileSync('bash', [join(ROOT, 'scripts', 'setup-test-binaries.sh'), 'helm'], { stdio: 'inherit' });
  return cached;
}

/** The chart's version: the release series metadata.yaml maps to a contract. */
export function providerVersion(): string {
  const chart = parse(readFileSync(join(ROOT, 'charts', 'ironhook', 'Chart.yaml'), 'utf8')) as { appVersion: string };
  return `v${chart.appVersion}`;
}

/**
 * The chart as clusterctl installs it: cert-manager issues the conversion listener's certificate
 * (clusterctl installs cert-manager first, and a certificate rendered here would be shared by every
 * install), no helm test pods. Ironhook's image is not a variable: written as one in a Deployment it
 * breaks clusterctl's image handling (`generate provider --describe`), and its `images:` setting
 * moves it.
 */
function renderChart(version: string, valueFiles: readonly string[]): KubeObject[] {
  execFileSync('bash', [join(ROOT, 'scripts', 'chart-deps.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const args = ['template', RELEASE, join(ROOT, 'charts', 'ironhook'), '--namespace', PROVIDER_NAMESPACE, '--include-crds', '--skip-tests'];
  for (const file of valueFiles) args.push('--values', file);
  args.push('--set', 'certManager.enabled=true', '--set-string', `image.tag=${version.slice(1)}`);
  const rendered = execFileSync(helmBinary(), args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, KUBECONFIG: '/dev/null' },
  });
  const objects = parseAllDocuments(rendered)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((obj): obj is KubeObject => obj !== null);
  return objects.map(metacontrollerImageVariable).map(crdNameCheck);
}

interface PodTemplateOwner {
  spec: { template: { spec: { containers: { image: string }[] } } };
}

/**
 * Metacontroller runs as a StatefulSet, whose images clusterctl's `images:` setting does not move
 * (it moves Deployments and DaemonSets only): its image is the variable METACONTROLLER_IMAGE.
 */
function metacontrollerImageVariable(obj: KubeObject): KubeObject {
  if (obj.kind !== 'StatefulSet') return obj;
  const owner = obj as unknown as PodTemplateOwner;
  const containers = owner.spec.template.spec.containers.map((container) => ({ ...container, image: `\${METACONTROLLER_IMAGE:=${container.image}}` }));
  return { ...obj, spec: { ...owner.spec, template: { ...owner.spec.template, spec: { ...owner.spec.template.spec, containers } } } };
}

/**
 * CRDs whose names differ from the plural clusterctl computes for their kind (it uses flect, for
 * which "data" is already plural). clusterctl refuses such a provider unless the CRD says no core
 * Cluster API object references it (its skip annotation), which is true of Metal3Data: the name
 * stays upstream's.
 */
const CRD_NAME_CHECK_EXCEPTIONS = new Set(['metal3datas.infrastructure.cluster.x-k8s.io']);
export const SKIP_CRD_NAME_CHECK = 'clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check';

function crdNameCheck(obj: KubeObject): KubeObject {
  if (obj.kind !== 'CustomResourceDefinition' || !CRD_NAME_CHECK_EXCEPTIONS.has(obj.metadata.name)) return obj;
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [SKIP_CRD_NAME_CHECK]: '' } } };
}

/** One Namespace first, and every object labelled for the provider as the clusterctl contract asks. */
export function componentsFor(objects: KubeObject[], provider: string): KubeObject[] {
  const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PROVIDER_NAMESPACE } };
  return [namespace, ...objects].map((obj) => ({
    ...obj,
    metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, 'cluster.x-k8s.io/provider': `infrastructure-${provider}` } },
  }));
}

function writeProvider(dir: string, provider: string, version: string, objects: KubeObject[]): string {
  const out = join(dir, `infrastructure-${provider}`, version);
  mkdirSync(out, { recursive: true });
  const components = componentsFor(objects, provider)
    .map((obj) => stringify(obj, { lineWidth: 0 }))
    .join('---\n');
  writeFileSync(join(out, 'infrastructure-components.yaml'), components);
  writeFileSync(join(out, 'metadata.yaml'), readFileSync(join(ROOT, 'clusterctl', 'metadata.yaml')));
  writeFileSync(join(out, 'cluster-template.yaml'), readFileSync(join(ROOT, 'clusterctl', 'cluster-template.yaml')));
  return join(out, 'infrastructure-components.yaml');
}

export interface RepositoryOptions {
  /** Helm values files for the chart, in order (a site's own settings, e.g. a mirror or the local node profile). */
  valueFiles?: readonly string[];
  /** Rewrites the rendered objects before they are written (the tests' loopback-only node). */
  transform?: (objects: KubeObject[]) => KubeObject[];
}

/** A `providers:` entry of clusterctl.yaml. */
export interface ProviderEntry {
  name: string;
  url: string;
  type: string;
}

/** Writes the repository's providers into `dir`; returns their clusterctl.yaml `providers:` entries. */
export function writeProviders(dir: string, options: RepositoryOptions = {}): ProviderEntry[] {
  const version = providerVersion();
  const rendered = renderChart(version, options.valueFiles ?? []);
  const objects = options.transform === undefined ? rendered : options.transform(rendered);
  return PROVIDER_NAMES.map((name) => ({
    name,
    url: pathToFileURL(writeProvider(dir, name, version, objects)).href,
    type: 'InfrastructureProvider',
  }));
}

/** Writes the repository into `dir`; returns the clusterctl.yaml that names it. */
export function writeRepository(dir: string, options: RepositoryOptions = {}): string {
  const providers = writeProviders(dir, options);
  const config = join(dir, 'clusterctl.yaml');
  writeFileSync(config, stringify({ providers }, { lineWidth: 0 }));
  return config;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const config = writeRepository(resolve(process.argv[2] ?? join(ROOT, '.ironhook', 'clusterctl')));
  process.stdout.write(`clusterctl repository written; use it with: clusterctl --config ${config} init --infrastructure metal3\n`);
}
