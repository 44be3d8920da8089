// The bundled Metacontroller: upstream's metacontroller-helm 4.17.2 (alias metacontroller),
// packaged from Metacontroller's source by scripts/chart-deps.sh, rendered with the values the
// Ironhook chart passes to it (values.yaml `metacontroller:`): the StatefulSet with exactly
// metacontroller.commandArgs (the throughput flags docs/helm.md explains), the restricted
// securityContext and resources; the ClusterRole that only aggregates Ironhook's label, bound to
// the ServiceAccount Ironhook's Role, RoleBinding and NetworkPolicy name; the CRDs of its crds/
// serving the version Ironhook's controller objects use; and nothing of it when disabled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { CHART_DIR, helm, NAMESPACE, parseObjects, prepareChart, render, templateArgs, type RenderedObject } from '../support/helm.js';
import { ROOT } from '../../scripts/chart-sync.js';

interface McValues {
  replicas: number;
  commandArgs: string[];
  clusterRole: { aggregationRule: unknown; rules: unknown[] };
  podSecurityContext: unknown;
  securityContext: unknown;
  resources: unknown;
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: {
    serviceAccountName: string;
    securityContext: unknown;
    containers: { name: string; image: string; args: string[]; securityContext: unknown; resources: unknown }[];
  };
}

const VALUES = (parseDocument(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')).toJS() as { metacontroller: McValues }).metacontroller;
const TUNING = { '--workers': '10', '--client-go-qps': '50', '--client-go-burst': '100' };
const NAME = 'ironhook-metacontroller';
const SUBCHART_CRDS = ['compositecontrollers.metacontroller.k8s.io', 'controllerrevisions.metacontroller.k8s.io', 'decoratorcontrollers.metacontroller.k8s.io'];

let defaults: RenderedObject[];
let disabled: RenderedObject[];

beforeAll(async () => {
  prepareChart();
  defaults = await renderWithCRDs([]);
  disabled = await renderWithCRDs(['--set', 'metacontroller.enabled=false']);
}, 1_200_000);

/** `helm template --include-crds`: the templates and the crds/ folders (the subchart's). */
async function renderWithCRDs(extra: string[]): Promise<RenderedObject[]> {
  const res = await helm([...templateArgs(CHART_DIR), '--include-crds', ...extra]);
  if (res.code !== 0) throw new Error(`helm template --include-crds failed: ${res.stderr}`);
  return parseObjects(res.stdout);
}

const named = (objects: RenderedObject[], kind: string, name: string): RenderedObject | undefined =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const podOf = (objects: RenderedObject[]): PodTemplate => (named(objects, 'StatefulSet', NAME)!.spec as { template: PodTemplate }).template;
const fromSubchart = (o: RenderedObject): boolean => o.metadata.labels?.['helm.sh/chart'] === 'metacontroller-4.17.2';
const flags = (args: string[]): Record<string, string> => Object.fromEntries(args.map((a) => a.split('=')).map(([k = '', v = 'true']) => [k, v]));

describe('the bundled Metacontroller (metacontroller.enabled=true)', () => {
  it('runs as a StatefulSet of the release with exactly metacontroller.commandArgs', () => {
    const sts = named(defaults, 'StatefulSet', NAME)!;
    expect(sts.metadata.namespace).toBe(NAMESPACE);
    expect((sts.spec as { replicas: number }).replicas).toBe(VALUES.replicas);
    const [c, ...more] = podOf(defaults).spec.containers;
    expect(more).toEqual([]);
    expect(c?.image).toBe('ghcr.io/metacontroller/metacontroller:v4.17.2');
    expect(c?.args).toEqual(VALUES.commandArgs);
  });

  it('is tuned for hundreds to ~1000 hosts: 10 workers, 50 QPS, burst 100 (docs/helm.md)', () => {
    expect(flags(podOf(defaults).spec.containers[0]!.args)).toMatchObject(TUNING);
    const docs = readFileSync(join(ROOT, 'docs', 'helm.md'), 'utf8');
    for (const [flag, value] of Object.entries(TUNING)) expect(docs, flag).toMatch(new RegExp(`\\| \`${flag}\` \\| ${value} \\|`));
  });

  it("runs restricted with the chart's securityContext and resources", () => {
    const pod = podOf(defaults);
    expect(pod.spec.securityContext).toEqual(VALUES.podSecurityContext);
    expect(pod.spec.containers[0]?.securityContext).toEqual(VALUES.securityContext);
    expect(pod.spec.containers[0]?.resources).toEqual(VALUES.resources);
  });

  it("gets a ClusterRole that only aggregates Ironhook's label, bound to its ServiceAccount", () => {
    const role = named(defaults, 'ClusterRole', NAME)!;
    expect(role.rules).toEqual([]);
    expect(role.aggregationRule).toEqual(VALUES.clusterRole.aggregationRule);
    const sa = podOf(defaults).spec.serviceAccountName;
    expect(named(defaults, 'ServiceAccount', sa)?.metadata.namespace).toBe(NAMESPACE);
    const binding = named(defaults, 'ClusterRoleBinding', NAME)!;
    expect(binding.roleRef).toEqual({ kind: 'ClusterRole', name: NAME, apiGroup: 'rbac.authorization.k8s.io' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa, namespace: NAMESPACE }]);
    const labels = (VALUES.clusterRole.aggregationRule as { clusterRoleSelectors: { matchLabels: Record<string, string> }[] }).clusterRoleSelectors[0]!
      .matchLabels;
    const aggregated = defaults.filter((o) => o.kind === 'ClusterRole' && Object.entries(labels).every(([k, v]) => o.metadata.labels?.[k] === v));
    expect(aggregated.map((o) => o.metadata.name)).toContain('ironhook-metacontroller-base');
    expect(aggregated.some(fromSubchart)).toBe(false);
  });

  it('grants no wildcard anywhere in the subchart (upstream default is */*/*)', () => {
    const rules = defaults.filter(fromSubchart).flatMap((o) => (o.rules as Record<string, string[]>[] | undefined) ?? []);
    expect(rules.length).toBeGreaterThan(0);
    expect(JSON.stringify(rules)).not.toContain('*');
  });

  it("is the pod Ironhook's webhook Role and NetworkPolicy name", async () => {
    const objects = await render(CHART_DIR, { values: ['charts/ironhook/ci/tls-auth-values.yaml'] });
    const pod = podOf(objects);
    expect(named(objects, 'RoleBinding', 'ironhook-metacontroller-webhook')?.subjects).toEqual([
      { kind: 'ServiceAccount', name: pod.spec.serviceAccountName, namespace: NAMESPACE },
    ]);
    const policy = named(objects, 'NetworkPolicy', 'ironhook-hooks')!.spec as {
      ingress: { from: { podSelector?: { matchLabels: Record<string, string> } }[] }[];
    };
    const selector = policy.ingress[0]!.from[0]!.podSelector!.matchLabels;
    expect(pod.metadata.labels).toMatchObject(selector);
  });

  it("ships the Metacontroller CRDs in crds/, serving the version of Ironhook's controller objects", () => {
    const crds = defaults.filter((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name.endsWith('.metacontroller.k8s.io'));
    expect(crds.map((c) => c.metadata.name).sort()).toEqual(SUBCHART_CRDS);
    const served = new Set(
      crds.flatMap((c) =>
        (c.spec as { versions: { name: string; served: boolean }[] }).versions.filter((v) => v.served).map((v) => `metacontroller.k8s.io/${v.name}`),
      ),
    );
    const used = new Set(defaults.filter((o) => o.kind === 'CompositeController' || o.kind === 'DecoratorController').map((o) => o.apiVersion));
    expect(used.size).toBeGreaterThan(0);
    for (const v of used) expect(served).toContain(v);
  });

  it('runs two replicas with leader election and the same tuning (ci/replicas-values.yaml)', async () => {
    const objects = await render(CHART_DIR, { values: ['charts/ironhook/ci/replicas-values.yaml'] });
    expect((named(objects, 'StatefulSet', NAME)!.spec as { replicas: number }).replicas).toBe(2);
    expect(flags(podOf(objects).spec.containers[0]!.args)).toMatchObject({ ...TUNING, '--leader-election': 'true' });
  });
});

describe('metacontroller.enabled=false', () => {
  it('renders nothing of the subchart, CRDs included, and keeps the controller objects', () => {
    expect(disabled.filter(fromSubchart)).toEqual([]);
    expect(disabled.filter((o) => o.metadata.name.endsWith('.metacontroller.k8s.io'))).toEqual([]);
    expect(disabled.filter((o) => o.kind === 'CompositeController').length).toBeGreaterThan(0);
  });
});
