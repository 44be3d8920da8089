// The chart's Grafana dashboard and PrometheusRule against the metrics Ironhook really exports:
// every PromQL expression parses (Prometheus's own lezer-promql grammar), every series it selects is
// registered by the driver pool, the Cluster API runner or the hook server, with the labels it
// matches and groups by, and every alert's runbook anchor exists in docs/troubleshooting.md.
// The dashboard is typed by Grafana's schema (scripts/dashboard.ts); here it must match the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterRequestMetrics } from '../../drivers/cluster/metrics.js';
import { createPoolMetrics } from '../../drivers/pool/metrics.js';
import { createHookMetrics } from '../../hooks/server/metrics.js';
import { DASHBOARD_FILE, dashboardJSON } from '../../scripts/dashboard.js';
import { ROOT } from '../../scripts/chart-sync.js';
import { renderHostsSVG } from '../../devenv/charts.js';
import { hostsByState } from '../../scripts/metrics-svg.js';
import { ofKind } from '../support/controller-objects.js';
import { prepareChart, removeScratchCharts, render, type RenderedObject } from '../support/helm.js';

/** Every exported series name with its label names, from the real registries. */
function exportedSeries(): Map<string, Set<string>> {
  const pool = createPoolMetrics();
  createClusterRequestMetrics(pool.registry);
  const hooks = createHookMetrics();
  const series = new Map<string, Set<string>>();
  for (const metric of [...pool.registry.getMetricsAsArray(), ...hooks.registry.getMetricsAsArray()]) {
    const { name, labelNames = [] } = metric as unknown as { name: string; labelNames?: string[] };
    const type = (metric as unknown as { type: string }).type;
    const suffixes = type === 'histogram' ? [['_bucket', 'le'], ['_count'], ['_sum']] : [['']];
    for (const [suffix, ...extra] of suffixes) series.set(`${name}${suffix ?? ''}`, new Set([...labelNames, ...extra]));
  }
  return series;
}

interface Selected {
  metric: string;
  matchedLabels: string[];
}

/** Parses PromQL (Grafana's $__rate_interval as 5m); the selectors, grouping labels and syntax errors. */
function analyse(expr: string): { selectors: Selected[]; grouping: string[]; errors: string[] } {
  const text = expr.replaceAll('$__rate_interval', '5m');
  const out = { selectors: [] as Selected[], grouping: [] as string[], errors: [] as string[] };
  const slice = (node: SyntaxNode): string => text.slice(node.from, node.to);
  parser.parse(text).iterate({
    enter: (ref) => {
      if (ref.type.isError) out.errors.push(`syntax error at ${ref.from}: ${text.slice(ref.from, ref.from + 20)}`);
      if (ref.name === 'VectorSelector') {
        const name = ref.node.getChild('Identifier');
        const matchers = ref.node.getChild('LabelMatchers');
        const labels = matchers === null ? [] : matchers.getChildren('UnquotedLabelMatcher').map((m) => slice(m.getChild('LabelName') as SyntaxNode));
        out.selectors.push({ metric: name === null ? '' : slice(name), matchedLabels: labels });
      }
      if (ref.name === 'GroupingLabels') out.grouping.push(...ref.node.getChildren('LabelName').map(slice));
    },
  });
  return out;
}

/** What is wrong with one expression against the exported series; empty when nothing is. */
function problems(expr: string, series: Map<string, Set<string>>): string[] {
  const { selectors, grouping, errors } = analyse(expr);
  const found = [...errors];
  const available = new Set<string>();
  for (const { metric, matchedLabels } of selectors) {
    const labels = series.get(metric);
    if (labels === undefined) {
      found.push(`${metric} is not exported`);
      continue;
    }
    labels.forEach((l) => available.add(l));
    found.push(...matchedLabels.filter((l) => !labels.has(l)).map((l) => `${metric} has no label ${l}`));
  }
  found.push(...grouping.filter((l) => !available.has(l)).map((l) => `grouping by ${l}, which no selected series has`));
  return found;
}

const SERIES = exportedSeries();

function dashboardExprs(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
}

describe('the PromQL checker', () => {
  it.each([
    { name: 'an unknown metric', expr: 'sum(ironhook_no_such_metric)', want: 'ironhook_no_such_metric is not exported' },
    { name: 'a label the metric lacks', expr: 'ironhook_hosts{driver="redfish"}', want: 'ironhook_hosts has no label driver' },
    { name: 'grouping by a missing label', expr: 'sum by (op) (ironhook_hosts)', want: 'grouping by op, which no selected series has' },
    { name: 'a syntax error', expr: 'sum(ironhook_hosts', want: 'syntax error' },
  ])('finds $name', ({ expr, want }) => {
    expect(problems(expr, SERIES).join('; ')).toContain(want);
  });
});

describe('the Grafana dashboard', () => {
  it('is the one scripts/dashboard.ts writes (npx tsx scripts/dashboard.ts)', () => {
    expect(readFileSync(DASHBOARD_FILE, 'utf8')).toBe(dashboardJSON());
  });

  it('has unique panel ids and panels that do not overlap on the grid', () => {
    const { panels } = JSON.parse(dashboardJSON()) as { panels: { id: number; gridPos: { x: number; y: number; w: number; h: number } }[] };
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    for (const { gridPos: g } of panels) {
      for (let x = g.x; x < g.x + g.w; x += 1) for (let y = g.y; y < g.y + g.h; y += 1) cells.add(`${x},${y}`);
    }
    expect(cells.size).toBe(panels.reduce((sum, { gridPos: g }) => sum + g.w * g.h, 0));
  });

  it.each(dashboardExprs())('queries exported series: %s', (expr) => {
    expect(problems(expr, SERIES)).toEqual([]);
  });
});

describe('the chart', () => {
  let defaults: RenderedObject[];
  let enabled: RenderedObject[];
  beforeAll(async () => {
    const chart = prepareChart();
    defaults = await render(chart.dir);
    enabled = await render(chart.dir, { set: ['metrics.dashboard.enabled=true', 'metrics.prometheusRule.enabled=true'] });
  }, 600_000);
  afterAll(() => {
    removeScratchCharts();
  });

  it('renders neither the dashboard nor the alerts by default', () => {
    expect(ofKind(defaults, 'PrometheusRule')).toEqual([]);
    expect(ofKind(defaults, 'ConfigMap').filter((c) => c.metadata.name.endsWith('-dashboard'))).toEqual([]);
  });

  it('ships the dashboard JSON in a ConfigMap labelled for the Grafana sidecar', () => {
    const [configMap] = ofKind(enabled, 'ConfigMap').filter((c) => c.metadata.name.endsWith('-dashboard'));
    expect(configMap?.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse((configMap as unknown as { data: Record<string, string> }).data['ironhook-hosts.json'] ?? '')).toEqual(JSON.parse(dashboardJSON()));
  });

  it('has alerts on exported series, each with a runbook anchor that exists in docs/troubleshooting.md', () => {
    const [rule] = ofKind(enabled, 'PrometheusRule');
    const groups = (rule?.spec as { groups: { rules: { alert: string; expr: string; annotations: { runbook_url: string } }[] }[] }).groups;
    const rules = groups.flatMap((g) => g.rules);
    const guide = readFileSync(join(ROOT, 'docs', 'troubleshooting.md'), 'utf8');
    const anchors = new Set([...guide.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
    expect(rules.length).toBeGreaterThan(6);
    for (const { alert, expr, annotations } of rules) {
      expect({ alert, problems: problems(expr, SERIES) }).toEqual({ alert, problems: [] });
      const anchor = annotations.runbook_url.split('#')[1] ?? '';
      expect({ alert, anchor, known: anchors.has(anchor) }).toEqual({ alert, anchor, known: true });
    }
  });
});

describe('the rendered panel (scripts/metrics-svg.ts)', () => {
  const exposition = [
    '# TYPE ironhook_hosts gauge',
    'ironhook_hosts{state="available"} 2',
    'ironhook_hosts{state="registering"} 1',
    'ironhook_hosts_errors{error_type="x"} 1',
  ].join('\n');

  it('reads ironhook_hosts from a real exposition', async () => {
    const metrics = createPoolMetrics({ defaultMetrics: false });
    metrics.fleet.source = () => ({ hostsByState: new Map([['provisioned', 3]]), oldestSecondsByState: new Map(), errorsByType: new Map() });
    expect(hostsByState(await metrics.registry.metrics())).toEqual({ provisioned: 3 });
    expect(hostsByState(exposition)).toEqual({ available: 2, registering: 1 });
  });

  it('stacks the states in lifecycle order, one band and one legend entry each, deterministically', () => {
    const samples = [
      { t: 0, hostsByState: { registering: 3 } },
      { t: 10, hostsByState: hostsByState(exposition) },
    ];
    const svg = renderHostsSVG(samples, 'Hosts');
    expect(svg).toBe(renderHostsSVG(samples, 'Hosts'));
    expect(svg.match(/<polygon /g)).toHaveLength(2);
    expect([...svg.matchAll(/<text x="\d+" y="\d+">([a-z ]+)<\/text>/g)].map((m) => m[1])).toEqual(['available', 'registering']);
  });
});
