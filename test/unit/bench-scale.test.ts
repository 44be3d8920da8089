// The scale bench's pure parts: the Prometheus text it reads, the quantiles it reports, the idle
// diff, and the document blocks it writes (devenv/scale/).
import { describe, expect, it } from 'vitest';
import { scalePart, upsertBlock } from '../../devenv/scale/doc.js';
import { differingPaths } from '../../devenv/scale/phases.js';
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
