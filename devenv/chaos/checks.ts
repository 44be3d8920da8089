// The soak's end-of-run checks that read the cluster and the files: the canary BMC password in
// no log file, Event, status, request object or CLI output, and nothing a deleted host owned
// left behind (requests, monitors, hardware data, agent-token and BMC Secrets).
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubectlOrThrow, REPO_ROOT } from '../environment.js';
import { waitFor } from '../processes.js';

const run = promisify(execFile);

function logFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.log'))
    .map((name) => join(dir, name));
}

/** `ironhook bmc` with the password in the environment (never argv), its output whatever the exit. */
export async function ironhookBmc(password: string, ...args: string[]): Promise<string> {
  const env = { ...process.env, BMC_USERNAME: 'admin', BMC_PASSWORD: password, ALLOWED_BMC_NETWORKS: '127.0.0.0/8' };
  try {
    const { stdout, stderr } = await run(process.execPath, [join(REPO_ROOT, 'bin', 'ironhook.js'), 'bmc', ...args], { env, timeout: 120_000 });
    return stdout + stderr;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return `${failure.stdout ?? ''}${failure.stderr ?? ''}`;
  }
}

/** Where the canary shows up: log files, kinds of objects, CLI commands. Empty when nowhere. */
export async function canaryLeaks(options: { dir: string; kubeconfig: string; canary: string; bmcAddress: string }): Promise<string[]> {
  const { dir, kubeconfig, canary, bmcAddress } = options;
  const leaks = logFiles(dir).filter((path) => readFileSync(path, 'utf8').includes(canary));
  const logs = logFiles(dir).length;
  if (logs === 0) leaks.push(`no log files under ${dir} to search`);
  for (const kind of ['events', 'baremetalhosts', 'hostoperations', 'bmcmonitors', 'hardwaredata', 'objectpatches', 'nodeoperations']) {
    const text = await kubectlOrThrow(kubeconfig, ['get', kind, '-A', '-o', 'json']);
    if (text.includes(canary)) leaks.push(`kubectl get ${kind}`);
  }
  for (const args of [
    ['check', bmcAddress],
    ['power', 'status', bmcAddress],
  ]) {
    const output = await ironhookBmc(canary, ...args);
    if (output.includes(canary)) leaks.push(`ironhook bmc ${args.join(' ')}`);
  }
  return leaks;
}

const LEFT_BEHIND = ['hostoperations', 'bmcmonitors', 'hardwaredata', 'hostfirmwaresettings', 'secrets', 'baremetalhosts'];

async function remaining(kubeconfig: string, namespace: string): Promise<string[]> {
  const names: string[] = [];
  for (const kind of LEFT_BEHIND) {
    const text = await kubectlOrThrow(kubeconfig, ['get', kind, '-n', namespace, '-o', 'name']);
    names.push(...text.split('\n').filter((line) => line.trim() !== ''));
  }
  return names;
}

/** What is still in the soak namespace once every host was deleted, after `graceMs` for garbage collection. */
export async function orphans(kubeconfig: string, namespace: string, graceMs = 120_000): Promise<string[]> {
  let left: string[] = [];
  await waitFor(
    'deleted hosts to leave nothing behind',
    async () => {
      left = await remaining(kubeconfig, namespace);
      return left.length === 0;
    },
    graceMs,
    2_000,
  ).catch(() => undefined);
  return left;
}
