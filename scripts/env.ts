// `npm run env:up` / `npm run env:down`: the local environment in .ironhook/ (git-ignored),
// left running in the background; everything listens on 127.0.0.1 and is stopped by PID.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, startEnvironment } from '../test/support/environment.js';
import { isAlive, stopProcess } from '../test/support/processes.js';
import type { StartedProcess } from '../test/support/processes.js';

const DIR = join(REPO_ROOT, '.ironhook');
const PIDS = join(DIR, 'pids.json');

function running(): StartedProcess[] {
  if (!existsSync(PIDS)) {
    return [];
  }
  const processes = JSON.parse(readFileSync(PIDS, 'utf8')) as StartedProcess[];
  return processes.filter((started) => isAlive(started.pid));
}

async function down(): Promise<void> {
  const processes = existsSync(PIDS) ? (JSON.parse(readFileSync(PIDS, 'utf8')) as StartedProcess[]) : [];
  for (const started of [...processes].reverse()) {
    await stopProcess(started.pid);
    process.stdout.write(`stopped ${started.name} (pid ${String(started.pid)})\n`);
  }
  rmSync(PIDS, { force: true });
}

async function up(): Promise<void> {
  if (running().length > 0) {
    process.stdout.write('the environment is already running; `npm run env:down` stops it\n');
    return;
  }
  execFileSync('bash', [join(REPO_ROOT, 'scripts', 'setup-test-binaries.sh')], { stdio: 'inherit' });
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const environment = await startEnvironment({ dir: DIR, detached: true, hookPort: Number(process.env.PORT ?? 8080) });
  for (const started of environment.processes) {
    process.stdout.write(`started ${started.name.padEnd(24)} pid ${String(started.pid).padEnd(8)} log ${started.log}\n`);
  }
  process.stdout.write(`\nkube-apiserver ${environment.controlPlane.server}, hooks http://127.0.0.1:${String(environment.hookPort)}\n`);
  process.stdout.write(`export KUBECONFIG=${environment.kubeconfig}\n`);
}

const command = process.argv[2];
if (command === 'up') {
  await up();
} else if (command === 'down') {
  await down();
} else {
  process.stderr.write('usage: tsx scripts/env.ts up|down\n');
  process.exitCode = 2;
}
