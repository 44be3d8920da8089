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
import { renderHostsSVG, type Sample } from '../devenv/charts.js';

/** The `ironhook_hosts{state="…"} N` series of a Prometheus text exposition. */
export function hostsByState(exposition: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of exposition.matchAll(/^ironhook_hosts\{state="([^"]*)"\} ([0-9.e+-]+)$/gm)) {
    out[match[1] ?? ''] = Number(match[2]);
  }
  return out;
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
