// `helm install --dry-run=server` of charts/ironhook, with its metacontroller-helm dependency in
// place (scripts/chart-deps.sh), into a real kube-apiserver on 127.0.0.1
// (devenv/controlplane.ts): helm renders with the server's version and API groups, maps
// every object to a resource the server serves, validates it against the server's OpenAPI
// schemas (those of the CRDs in the cluster included) and looks for existing objects it would
// conflict with. Both with the bundled Metacontroller (metacontroller.enabled=true, the default)
// and with the cluster's own (false). Helm's dry run stops before creating anything, so the
// manifest it reports is then created with `kubectl create --dry-run=server` too: every object
// through admission, with PodSecurity 'restricted' on the release namespace.
// With the Prometheus Operator's CRDs (from its Go module) the monitoring objects are admitted too.
//
// A dry run skips the CRDs in crds/ folders (helm warns "Rendering may fail"), which a real
// install creates first; so the cluster gets the bundled chart's Metacontroller CRDs up front, as
// a cluster that already runs Metacontroller has them too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import { kubectlOrThrow } from '../../devenv/environment.js';
import { CHART_DIR, helm, NAMESPACE, parseObjects, prepareChart, RELEASE, type HelmResult, type RenderedObject } from '../support/helm.js';
import { binary } from '../../devenv/processes.js';
import { prometheusOperatorCRDFiles } from '../support/prometheus-operator.js';

const execFileAsync = promisify(execFile);
const DEPENDENCY = join(CHART_DIR, 'charts', 'metacontroller-helm-4.17.2.tgz');
const METACONTROLLER_CRDS = ['compositecontrollers', 'controllerrevisions', 'decoratorcontrollers'].map((r) => `${r}.metacontroller.k8s.io`);
const TUNING = ['--workers=10', '--client-go-qps=50', '--client-go-burst=100'];

let plane: ControlPlane | undefined;
let dir = '';

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOrThrow(plane!.kubeconfig, args);
}

/** `helm install --dry-run=server`; the release as helm reports it (-o json). */
async function dryRun(...extra: string[]): Promise<HelmResult> {
  return helm(['install', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--dry-run=server', '--output', 'json', ...extra], plane!.kubeconfig);
}

function manifestOf(res: HelmResult): RenderedObject[] {
  expect(res.code, res.stderr).toBe(0);
  const release = JSON.parse(res.stdout) as { manifest: string; info: { status: string; description: string } };
  expect(release.info.description).toBe('Dry run complete');
  return parseObjects(release.manifest);
}

/**
 * The release's manifest (from the dry run) created with `kubectl create --dry-run=server`:
 * every object through the API server's admission, PodSecurity 'restricted' on the namespace
 * (enforced for pods, warned about for workloads).
 */
async function admit(...extra: string[]): Promise<{ stdout: string; stderr: string }> {
  const res = await dryRun(...extra);
  expect(res.code, res.stderr).toBe(0);
  const file = join(dir, 'release.yaml');
  writeFileSync(file, (JSON.parse(res.stdout) as { manifest: string }).manifest);
  await kubectl('label', 'namespace', NAMESPACE, '--overwrite', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted');
  return execFileAsync(binary('kubectl'), ['--kubeconfig', plane!.kubeconfig, 'create', '--dry-run=server', '-n', NAMESPACE, '-f', file], {
    maxBuffer: 16 * 1024 * 1024,
  });
}

const names = (objects: RenderedObject[], kind: string): string[] =>
  objects
    .filter((o) => o.kind === kind)
    .map((o) => o.metadata.name)
    .sort();
const containerArgs = (sts: RenderedObject | undefined): string[] =>
  (sts?.spec as { template: { spec: { containers: { args: string[] }[] } } } | undefined)?.template.spec.containers[0]?.args ?? [];

beforeAll(async () => {
  prepareChart();
  dir = mkdtempSync(join(tmpdir(), 'ironhook-chart-install-'));
  plane = await startControlPlane({ dir, controllerManager: false });
  await kubectl('create', 'namespace', NAMESPACE);
  const crds = await helm(['show', 'crds', DEPENDENCY]);
  expect(crds.code, crds.stderr).toBe(0);
  writeFileSync(join(dir, 'metacontroller-crds.yaml'), crds.stdout);
  await kubectl('create', '-f', join(dir, 'metacontroller-crds.yaml'));
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', ...METACONTROLLER_CRDS.map((n) => `crd/${n}`));
}, 1_200_000);

afterAll(async () => {
  await plane?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('helm install --dry-run=server into a kube-apiserver', () => {
  it('has the upstream chart in place and its Metacontroller CRDs in the cluster', async () => {
    const crds = (await kubectl('get', 'crd', '-o', 'name')).split('\n').filter((l) => l.includes('metacontroller.k8s.io'));
    expect(crds.map((l) => l.replace('customresourcedefinition.apiextensions.k8s.io/', '')).sort()).toEqual(METACONTROLLER_CRDS);
  });

  it('passes with metacontroller.enabled=true (the default): Ironhook and the bundled Metacontroller, tuned', async () => {
    const objects = manifestOf(await dryRun());
    expect(names(objects, 'StatefulSet')).toEqual(['ironhook-metacontroller']);
    expect(names(objects, 'Deployment')).toEqual(['ironhook-drivers', 'ironhook-hooks']);
    expect(names(objects, 'ClusterRole')).toEqual(expect.arrayContaining(['ironhook-metacontroller', 'ironhook-metacontroller-base']));
    expect(names(objects, 'CompositeController').length).toBeGreaterThan(0);
    expect(containerArgs(objects.find((o) => o.kind === 'StatefulSet'))).toEqual(expect.arrayContaining(TUNING));
  });

  it.each([
    ['--set metacontroller.enabled=false', ['--set', 'metacontroller.enabled=false']],
    ['ci/no-metacontroller-values.yaml', ['--values', join(CHART_DIR, 'ci', 'no-metacontroller-values.yaml')]],
  ])("passes with the cluster's own Metacontroller (%s): nothing of the upstream chart", async (_name, extra) => {
    const objects = manifestOf(await dryRun(...extra));
    expect(names(objects, 'StatefulSet')).toEqual([]);
    expect(objects.filter((o) => o.metadata.labels?.['helm.sh/chart']?.startsWith('metacontroller-') === true)).toEqual([]);
    expect(names(objects, 'ClusterRole')).not.toContain('ironhook-metacontroller');
    expect(names(objects, 'CompositeController').length).toBeGreaterThan(0);
  });

  it("is admitted object by object (server-side dry run, PodSecurity 'restricted' on the namespace), the bundled Metacontroller included", async () => {
    const { stdout, stderr } = await admit();
    expect(stderr).not.toMatch(/PodSecurity|Warning/);
    expect(stdout).toMatch(/statefulset\.apps\/ironhook-metacontroller created \(server dry run\)/);
    expect(stdout).toMatch(/clusterrole\.rbac\.authorization\.k8s\.io\/ironhook-metacontroller created \(server dry run\)/);
    for (const policy of ['ironhook-hooks', 'ironhook-drivers']) expect(stdout).toContain(`networkpolicy.networking.k8s.io/${policy} created (server dry run)`);
  });

  it("is checked by PodSecurity: the bundled Metacontroller without the chart's securityContext is not restricted", async () => {
    const { stderr } = await admit('--set', 'metacontroller.podSecurityContext=null', '--set', 'metacontroller.securityContext=null');
    const warnings = stderr.trim().split('\n');
    expect(warnings, 'one warning: the StatefulSet only').toHaveLength(1);
    expect(warnings[0]).toMatch(
      /would violate PodSecurity "restricted:latest": .*container "metacontroller" must set securityContext\.allowPrivilegeEscalation=false/,
    );
  });

  it('is checked by the server: a kind the cluster does not serve fails the dry run', async () => {
    const res = await dryRun('--set', 'metrics.serviceMonitor.enabled=true');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/ServiceMonitor/);
  });

  // After the test above: from here on the cluster serves the Prometheus Operator's kinds.
  it("is admitted with ServiceMonitors, the Grafana dashboard and the PrometheusRule, against the Prometheus Operator's own CRDs", async () => {
    for (const file of await prometheusOperatorCRDFiles()) await kubectl('create', '-f', file);
    await kubectl(
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/servicemonitors.monitoring.coreos.com',
      'crd/prometheusrules.monitoring.coreos.com',
    );
    const monitoring = [
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'metrics.dashboard.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
    ];
    expect(names(manifestOf(await dryRun(...monitoring)), 'PrometheusRule')).toEqual(['ironhook']);
    const { stdout } = await admit(...monitoring);
    expect(stdout).toMatch(/prometheusrule\.monitoring\.coreos\.com\/ironhook created \(server dry run\)/);
    expect(stdout).toMatch(/servicemonitor\.monitoring\.coreos\.com\/ironhook-drivers created \(server dry run\)/);
    expect(stdout).toMatch(/configmap\/ironhook-dashboard created \(server dry run\)/);
  });

  // After the Prometheus Operator's CRDs are in: ci/tls-auth-values.yaml renders ServiceMonitors.
  it('admits the TLS and auth configuration (ci/tls-auth-values.yaml), its NetworkPolicies and the webhook Role included', async () => {
    const { stdout, stderr } = await admit('--values', join(CHART_DIR, 'ci', 'tls-auth-values.yaml'));
    expect(stderr).not.toMatch(/PodSecurity|Warning/);
    for (const object of [
      'networkpolicy.networking.k8s.io/ironhook-hooks',
      'networkpolicy.networking.k8s.io/ironhook-drivers',
      'role.rbac.authorization.k8s.io/ironhook-metacontroller-webhook',
    ])
      expect(stdout).toContain(`${object} created (server dry run)`);
  });
});
