// A local clusterctl provider repository of Cluster API's core, kubeadm bootstrap and kubeadm
// control-plane providers, built offline from the release module tools/cluster-api pins: the
// components are `kubectl kustomize` of each provider's config/default (what upstream's release
// packs), with the release's image names and pull policy, and the module's metadata.yaml.
// `clusterctl init --core cluster-api --bootstrap kubeadm --control-plane kubeadm` reads it
// through a `providers:` entry per provider, and the images come from `scripts/image.sh capi`
// through clusterctl's `images:` setting.
//
// For the loopback-only test node (docs/dev/real-node.md: host-network pods, no Services) the
// components get the loopback profile of devenv/loopback-components.ts: each manager on its own
// ports on 127.0.0.1, webhooks called by URL.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import type { KubeObject, ProviderEntry } from '../scripts/clusterctl-repo.js';
import { REPO_ROOT } from './environment.js';
import { loopbackComponents, type ManagerPorts } from './loopback-components.js';
import { binary } from './processes.js';

const run = promisify(execFile);

export interface CAPIProvider {
  /** clusterctl's provider type and name. */
  type: 'CoreProvider' | 'BootstrapProvider' | 'ControlPlaneProvider';
  name: string;
  /** clusterctl's label for it: the repository folder and the `images:` key. */
  label: string;
  componentsFile: string;
  /** The kustomization inside the module. */
  config: string;
  /** The image name of upstream's release (registry.k8s.io/cluster-api/<image>). */
  image: string;
}

export const CAPI_PROVIDERS: readonly CAPIProvider[] = [
  {
    type: 'CoreProvider',
    name: 'cluster-api',
    label: 'cluster-api',
    componentsFile: 'core-components.yaml',
    config: 'core/config/default',
    image: 'cluster-api-controller',
  },
  {
    type: 'BootstrapProvider',
    name: 'kubeadm',
    label: 'bootstrap-kubeadm',
    componentsFile: 'bootstrap-components.yaml',
    config: 'bootstrap/kubeadm/config/default',
    image: 'kubeadm-bootstrap-controller',
  },
  {
    type: 'ControlPlaneProvider',
    name: 'kubeadm',
    label: 'control-plane-kubeadm',
    componentsFile: 'control-plane-components.yaml',
    config: 'controlplane/kubeadm/config/default',
    image: 'kubeadm-control-plane-controller',
  },
];

/** Where upstream's release images live; clusterctl's `images:` setting moves them. */
const RELEASE_REGISTRY = 'registry.k8s.io/cluster-api';

/** The pinned release and its module directory (downloaded if needed). */
export async function clusterAPIModule(): Promise<{ version: string; dir: string }> {
  const tools = join(REPO_ROOT, 'tools', 'cluster-api');
  await run('go', ['mod', 'download', 'sigs.k8s.io/cluster-api'], { cwd: tools });
  const { stdout } = await run('go', ['list', '-m', '-f', '{{.Version}} {{.Dir}}', 'sigs.k8s.io/cluster-api'], { cwd: tools });
  const [version = '', dir = ''] = stdout.trim().split(' ');
  return { version, dir };
}

interface ManagerContainer {
  name: string;
  image: string;
  imagePullPolicy?: string;
}

/** The manager's image as upstream's release sets it (`make release-manifests`): its registry, the release tag, IfNotPresent. */
function releaseImage(obj: KubeObject, provider: CAPIProvider, version: string): KubeObject {
  if (obj.kind !== 'Deployment') return obj;
  const spec = obj.spec as { template: { spec: { containers: ManagerContainer[] } } };
  const containers = spec.template.spec.containers.map((container) =>
    container.name === 'manager' ? { ...container, image: `${RELEASE_REGISTRY}/${provider.image}:${version}`, imagePullPolicy: 'IfNotPresent' } : container,
  );
  return { ...obj, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, containers } } } };
}

async function renderProvider(provider: CAPIProvider, module: { version: string; dir: string }): Promise<KubeObject[]> {
  const { stdout } = await run(binary('kubectl'), ['kustomize', join(module.dir, provider.config)], { maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((obj): obj is KubeObject => obj !== null)
    .map((obj) => releaseImage(obj, provider, module.version));
}

/**
 * Writes the three providers under `dir` (<label>/<version>/<components> and metadata.yaml), each
 * manager on the given loopback ports; returns their clusterctl.yaml `providers:` entries.
 */
export async function writeCAPIProviders(dir: string, ports: ReadonlyMap<string, ManagerPorts>): Promise<ProviderEntry[]> {
  const module = await clusterAPIModule();
  const metadata = readFileSync(join(module.dir, 'metadata.yaml'));
  const entries: ProviderEntry[] = [];
  for (const provider of CAPI_PROVIDERS) {
    const managerPorts = ports.get(provider.label);
    if (managerPorts === undefined) throw new Error(`no ports for ${provider.label}`);
    const objects = loopbackComponents(await renderProvider(provider, module), managerPorts);
    const out = join(dir, provider.label, module.version);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, provider.componentsFile), objects.map((obj) => stringify(obj, { lineWidth: 0 })).join('---\n'));
    writeFileSync(join(out, 'metadata.yaml'), metadata);
    entries.push({ name: provider.name, url: pathToFileURL(join(out, provider.componentsFile)).href, type: provider.type });
  }
  return entries;
}

/** clusterctl's `images:` setting that takes every Cluster API manager from the images scripts/image.sh built. */
export function localCAPIImages(): Record<string, { repository: string }> {
  return Object.fromEntries(CAPI_PROVIDERS.map((provider) => [provider.label, { repository: 'localhost/cluster-api' }]));
}
