// The real clusterctl (Cluster API v1.14, built from the Go module proxy by
// scripts/setup-test-binaries.sh) reading Ironhook's local provider repository
// (scripts/clusterctl-repo.ts, docs/clusterctl.md) as `metal3` and as `ironhook`: it renders the
// provider's components (images moved by its images: setting), and the seed's cluster template, which a real
// kube-apiserver with Cluster API's, the kubeadm providers' and Ironhook's CRDs and admission
// policies accepts. Addresses in the template are documentation addresses (192.0.2.0/24) and are
// only ever dry-run: nothing acts on them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { clusterAPICRDFiles, kubeadmCRDFiles } from '../../devenv/capi.js';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, kubectlFor } from '../../devenv/environment.js';
import { PROVIDER_NAMESPACE, providerVersion, writeRepository } from '../../scripts/clusterctl-repo.js';
import { runClusterctl, type ClusterctlResult } from '../support/clusterctl.js';
import { prepareChart } from '../support/helm.js';
import { seedVariables } from './seed-support.js';

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { image: string }[] } } };
}

/** What the seed's cluster needs besides the command line's counts and version. */
const SEED_VARIABLES = seedVariables({});
const NAMESPACE = 'seed';

let dir = '';
let config = '';
let plane: ControlPlane | undefined;

type Result = ClusterctlResult;

/** The repository's config unless the call names another; the local control plane for `generate cluster` (generate provider has no such flag). */
function withDefaults(args: string[]): string[] {
  const configured = args.includes('--config') ? args : [...args, '--config', config];
  return args[1] === 'cluster' ? [...configured, '--kubeconfig', plane?.kubeconfig ?? ''] : configured;
}

/** Runs clusterctl with this file's config folder and home. */
async function clusterctl(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return runClusterctl(dir, withDefaults(args), env);
}

const objectsOf = (text: string): KubeObject[] => parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject);
const imagesOf = (objects: KubeObject[], kind = 'Deployment'): string[] =>
  objects.filter((obj) => obj.kind === kind).flatMap((obj) => obj.spec?.template?.spec?.containers?.map((container) => container.image) ?? []);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clusterctl-e2e-'));
  prepareChart();
  config = writeRepository(join(dir, 'repository'));
  plane = await startControlPlane({ dir: join(dir, 'plane') });
  const { kubectl } = kubectlFor(plane.kubeconfig);
  for (const file of [...(await clusterAPICRDFiles()), ...(await kubeadmCRDFiles())]) await kubectl('apply', '--server-side', '-f', file);
}, 600_000);

afterAll(async () => {
  await plane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('clusterctl generate provider', () => {
  it.each(['metal3', 'ironhook'])('renders Ironhook as %s, in its namespace, running the chart image', async (name) => {
    const result = await clusterctl(['generate', 'provider', '--infrastructure', `${name}:${providerVersion()}`]);
    expect(result).toEqual(expect.objectContaining({ code: 0 }));
    const objects = objectsOf(result.stdout);
    const image = `ghcr.io/ironhook/ironhook:${providerVersion().slice(1)}`;
    expect(imagesOf(objects)).toEqual([image, image]);
    expect(objects.filter((obj) => obj.kind === 'Namespace').map((obj) => obj.metadata.name)).toEqual([PROVIDER_NAMESPACE]);
    expect(objects.every((obj) => obj.metadata.labels?.['cluster.x-k8s.io/provider'] === `infrastructure-${name}`)).toBe(true);
  });

  it("clusterctl's images: setting moves the image to a mirror; --describe works", async () => {
    const mirrored = join(dir, 'mirrored.yaml');
    writeFileSync(mirrored, `${readFileSync(config, 'utf8')}images:\n  infrastructure-metal3:\n    repository: registry.example/mirror\n`);
    const result = await clusterctl(['generate', 'provider', '--infrastructure', 'metal3', '--config', mirrored]);
    const image = `registry.example/mirror/ironhook:${providerVersion().slice(1)}`;
    expect(imagesOf(objectsOf(result.stdout))).toEqual([image, image]);
    const described = await clusterctl(['generate', 'provider', '--infrastructure', 'metal3', '--describe']);
    expect(described).toEqual(expect.objectContaining({ code: 0 }));
    expect(described.stdout).toContain('METACONTROLLER_IMAGE');
  });

  it('takes METACONTROLLER_IMAGE from the environment for the Metacontroller StatefulSet', async () => {
    const result = await clusterctl(['generate', 'provider', '--infrastructure', 'metal3'], {
      METACONTROLLER_IMAGE: 'registry.example/mirror/metacontroller:v4.17.2',
    });
    expect(imagesOf(objectsOf(result.stdout), 'StatefulSet')).toEqual(['registry.example/mirror/metacontroller:v4.17.2']);
  });

  it("the components' CRDs and admission policies apply to a real apiserver", async () => {
    const rendered = await clusterctl(['generate', 'provider', '--infrastructure', 'metal3']);
    const wanted = new Set(['CustomResourceDefinition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    const yaml = objectsOf(rendered.stdout)
      .filter((obj) => wanted.has(obj.kind))
      .map((obj) => JSON.stringify(obj))
      .join('\n---\n');
    expect(await kubectlApply(plane?.kubeconfig ?? '', yaml, ['--server-side'])).toEqual(expect.objectContaining({ code: 0 }));
    const { kubectl } = kubectlFor(plane?.kubeconfig ?? '');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
  });
});

describe('clusterctl generate cluster', () => {
  const generate = (env: Record<string, string>): Promise<Result> =>
    clusterctl(
      [
        'generate',
        'cluster',
        'seed',
        '--infrastructure',
        `metal3:${providerVersion()}`,
        '--target-namespace',
        NAMESPACE,
        '--kubernetes-version',
        'v1.34.2',
      ].concat(['--control-plane-machine-count', '1', '--worker-machine-count', '2']),
      env,
    );

  it('lists the template variables', async () => {
    const result = await clusterctl(['generate', 'cluster', 'seed', '--infrastructure', `metal3:${providerVersion()}`, '--list-variables']);
    expect(result).toEqual(expect.objectContaining({ code: 0 }));
    for (const variable of [...Object.keys(SEED_VARIABLES), 'NODE_REUSE', 'IMAGE_FORMAT']) expect(result.stdout).toContain(variable);
  });

  it('renders the seed topology, which the apiserver accepts (server-side dry run)', async () => {
    const result = await generate(SEED_VARIABLES);
    expect(result).toEqual(expect.objectContaining({ code: 0 }));
    const objects = objectsOf(result.stdout);
    expect(objects.map((obj) => obj.kind).sort()).toEqual(
      [
        'Cluster',
        'IPPool',
        'IPPool',
        'KubeadmConfigTemplate',
        'KubeadmControlPlane',
        'MachineDeployment',
        'MachineHealthCheck',
        'Metal3Cluster',
        'Metal3DataTemplate',
        'Metal3DataTemplate',
        'Metal3MachineTemplate',
        'Metal3MachineTemplate',
        'Metal3RemediationTemplate',
      ].sort(),
    );
    expect(objects.every((obj) => obj.metadata.namespace === NAMESPACE)).toBe(true);
    const { kubectl } = kubectlFor(plane?.kubeconfig ?? '');
    await kubectl('create', 'namespace', NAMESPACE);
    expect(await kubectlApply(plane?.kubeconfig ?? '', result.stdout, ['--dry-run=server'])).toEqual(expect.objectContaining({ code: 0 }));
  });

  it('names a variable that is missing', async () => {
    const result = await generate(Object.fromEntries(Object.entries(SEED_VARIABLES).filter(([name]) => name !== 'IMAGE_URL')));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/IMAGE_URL/u);
  });
});
