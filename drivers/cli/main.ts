// `ironhook` entry point (bin/ironhook.js runs it with tsx from a checkout; `npx tsx
// drivers/cli/main.ts bmc …` works too). Wires the real drivers, network guard, files and
// Kubernetes Secrets into runCLI.
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createBMCDriver } from '../bmc/registry.js';
import { createNetworkGuard, parseNetworkList } from '../pool/network-guard.js';
import { kubernetesSecretReader } from './credentials.js';
import { runCLI, type CLIDeps } from './run.js';

export function defaultDeps(): CLIDeps {
  return {
    out: (text) => {
      process.stdout.write(`${text}\n`);
    },
    err: (text) => {
      process.stderr.write(`${text}\n`);
    },
    env: process.env,
    readFile: (path) => readFile(path, 'utf8'),
    readSecret: kubernetesSecretReader,
    createDriver: createBMCDriver,
    createGuard: (text) => createNetworkGuard({ allowed: parseNetworkList(text) }),
    sleep: (ms) => delay(ms),
    now: () => Date.now(),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  return runCLI(argv, defaultDeps());
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  process.exitCode = await main(process.argv.slice(2));
}
