// The real clusterctl (built by scripts/setup-test-binaries.sh) as the e2e tests run it: its own
// config and home folders under the test's directory, no version check (it would call GitHub), and
// a result instead of a throw so tests can look at failures.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { binary } from '../../devenv/processes.js';

const execFileAsync = promisify(execFile);

export interface ClusterctlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs clusterctl with `args` exactly, its home under `dir`, and `env` added. */
export async function runClusterctl(dir: string, args: string[], env: Record<string, string> = {}): Promise<ClusterctlResult> {
  const settings = { CLUSTERCTL_DISABLE_VERSIONCHECK: 'true', XDG_CONFIG_HOME: join(dir, 'xdg'), HOME: join(dir, 'home') };
  try {
    const { stdout, stderr } = await execFileAsync(binary('clusterctl'), args, {
      env: { PATH: process.env.PATH ?? '', ...settings, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
