// Just enough of the Prometheus text format for the scale bench: series with their labels,
// sums grouped by a label, the difference of two scrapes, and a quantile from histogram buckets
// (linear inside a bucket, as PromQL's histogram_quantile).

export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/u;
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/gu;

export function parseExposition(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1] ?? ''] = label[2] ?? '';
    out.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return out;
}

function key(series: Series): string {
  return `${series.name}${JSON.stringify(Object.entries(series.labels).sort())}`;
}

/** after − before, series by series (a series missing before counts from 0). */
export function delta(before: readonly Series[], after: readonly Series[]): Series[] {
  const earlier = new Map(before.map((series) => [key(series), series.value]));
  return after.map((series) => ({ ...series, value: series.value - (earlier.get(key(series)) ?? 0) }));
}

/** Sum of `name`'s series whose labels include `where`, grouped by the values of `by` (joined with " "). */
export function sumBy(series: readonly Series[], name: string, by: readonly string[], where: Record<string, string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of series) {
    if (!matches(item, name, where)) continue;
    const group = by.map((label) => item.labels[label] ?? '').join(' ');
    out[group] = (out[group] ?? 0) + item.value;
  }
  return out;
}

function matches(item: Series, name: string, where: Record<string, string>): boolean {
  return item.name === name && Object.entries(where).every(([label, value]) => item.labels[label] === value);
}

/** The cumulative buckets of histogram `name`, summed over all other labels, by upper bound. */
function buckets(series: readonly Series[], name: string, where: Record<string, string>): [number, number][] {
  const out = new Map<number, number>();
  for (const item of series) {
    if (!matches(item, `${name}_bucket`, where)) continue;
    const bound = item.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(item.labels.le);
    out.set(bound, (out.get(bound) ?? 0) + item.value);
  }
  return [...out.entries()].sort(([a], [b]) => a - b);
}

/** The q-quantile of histogram `name`, in its unit; undefined without observations. */
export function quantile(series: readonly Series[], name: string, q: number, where: Record<string, string> = {}): number | undefined {
  const sorted = buckets(series, name, where);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [bound, count] of sorted) {
    // Past the last finite bound PromQL answers that bound; so does this.
    if (count >= rank) return Number.isFinite(bound) ? lower + (bound - lower) * ((rank - below) / Math.max(count - below, Number.EPSILON)) : lower;
    [lower, below] = [bound, count];
  }
  return lower;
}
