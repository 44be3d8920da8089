// `npm run bench:scale` (docs/dev/scale.md): N emulated hosts through the real stack (etcd,
// kube-apiserver, Metacontroller, hooks, driver pool, Redfish emulators and fake agents, all
// on 127.0.0.1), from apply to available, to provisioned, idle, and deleted; one run per N.
// Writes .ironhook/bench-scale/<N>.json, the SVG pictures in docs/images/ and the run's block of
// docs/benchmarks.md. Numbers, not assertions: exits 1 only when a run did not finish.
//
//   BENCH_HOSTS=100,300,1000  BENCH_IDLE_MINUTES=10  BENCH_IMAGE=live-iso|disk
//   BENCH_HOSTS_PER_EMULATOR=50  BENCH_POWER_DELAY_MS=200  BENCH_PHASE_TIMEOUT_MINUTES=60
//   BENCH_KEEP_LOGS=1  BENCH_DOCS=0 (JSON only)  BENCH_POOL_<NAME>=value (pool environment, e.g. BENCH_POOL_POOL_CONCURRENCY=40)
//   BENCH_METACONTROLLER_FLAGS='--workers=20 --client-go-qps=150' (replace the chart's flags of the same name)
//   IRONHOOK_RUN_FROM=tsx (hooks and pool from the sources; default: dist/, built first, as the image runs them)
//   BENCH_UPSTREAM=1 then upstream Metal3 (baremetal-operator + Ironic, scripts/setup-upstream.sh) on the same
//     rack, enrol and idle, and the side-by-side section; BENCH_UPSTREAM=only runs upstream alone (JSON only)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../devenv/environment.js';
import { comparison } from '../devenv/scale/compare.js';
import { upsertBlock } from '../devenv/scale/doc.js';
import { markdown, pictures } from '../devenv/scale/report.js';
import { runScale, type ScaleReport, type ScaleSettings } from '../devenv/scale/run.js';
import { runUpstream } from '../devenv/upstream/run.js';

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, not ${String(env[name])}`);
  return value;
}

function prefixed(env: NodeJS.ProcessEnv, prefix: string): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).flatMap(([key, value]) => (key.startsWith(prefix) ? [[key.slice(prefix.length), value]] : [])));
}

function settingsFor(env: NodeJS.ProcessEnv, hosts: number): ScaleSettings {
  const image = env.BENCH_IMAGE ?? 'live-iso';
  if (image !== 'live-iso' && image !== 'disk') throw new Error(`BENCH_IMAGE must be live-iso or disk, not ${image}`);
  return {
    hosts,
    hostsPerEmulator: numberFrom(env, 'BENCH_HOSTS_PER_EMULATOR', 50),
    powerDelayMs: numberFrom(env, 'BENCH_POWER_DELAY_MS', 200),
    image,
    idleMinutes: numberFrom(env, 'BENCH_IDLE_MINUTES', hosts >= 1000 ? 10 : 2),
    phaseTimeoutMinutes: numberFrom(env, 'BENCH_PHASE_TIMEOUT_MINUTES', 60),
    sampleSeconds: numberFrom(env, 'BENCH_SAMPLE_SECONDS', 5),
    poolEnv: prefixed(env, 'BENCH_POOL_'),
    hookEnv: prefixed(env, 'BENCH_HOOKS_'),
    runFrom: env.IRONHOOK_RUN_FROM === 'dist' ? 'dist' : 'tsx',
    // The chart's discovery interval (devenv uses 2 s so tests see new CRDs at once), then the flags under test.
    metacontrollerFlags: ['--discovery-interval=20s', ...(env.BENCH_METACONTROLLER_FLAGS ?? '').split(/\s+/u).filter((flag) => flag !== '')],
  };
}

/** Writes the run's pictures as docs/images/<prefix>-{states,cpu,memory}.svg. */
function writePictures(report: ScaleReport, prefix: string): void {
  const images = join(REPO_ROOT, 'docs', 'images');
  mkdirSync(images, { recursive: true });
  const drawn = pictures(report);
  for (const kind of ['states', 'cpu', 'memory'] as const) writeFileSync(join(images, `${prefix}-${kind}.svg`), drawn[kind]);
}

function writeBlock(key: string, content: string): void {
  const doc = join(REPO_ROOT, 'docs', 'benchmarks.md');
  writeFileSync(doc, upsertBlock(readFileSync(doc, 'utf8'), key, content));
}

function writeDocs(report: ScaleReport): void {
  const n = String(report.settings.hosts);
  writePictures(report, `bench-scale-${n}`);
  writeBlock(n.padStart(5, '0'), markdown(report, `images/bench-scale-${n}`));
}

/** Upstream's pictures and the side-by-side section, after Ironhook's block. */
function writeComparison(ours: ScaleReport, theirs: ScaleReport): void {
  const n = String(ours.settings.hosts);
  const prefix = `bench-scale-${n}-upstream`;
  const section = comparison(ours, theirs, `images/${prefix}`);
  if (section === undefined) return;
  writePictures(theirs, prefix);
  writeBlock(`${n.padStart(5, '0')}-upstream`, section);
  process.stdout.write(`${section}\n`);
}

/** Which stacks run: Ironhook's, then upstream's (BENCH_UPSTREAM=1), or upstream's alone (BENCH_UPSTREAM=only). */
function sides(): { ironhook: boolean; upstream: boolean } {
  const mode = process.env.BENCH_UPSTREAM ?? '0';
  return { ironhook: mode !== 'only', upstream: mode === '1' || mode === 'only' };
}

/** One host count: each side's run, its report and docs, and the comparison when both ran; whether all passed. */
async function runCount(out: string, hosts: number): Promise<boolean> {
  const settings = settingsFor(process.env, hosts);
  const run = sides();
  const ours = run.ironhook ? await runSide(out, settings, 'ironhook') : undefined;
  const theirs = run.upstream ? await runSide(out, settings, 'upstream') : undefined;
  const reports = [ours, theirs].filter((report) => report !== undefined);
  if (ours !== undefined && theirs !== undefined && process.env.BENCH_DOCS !== '0') writeComparison(ours, theirs);
  return reports.every((report) => report.passed);
}

async function runSide(out: string, settings: ScaleSettings, side: 'ironhook' | 'upstream'): Promise<ScaleReport> {
  const name = `${side === 'upstream' ? 'upstream-' : ''}${String(settings.hosts)}`;
  const dir = mkdtempSync(join(out, `run-${name}-`));
  process.stdout.write(`bench:scale: ${side}, ${String(settings.hosts)} hosts, logs in ${dir}\n`);
  const report = side === 'upstream' ? await runUpstream(settings, dir) : await runScale(settings, dir);
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(report, null, 1)}\n`);
  if (side === 'ironhook') {
    if (process.env.BENCH_DOCS !== '0') writeDocs(report);
    process.stdout.write(`${markdown(report, `images/bench-scale-${String(settings.hosts)}`)}\n`);
  }
  if (report.passed && process.env.BENCH_KEEP_LOGS === undefined) rmSync(dir, { recursive: true, force: true });
  return report;
}

/** The hooks and the pool run compiled, as in the image: tsx's loader would add its own memory to theirs. */
function buildDist(): void {
  if ((process.env.IRONHOOK_RUN_FROM ?? 'dist') !== 'dist') return;
  process.stdout.write('bench:scale: building dist/ (npm run build), which the hooks and the pool run from\n');
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  process.env.IRONHOOK_RUN_FROM = 'dist';
}

/** Upstream's build (cached; minutes the first time). */
function buildUpstream(): void {
  if (!sides().upstream) return;
  execFileSync(join(REPO_ROOT, 'scripts', 'setup-upstream.sh'), [], { cwd: REPO_ROOT, stdio: 'inherit' });
}

async function main(): Promise<number> {
  buildDist();
  buildUpstream();
  const counts = (process.env.BENCH_HOSTS ?? '100').split(',').map((text) => Number(text.trim()));
  if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`BENCH_HOSTS must list host counts, not ${String(process.env.BENCH_HOSTS)}`);
  const out = process.env.BENCH_OUT ?? join(REPO_ROOT, '.ironhook', 'bench-scale');
  mkdirSync(out, { recursive: true });
  let failed = 0;
  for (const hosts of counts) {
    if (!(await runCount(out, hosts))) failed += 1;
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:scale: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
