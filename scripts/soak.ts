// `npm run soak` (docs/dev/soak.md): the chaos soak at full length: 200 emulated hosts
// (SOAK_HOSTS), a process SIGKILLed every 30–90 s for 20 minutes (SOAK_MINUTES), seeded BMC
// faults; writes .ironhook/soak/report.json and report.md (SOAK_OUT) and exits 1 when an
// assertion failed. Everything runs on 127.0.0.1 and is stopped by PID at the end, or on SIGTERM/SIGINT.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../devenv/environment.js';
import { summary, writeReport } from '../devenv/chaos/report.js';
import { runSoak } from '../devenv/chaos/run.js';
import { soakSettingsFromEnv } from '../devenv/chaos/settings.js';

// SIGTERM or Ctrl-C stops the environment (every process it started) before exiting. npm does not
// pass a SIGTERM on to this process: signal its process group (docs/dev/soak.md).
const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    stop.abort();
  });
}

async function main(): Promise<number> {
  const settings = soakSettingsFromEnv(process.env);
  const out = process.env.SOAK_OUT ?? join(REPO_ROOT, '.ironhook', 'soak');
  mkdirSync(out, { recursive: true });
  const dir = mkdtempSync(join(out, 'run-'));
  process.stdout.write(
    `soak: ${String(settings.hosts)} hosts, kills every ${String(settings.killIntervalMs[0] / 1000)}–${String(settings.killIntervalMs[1] / 1000)} s for ${String(settings.killForMs / 60_000)} min, seed ${String(settings.seed)}; logs in ${dir}\n`,
  );
  const report = await runSoak(settings, dir, stop.signal);
  const files = writeReport(report, out);
  process.stdout.write(`${summary(report)}\nreport: ${files.json}, ${files.markdown}\n`);
  if (report.passed && process.env.SOAK_KEEP_LOGS === undefined) rmSync(dir, { recursive: true, force: true });
  return report.passed ? 0 : 1;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const stopped = stop.signal.aborted && error instanceof Error;
    process.stderr.write(`soak: ${stopped ? `${error.message}; every process it started is stopped` : describe(error)}\n`);
    process.exit(1);
  },
);
