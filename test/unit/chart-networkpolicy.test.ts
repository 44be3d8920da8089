// The chart's NetworkPolicies (templates/networkpolicy.yaml), rendered by the real helm with the
// ci/*-values.yaml configurations, hold to what docs/helm.md says: the hook port admits only
// Metacontroller's pods, scrapers from the metrics namespaces and the chart's test pods; the
// conversion port any source (chart-conversion.test.ts); the pool's metrics port scrapers and its
// agent API only the agents' networks (networkPolicy.agentAPI.cidrs, else
// drivers.allowedBMCNetworks). Each policy selects exactly its component's pods and names ports
// those pods declare (a typo in either would silently protect nothing), and restricts ingress only:
// egress is not restricted by NetworkPolicy. test/integration/chart-install.test.ts has a real
// kube-apiserver admit them. No CNI runs in the tests, so enforcement itself is not tested.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { named, ofKind } from '../support/controller-objects.js';
import { NAMESPACE, prepareChart, removeScratchCharts, render, renderCIValues, type PreparedChart, type RenderedObject } from '../support/helm.js';

const FILES = [
  'default-values.yaml',
  'tls-auth-values.yaml',
  'no-metacontroller-values.yaml',
  'replicas-values.yaml',
  'agent-api-values.yaml',
  'drivers-disabled-values.yaml',
];

let chart: PreparedChart;
let rendered: (file: string) => RenderedObject[];

beforeAll(async () => {
  chart = prepareChart();
  rendered = await renderCIValues(chart.dir, FILES);
}, 600_000);

afterAll(() => {
  removeScratchCharts();
});

type Ingress = { from: Record<string, unknown>[]; ports: unknown[] }[];
interface PolicySpec {
  podSelector: { matchLabels: Record<string, string> };
  policyTypes: string[];
  ingress: Ingress | null;
  egress?: unknown;
}
const specOf = (policy: RenderedObject): PolicySpec => policy.spec as PolicySpec;
const ingressOf = (objects: RenderedObject[], name = 'ironhook-hooks'): Ingress => specOf(named(objects, 'NetworkPolicy', name)!).ingress ?? [];

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: { ports?: { name?: string }[] }[] };
}
/** Every workload's pod template, by workload name. */
function podTemplates(objects: RenderedObject[]): [string, PodTemplate][] {
  return [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'StatefulSet')].map((w) => [w.metadata.name, (w.spec as { template: PodTemplate }).template]);
}
const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean => Object.entries(selector).every(([k, v]) => labels[k] === v);
const HOOK_PEERS = (metacontroller: Record<string, unknown>): Record<string, unknown>[] => [
  metacontroller,
  { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
  { podSelector: { matchLabels: { 'ironhook.dev/helm-test': 'ironhook' } } },
];
const BUNDLED_METACONTROLLER = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
  podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'ironhook', 'app.kubernetes.io/name': 'metacontroller' } },
};

describe('NetworkPolicy', () => {
  it("admits only the bundled Metacontroller's pods, scrapers from the metrics namespaces and the chart's test pods to the hook port", () => {
    const [rule] = ingressOf(rendered('default-values.yaml'));
    expect(rule?.ports).toEqual([{ protocol: 'TCP', port: 'http' }]);
    expect(rule?.from).toEqual(HOOK_PEERS(BUNDLED_METACONTROLLER));
  });

  it('uses the configured selectors for an existing Metacontroller', () => {
    const [rule] = ingressOf(rendered('no-metacontroller-values.yaml'));
    expect(rule?.from[0]).toEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'metacontroller' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'metacontroller-helm' } },
    });
  });

  it("admits scrapers to the pool's metrics port, and the agents' networks (networkPolicy.agentAPI.cidrs, else drivers.allowedBMCNetworks) to its agent API port", () => {
    const agentRule = (file: string): Ingress[number] | undefined =>
      ingressOf(rendered(file), 'ironhook-drivers').find((r) => JSON.stringify(r.ports) === JSON.stringify([{ protocol: 'TCP', port: 'agent-api' }]));
    const [metrics] = ingressOf(rendered('default-values.yaml'), 'ironhook-drivers');
    expect(metrics).toEqual({
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      ports: [{ protocol: 'TCP', port: 'metrics' }],
    });
    expect(agentRule('default-values.yaml'), 'no networks, no agents').toBeUndefined();
    expect(agentRule('replicas-values.yaml')?.from).toEqual([{ ipBlock: { cidr: '10.10.0.0/16' } }, { ipBlock: { cidr: 'fd00:10::/64' } }]);
    expect(agentRule('agent-api-values.yaml')?.from).toEqual([{ ipBlock: { cidr: '172.22.0.0/24' } }, { ipBlock: { cidr: '172.23.0.0/24' } }]);
    expect(named(rendered('drivers-disabled-values.yaml'), 'NetworkPolicy', 'ironhook-drivers')).toBeUndefined();
  });

  it('says the same with webhook TLS and auth (ci/tls-auth-values.yaml): rule for rule, nothing else', () => {
    const objects = rendered('tls-auth-values.yaml');
    expect(ofKind(objects, 'NetworkPolicy').map((p) => p.metadata.name)).toEqual(['ironhook-hooks', 'ironhook-drivers']);
    expect(ingressOf(objects)).toEqual([
      { from: HOOK_PEERS(BUNDLED_METACONTROLLER), ports: [{ protocol: 'TCP', port: 'http' }] },
      { ports: [{ protocol: 'TCP', port: 'conversion' }] },
    ]);
    expect(ingressOf(objects, 'ironhook-drivers')).toEqual([
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ protocol: 'TCP', port: 'metrics' }] },
      { from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ protocol: 'TCP', port: 'agent-api' }] },
    ]);
  });

  it.each(FILES)('selects exactly its component pods, names only ports they declare, and restricts ingress only (ci/%s)', (file) => {
    const objects = rendered(file);
    const policies = ofKind(objects, 'NetworkPolicy');
    expect(policies.length).toBeGreaterThan(0);
    for (const policy of policies) {
      const spec = specOf(policy);
      expect(spec.policyTypes, policy.metadata.name).toEqual(['Ingress']);
      expect(spec.egress, policy.metadata.name).toBeUndefined();
      const selected = podTemplates(objects).filter(([, pod]) => selects(spec.podSelector.matchLabels, pod.metadata.labels));
      expect(
        selected.map(([name]) => name),
        policy.metadata.name,
      ).toEqual([policy.metadata.name]);
      const declared = new Set(selected.flatMap(([, pod]) => pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name))));
      for (const rule of spec.ingress ?? [])
        for (const port of rule.ports as { port: string }[]) expect(declared, `${policy.metadata.name} ${port.port}`).toContain(port.port);
    }
  });

  it('renders none with networkPolicy.enabled=false', async () => {
    expect(ofKind(await render(chart.dir, { set: ['networkPolicy.enabled=false'] }), 'NetworkPolicy')).toEqual([]);
  }, 60_000);
});
