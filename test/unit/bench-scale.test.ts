// The scale bench's pure parts: the Prometheus text it reads, the quantiles it reports, the idle
// diff, the document blocks it writes, the side-by-side figures (devenv/scale/) and the upstream
// inspection stand-in's inventory (devenv/upstream/).
import { describe, expect, it } from 'vitest';
import { comparison, figures } from '../../devenv/scale/compare.js';
import { scalePart, upsertBlock } from '../../devenv/scale/doc.js';
import { differingPaths, type PhaseResult } from '../../devenv/scale/phases.js';
import type { ScaleReport } from '../../devenv/scale/run.js';
import { inventoryFor } from '../../devenv/upstream/inspection.js';
import { delta, parseExposition, quantile, sumBy } from '../../devenv/scale/prometheus.js';

const SCRAPE = `# HELP apiserver_request_total Counter
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",resource="baremetalhosts",subresource="status",verb="PUT"} 10
apiserver_request_total{code="409",resource="baremetalhosts",subresource="status",verb="PUT"} 2
apiserver_request_total{code="200",resource="baremetalhosts",subresource="",verb="GET"} 30
hook_seconds_bucket{hook="sync",le="0.01"} 50
hook_seconds_bucket{hook="sync",le="0.1"} 90
hook_seconds_bucket{hook="sync",le="1"} 100
hook_seconds_bucket{hook="sync",le="+Inf"} 100
hook_seconds_bucket{hook="finalize",le="0.01"} 0
hook_seconds_bucket{hook="finalize",le="0.1"} 0
hook_seconds_bucket{hook="finalize",le="1"} 0
hook_seconds_bucket{hook="finalize",le="+Inf"} 0
`;

describe('Prometheus text', () => {
  const series = parseExposition(SCRAPE);

  it('parses series with their labels and sums them by label', () => {
    expect(sumBy(series, 'apiserver_request_total', ['verb', 'subresource'])).toEqual({ 'PUT status': 12, 'GET ': 30 });
    expect(sumBy(series, 'apiserver_request_total', [], { code: '409' })).toEqual({ '': 2 });
  });

  it.each([
    { name: 'median inside the first bucket', q: 0.5, expected: 0.01 },
    { name: 'p90 at a bucket bound', q: 0.9, expected: 0.1 },
    { name: 'p99 interpolated in the last finite bucket', q: 0.99, expected: 0.1 + 0.9 * 0.9 },
  ])('quantile: $name', ({ q, expected }) => {
    expect(quantile(series, 'hook_seconds', q)).toBeCloseTo(expected, 6);
  });

  it('has no quantile without observations, and subtracts scrapes series by series', () => {
    expect(quantile(series, 'hook_seconds', 0.5, { hook: 'finalize' })).toBeUndefined();
    const later = parseExposition(SCRAPE.replace('verb="GET"} 30', 'verb="GET"} 45'));
    expect(sumBy(delta(series, later), 'apiserver_request_total', ['verb'])).toEqual({ PUT: 0, GET: 15 });
  });
});

describe('what changed on an idle host', () => {
  it.each([
    { name: 'nothing', a: { status: { poweredOn: true } }, b: { status: { poweredOn: true } }, paths: [] },
    {
      name: 'a nested value',
      a: { status: { lastUpdated: 'x', poweredOn: true } },
      b: { status: { lastUpdated: 'y', poweredOn: true } },
      paths: ['status.lastUpdated'],
    },
    { name: 'a field that appeared', a: { status: {} }, b: { status: { errorMessage: 'boom' } }, paths: ['status.errorMessage'] },
    { name: 'a list', a: { status: { history: [1] } }, b: { status: { history: [1, 2] } }, paths: ['status.history.1'] },
  ])('$name', ({ a, b, paths }) => {
    expect(differingPaths(a, b)).toEqual(paths);
  });
});

describe('the scale blocks of docs/benchmarks.md', () => {
  const doc = '# Benchmarks\n\n## Hook\n\nnumbers\n';

  it('adds the marker and a block, replaces the block, and keeps text around it', () => {
    const first = upsertBlock(doc, '00100', '### 100 hosts\nrun 1');
    expect(first).toContain('<!-- bench:scale -->\n\n<!-- scale:00100 -->\n### 100 hosts\nrun 1\n<!-- /scale:00100 -->\n');
    const withNotes = `${first}\nWhat we changed.\n`;
    const second = upsertBlock(withNotes, '00100', '### 100 hosts\nrun 2');
    expect(second).not.toContain('run 1');
    expect(second).toContain('run 2');
    expect(second).toContain('What we changed.');
    const third = upsertBlock(second, '01000', '### 1000 hosts');
    expect(third.indexOf('scale:00100')).toBeLessThan(third.indexOf('scale:01000'));
  });

  it('npm run bench keeps everything from the marker on', () => {
    expect(scalePart(doc)).toBe('');
    expect(scalePart(upsertBlock(doc, '00010', 'x'))).toBe('<!-- bench:scale -->\n\n<!-- scale:00010 -->\nx\n<!-- /scale:00010 -->\n');
  });
});

describe('the side-by-side with upstream', () => {
  const metrics = {
    apiRequests: {},
    apiRequestsTotal: 600,
    hostStatusWrites: 0,
    hookCalls: 0,
    hookP50Ms: undefined,
    hookP99Ms: undefined,
    syncP50Ms: undefined,
    syncP99Ms: undefined,
  };
  const phase = (name: PhaseResult['name'], seconds: number, cpuSeconds: Record<string, number>): PhaseResult => ({
    name,
    seconds,
    perMinute: [],
    cpuSeconds,
    metrics,
  });
  const report = (stack: 'ironhook' | 'upstream', phases: PhaseResult[], peakRssMiB: Record<string, number>): ScaleReport => ({
    stack,
    settings: { hosts: 100, hostsPerEmulator: 50, powerDelayMs: 200, image: 'live-iso', idleMinutes: 1, phaseTimeoutMinutes: 60, sampleSeconds: 5 },
    startedAt: '2026-12-07T00:00:00Z',
    passed: true,
    phases,
    peakRssMiB,
    maxQueueDepth: {},
    states: [],
    usage: [],
  });
  const ours = report(
    'ironhook',
    [phase('enrol', 60, { hooks: 40, pool: 50, metacontroller: 10, apiserver: 99 }), phase('idle', 120, { hooks: 0.6, pool: 0.6, metacontroller: 0 })],
    { hooks: 100, pool: 200, metacontroller: 100, apiserver: 999 },
  );
  const theirs = report(
    'upstream',
    [phase('enrol', 600, { ironic: 1200, 'baremetal-operator': 50, apiserver: 50 }), phase('idle', 120, { ironic: 180, 'baremetal-operator': 12 })],
    { ironic: 340, 'baremetal-operator': 70 },
  );

  it.each([
    { name: 'hosts per minute, from the enrol wall time', side: ours, field: 'hostsPerMinute', value: 100 },
    { name: 'only the controllers count as each side’s CPU', side: ours, field: 'enrolCPUPerHost', value: 1 },
    { name: 'every process counts in the other figure', side: ours, field: 'enrolCPUPerHostAll', value: 1.99 },
    { name: 'upstream’s controllers are BMO and Ironic', side: theirs, field: 'enrolCPUPerHost', value: 12.5 },
    { name: 'peak memory of the controllers', side: theirs, field: 'peakMiB', value: 410 },
    { name: 'idle share of one core', side: theirs, field: 'idleCorePercent', value: 160 },
  ] as const)('$name', ({ side, field, value }) => {
    expect(figures(side)?.[field]).toBeCloseTo(value, 6);
  });

  it('writes Ironhook-better-by ratios against the goals, and nothing without an enrol phase', () => {
    const section = comparison(ours, theirs, 'images/x') ?? '';
    expect(section).toContain('| hosts per minute to available | 100.0 | 10.0 | 10× | ≥ 5× |');
    expect(section).toContain('| controllers CPU-s per host, enrolling | 1.00 | 12.50 | 13× | ≥ 10× |');
    expect(section).toContain('| controllers peak memory, MiB | 400 | 410 | 1.0× | ≥ 3× |');
    expect(section).toContain('| idle cost per host, % of one core | 0.0100 | 1.6000 | 160× | ≥ 100× |');
    expect(comparison({ ...ours, phases: [] }, theirs, 'images/x')).toBeUndefined();
  });
});

describe("the upstream inspection stand-in's inventory", () => {
  it('reports one NIC per MAC on documentation addresses and PXE-boots from the first', () => {
    const inventory = inventoryFor(['52:54:00:5b:00:01', '52:54:00:5b:00:02']) as {
      interfaces: { mac_address: string; ipv4_address: string }[];
      boot: { pxe_interface: string };
    };
    expect(inventory.interfaces.map((nic) => [nic.mac_address, nic.ipv4_address])).toEqual([
      ['52:54:00:5b:00:01', '192.0.2.10'],
      ['52:54:00:5b:00:02', '192.0.2.11'],
    ]);
    expect(inventory.boot.pxe_interface).toBe('52:54:00:5b:00:01');
  });
});
