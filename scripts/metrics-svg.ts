// Draws one dashboard panel, "Hosts by provisioning state", as an SVG from a real run: samples a
// driver pool's /metrics (ironhook_hosts{state}) every few seconds, then writes a stacked area
// chart. docs/helm.md shows the result of sampling `npm run demo`:
//
//   npm run demo &   # then, once the pool answers:
//   npx tsx scripts/metrics-svg.ts --url http://127.0.0.1:19090/metrics --seconds 150 --out docs/images/hosts-by-state.svg
import { writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface Sample {
  /** Seconds since the first sample. */
  t: number;
  hostsByState: Record<string, number>;
}

/** The `ironhook_hosts{state="…"} N` series of a Prometheus text exposition. */
export function hostsByState(exposition: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of exposition.matchAll(/^ironhook_hosts\{state="([^"]*)"\} ([0-9.e+-]+)$/gm)) {
    out[match[1] ?? ''] = Number(match[2]);
  }
  return out;
}

// The lifecycle's order, bottom to top; states not listed follow, sorted.
const STATE_ORDER = [
  'none',
  'registering',
  'inspecting',
  'preparing',
  'available',
  'provisioning',
  'provisioned',
  'externally provisioned',
  'deprovisioning',
  'powering off before delete',
  'deleting',
  'unmanaged',
];
const COLOURS = ['#9e9e9e', '#f2cc0c', '#ff9830', '#fade2a', '#73bf69', '#5794f2', '#1f60c4', '#8ab8ff', '#b877d9', '#f2495c', '#c4162a', '#ccccdc'];
const SIZE = { width: 720, height: 320, left: 48, right: 190, top: 36, bottom: 36 };

function orderedStates(samples: readonly Sample[]): string[] {
  const seen = new Set(samples.flatMap((s) => Object.keys(s.hostsByState)));
  const known = STATE_ORDER.filter((s) => seen.has(s));
  return [...known, ...[...seen].filter((s) => !STATE_ORDER.includes(s)).sort()];
}

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Scale {
  x: (t: number) => number;
  y: (v: number) => number;
  maxT: number;
  maxV: number;
}

function scaleOf(samples: readonly Sample[]): Scale {
  const maxT = Math.max(1, ...samples.map((s) => s.t));
  const maxV = Math.max(1, ...samples.map((s) => Object.values(s.hostsByState).reduce((a, b) => a + b, 0)));
  const plotW = SIZE.width - SIZE.left - SIZE.right;
  const plotH = SIZE.height - SIZE.top - SIZE.bottom;
  return { maxT, maxV, x: (t) => SIZE.left + (t / maxT) * plotW, y: (v) => SIZE.top + plotH - (v / maxV) * plotH };
}

/** One band of the stack: the polygon between the sums below a state and including it. */
function band(samples: readonly Sample[], states: readonly string[], index: number, scale: Scale): string {
  const below = (s: Sample): number => states.slice(0, index).reduce((sum, state) => sum + (s.hostsByState[state] ?? 0), 0);
  const top = samples.map((s) => `${fmt(scale.x(s.t))},${fmt(scale.y(below(s) + (s.hostsByState[states[index] ?? ''] ?? 0)))}`);
  const bottom = [...samples].reverse().map((s) => `${fmt(scale.x(s.t))},${fmt(scale.y(below(s)))}`);
  return `<polygon fill="${COLOURS[STATE_ORDER.indexOf(states[index] ?? '') % COLOURS.length] ?? '#ccccdc'}" fill-opacity="0.85" points="${[...top, ...bottom].join(' ')}"/>`;
}

function axes(scale: Scale): string[] {
  const bottom = SIZE.height - SIZE.bottom;
  const right = SIZE.width - SIZE.right;
  const parts = [
    `<line x1="${SIZE.left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#555"/>`,
    `<line x1="${SIZE.left}" y1="${SIZE.top}" x2="${SIZE.left}" y2="${bottom}" stroke="#555"/>`,
  ];
  for (let v = 0; v <= scale.maxV; v += Math.max(1, Math.ceil(scale.maxV / 5))) {
    parts.push(`<text x="${SIZE.left - 6}" y="${fmt(scale.y(v) + 4)}" text-anchor="end">${v}</text>`);
  }
  const step = Math.max(10, Math.ceil(scale.maxT / 6 / 10) * 10);
  for (let t = 0; t <= scale.maxT; t += step) {
    parts.push(`<text x="${fmt(scale.x(t))}" y="${bottom + 16}" text-anchor="middle">${t}s</text>`);
  }
  return parts;
}

function legend(states: readonly string[]): string[] {
  const x = SIZE.width - SIZE.right + 16;
  return [...states].reverse().flatMap((state, i) => {
    const y = SIZE.top + i * 18;
    const colour = COLOURS[STATE_ORDER.indexOf(state) % COLOURS.length] ?? '#ccccdc';
    return [`<rect x="${x}" y="${y}" width="12" height="12" fill="${colour}"/>`, `<text x="${x + 18}" y="${y + 10}">${escape(state)}</text>`];
  });
}

/** A stacked area chart of hosts per state over time; deterministic for the same samples. */
export function renderHostsSVG(samples: readonly Sample[], title: string): string {
  const states = orderedStates(samples);
  const scale = scaleOf(samples);
  const body = [
    `<rect width="${SIZE.width}" height="${SIZE.height}" fill="#ffffff"/>`,
    `<text x="${SIZE.left}" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`,
    ...states.map((_, index) => band(samples, states, index, scale)),
    ...axes(scale),
    ...legend(states),
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE.width}" height="${SIZE.height}" font-family="sans-serif" font-size="11">\n${body.map((line) => `  ${line}`).join('\n')}\n</svg>\n`;
}

/** Samples for `seconds` from the first answer that has the series (the pool may still be starting). */
async function sample(url: string, seconds: number, intervalSeconds: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  let first: number | undefined;
  while (first === undefined || Date.now() - first < seconds * 1000) {
    const response = await fetch(url).catch(() => undefined);
    const states = response?.ok === true ? hostsByState(await response.text()) : {};
    if (Object.keys(states).length > 0) {
      first ??= Date.now();
      samples.push({ t: Math.round((Date.now() - first) / 1000), hostsByState: states });
    }
    await delay(intervalSeconds * 1000);
  }
  return samples;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      seconds: { type: 'string', default: '150' },
      interval: { type: 'string', default: '2' },
      out: { type: 'string' },
      title: { type: 'string', default: 'Hosts by provisioning state (ironhook_hosts)' },
    },
  });
  if (values.url === undefined || values.out === undefined) {
    throw new Error('usage: metrics-svg.ts --url <pool /metrics URL> --out <file.svg> [--seconds 150] [--interval 2]');
  }
  const samples = await sample(values.url, Number(values.seconds), Number(values.interval));
  if (samples.length < 2) {
    throw new Error(`fewer than two samples with ironhook_hosts from ${values.url}: is the pool running and leading?`);
  }
  writeFileSync(values.out, renderHostsSVG(samples, values.title));
  console.log(`${values.out}: ${String(samples.length)} samples over ${String(samples.at(-1)?.t ?? 0)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
