// The chart's local profile (ci/local-node-values.yaml) for a single loopback-only node, and the
// update strategies it relies on: pods on the host network hold their ports exclusively, so a
// rollout must stop the old pod before the new one starts, and every listener binds 127.0.0.1.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { prepareChart, removeScratchCharts, render, type RenderedObject } from '../support/helm.js';

interface Container {
  image: string;
  imagePullPolicy: string;
  args?: string[];
  env?: { name: string; value?: string }[];
}
interface Workload {
  strategy?: { type: string; rollingUpdate?: { maxUnavailable: number; maxSurge: number } };
  template: { spec: { containers: Container[] } };
}

let defaults: RenderedObject[] = [];
let local: RenderedObject[] = [];

beforeAll(async () => {
  const chart = prepareChart();
  defaults = await render(chart.dir, { values: ['charts/ironhook/ci/default-values.yaml'] });
  local = await render(chart.dir, { values: ['charts/ironhook/ci/local-node-values.yaml'] });
}, 600_000);

afterAll(() => {
  removeScratchCharts();
});

function workload(objects: RenderedObject[], kind: string, name: string): Workload {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found.spec as Workload;
}
const envOf = (c: Container | undefined, name: string): string | undefined => c?.env?.find((e) => e.name === name)?.value;

describe('update strategies', () => {
  it.each([
    {
      name: 'defaults: hooks never below their replicas, the pool on Kubernetes defaults',
      objects: () => defaults,
      hooks: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      drivers: undefined,
    },
    {
      name: 'local node: the old pod goes first, and helm --wait waits for the new one',
      objects: () => local,
      hooks: { type: 'Recreate' },
      drivers: { type: 'Recreate' },
    },
  ])('$name', ({ objects, hooks, drivers }) => {
    expect(workload(objects(), 'Deployment', 'ironhook-hooks').strategy).toEqual(hooks);
    expect(workload(objects(), 'Deployment', 'ironhook-drivers').strategy).toEqual(drivers);
  });
});

describe('the local-node profile', () => {
  it('runs local images that are never pulled', () => {
    for (const [kind, name] of [
      ['Deployment', 'ironhook-hooks'],
      ['Deployment', 'ironhook-drivers'],
      ['StatefulSet', 'ironhook-metacontroller'],
    ] as const) {
      const container = workload(local, kind, name).template.spec.containers[0];
      expect(container?.image, name).toMatch(/^localhost\//u);
      expect(container?.imagePullPolicy, name).toBe('Never');
    }
  });

  it('binds every listener to 127.0.0.1 and calls the hooks there', () => {
    expect(envOf(workload(local, 'Deployment', 'ironhook-hooks').template.spec.containers[0], 'HOST')).toBe('127.0.0.1');
    const pool = workload(local, 'Deployment', 'ironhook-drivers').template.spec.containers[0];
    expect([envOf(pool, 'METRICS_BIND_ADDRESS'), envOf(pool, 'AGENT_API_HOST')]).toEqual(['127.0.0.1', '127.0.0.1']);
    const args = workload(local, 'StatefulSet', 'ironhook-metacontroller').template.spec.containers[0]?.args ?? [];
    expect(args.filter((a) => /address=/u.test(a))).toEqual(['--health-probe-bind-address=127.0.0.1:8081', '--metrics-address=127.0.0.1:9999']);
    const urls = local
      .filter((o) => o.kind === 'CompositeController' || o.kind === 'DecoratorController')
      .flatMap((o) => JSON.stringify(o.spec).match(/"url":"[^"]+"/gu) ?? []);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((u) => !u.startsWith('"url":"http://127.0.0.1:8080/'))).toEqual([]);
  });
});
