// Where the real ironic-python-agent lives (scripts/setup-ipa.sh installs it under the cache)
// and whether this machine can run it: root (loop devices, network namespaces) and the venv.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CACHE_DIR } from '../../devenv/processes.js';

const IPA_VERSION = '13.0.0';
const VENV = join(CACHE_DIR, 'ipa', IPA_VERSION, 'venv');
const SETUP = fileURLToPath(new URL('../../scripts/setup-ipa.sh', import.meta.url));

/** The venv's python, with ironic-python-agent and the sandbox plugin. */
export function ipaPython(): string {
  return join(VENV, 'bin', 'python');
}

/** Why the real IPA cannot run here, or undefined when it can. */
function ipaUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the real IPA tests need root (loop devices, network namespaces)';
  if (!existsSync(join(VENV, 'bin', 'ironic-python-agent'))) return `no ironic-python-agent venv at ${VENV}: run scripts/setup-ipa.sh`;
  return undefined;
}

/**
 * Runs scripts/setup-ipa.sh (idempotent: installs what is missing, refreshes the plugin), then
 * fails with the reason when the real IPA still cannot run: its tests never skip.
 */
export async function requireIPA(): Promise<void> {
  await promisify(execFile)('bash', [SETUP], { encoding: 'utf8' });
  const unavailable = ipaUnavailable();
  if (unavailable !== undefined) throw new Error(`the real IPA cannot run here: ${unavailable}`);
}
