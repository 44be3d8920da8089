// Writes a copy of charts/ironhook without the metacontroller-helm dependency, for installing
// from a checkout into a cluster that already runs Metacontroller when the upstream chart cannot
// be fetched (scripts/chart-deps.sh exits 3). Helm refuses to render a chart whose declared
// dependency is missing from charts/, even when its condition is false.
//
//   npx tsx scripts/chart-standalone.ts [OUT_DIR]     default: .ironhook/chart-standalone/ironhook
//
// The copy's values.yaml defaults to metacontroller.enabled=false; everything else is identical.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDocument } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '..');
export const CHART_DIR = join(ROOT, 'charts', 'ironhook');
export const DEFAULT_OUT = join(ROOT, '.ironhook', 'chart-standalone', 'ironhook');
export const DEPENDENCY_NAME = 'metacontroller-helm';

export interface StandaloneOptions {
  /** Flip the copy's default metacontroller.enabled to false (true for installs; tests keep the real defaults). */
  disableMetacontroller: boolean;
}

/** Chart.yaml without the metacontroller-helm dependency (other dependencies are kept). */
export function standaloneChartYaml(text: string): string {
  const doc = parseDocument(text);
  const deps: unknown = (doc.toJS() as { dependencies?: unknown } | null)?.dependencies;
  if (!Array.isArray(deps)) return text;
  const kept = deps.filter((d: unknown) => (d as { name?: unknown }).name !== DEPENDENCY_NAME);
  if (kept.length === 0) doc.delete('dependencies');
  else doc.set('dependencies', kept);
  return doc.toString();
}

function disableMetacontroller(text: string): string {
  const doc = parseDocument(text);
  doc.setIn(['metacontroller', 'enabled'], false);
  return doc.toString();
}

/** Copies the chart (without its charts/ folder) to `out`, replacing what was there. */
export function writeStandaloneChart(out: string, options: StandaloneOptions): string {
  const target = resolve(out);
  if (target === CHART_DIR || target.startsWith(CHART_DIR + sep)) throw new Error(`refusing to write into ${CHART_DIR}`);
  if (existsSync(target)) rmSync(target, { recursive: true });
  mkdirSync(target, { recursive: true });
  const skip = join(CHART_DIR, 'charts');
  cpSync(CHART_DIR, target, { recursive: true, filter: (src) => src !== skip && !src.startsWith(skip + sep) });
  const chartYaml = join(target, 'Chart.yaml');
  writeFileSync(chartYaml, standaloneChartYaml(readFileSync(chartYaml, 'utf8')));
  if (options.disableMetacontroller) {
    const values = join(target, 'values.yaml');
    writeFileSync(values, disableMetacontroller(readFileSync(values, 'utf8')));
  }
  return target;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = writeStandaloneChart(process.argv[2] ?? DEFAULT_OUT, { disableMetacontroller: true });
  console.log(`chart-standalone: wrote ${relative(process.cwd(), out) || '.'} (no ${DEPENDENCY_NAME} dependency, metacontroller.enabled=false)`);
}
