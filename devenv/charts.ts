// SVG charts for the docs, drawn from real runs and deterministic for the same samples: hosts
// per provisioning state as a stacked area (scripts/metrics-svg.ts, the scale bench) and lines of
// any per-process series (the scale bench's CPU and memory).

export interface Sample {
  /** Seconds since the first sample. */
  t: number;
  hostsByState: Record<string, number>;
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

export interface LineSeries {
  name: string;
  /** [seconds, value] pairs in time order. */
  points: readonly (readonly [number, number])[];
}

const LINE_COLOURS = ['#1f60c4', '#f2495c', '#73bf69', '#ff9830', '#b877d9', '#8ab8ff', '#fade2a', '#c4162a', '#9e9e9e', '#5794f2'];

/** A round step that gives about five ticks up to `max`. */
function tickStep(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  return ([1, 2, 5, 10].map((m) => m * magnitude).find((step) => step >= raw) ?? raw) || 1;
}

function lineAxes(maxT: number, maxV: number, unit: string, scale: Pick<Scale, 'x' | 'y'>): string[] {
  const bottom = SIZE.height - SIZE.bottom;
  const right = SIZE.width - SIZE.right;
  const parts = [
    `<line x1="${SIZE.left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#555"/>`,
    `<line x1="${SIZE.left}" y1="${SIZE.top}" x2="${SIZE.left}" y2="${bottom}" stroke="#555"/>`,
  ];
  const step = tickStep(maxV);
  for (let v = 0; v <= maxV + step / 1000; v += step) {
    parts.push(`<line x1="${SIZE.left}" y1="${fmt(scale.y(v))}" x2="${right}" y2="${fmt(scale.y(v))}" stroke="#eee"/>`);
    parts.push(`<text x="${SIZE.left - 6}" y="${fmt(scale.y(v) + 4)}" text-anchor="end">${fmt(v)}</text>`);
  }
  const tStep = Math.max(10, Math.ceil(maxT / 6 / 10) * 10);
  for (let t = 0; t <= maxT; t += tStep) parts.push(`<text x="${fmt(scale.x(t))}" y="${bottom + 16}" text-anchor="middle">${t}s</text>`);
  parts.push(`<text x="${SIZE.left}" y="${SIZE.top - 6}">${escape(unit)}</text>`);
  return parts;
}

/** One line per series over a shared time axis, with a legend; deterministic for the same input. */
export function renderLinesSVG(series: readonly LineSeries[], title: string, unit: string): string {
  const all = series.flatMap((line) => line.points);
  const maxT = Math.max(1, ...all.map(([t]) => t));
  const maxV = Math.max(tickStep(Math.max(1e-9, ...all.map(([, v]) => v))), ...all.map(([, v]) => v));
  const plotW = SIZE.width - SIZE.left - SIZE.right;
  const plotH = SIZE.height - SIZE.top - SIZE.bottom;
  const scale = { x: (t: number) => SIZE.left + (t / maxT) * plotW, y: (v: number) => SIZE.top + plotH - (v / maxV) * plotH };
  const x = SIZE.width - SIZE.right + 16;
  const lines = series.flatMap((line, i) => {
    const colour = LINE_COLOURS[i % LINE_COLOURS.length] ?? '#555';
    const points = line.points.map(([t, v]) => `${fmt(scale.x(t))},${fmt(scale.y(v))}`).join(' ');
    return [
      `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points}"/>`,
      `<rect x="${x}" y="${SIZE.top + i * 18}" width="12" height="12" fill="${colour}"/>`,
      `<text x="${x + 18}" y="${SIZE.top + i * 18 + 10}">${escape(line.name)}</text>`,
    ];
  });
  const body = [
    `<rect width="${SIZE.width}" height="${SIZE.height}" fill="#ffffff"/>`,
    `<text x="${SIZE.left}" y="18" font-size="14" font-weight="bold">${escape(title)}</text>`,
    ...lineAxes(maxT, maxV, unit, scale),
    ...lines,
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE.width}" height="${SIZE.height}" font-family="sans-serif" font-size="11">\n${body.map((line) => `  ${line}`).join('\n')}\n</svg>\n`;
}
