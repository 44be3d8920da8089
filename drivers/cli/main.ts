// `ironhook` entry point (bin/ironhook.js runs it with tsx from a checkout; `npx tsx
// drivers/cli/main.ts bmc …` works too). Wires the real drivers, network guard, files and
// Kubernetes Secrets into runCLI, and the apiserver into runExplain (`ironhook explain`).
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createBMCDriver } from '../bmc/registry.js';
import { createNetworkGuard, parseNetworkList } from '../pool/network-guard.js';
import { kubernetesSecretReader } from './credentials.js';
import { runExplain, type ExplainDeps } from './explain.js';
import { kubernetesExplainSource } from './explain-source.js';
import { createImageFetch } from './image-fetch.js';
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
    createImageFetch,
    sleep: (ms) => delay(ms),
    now: () => Date.now(),
  };
}

function explainDeps(): ExplainDeps {
  const deps = defaultDeps();
  const stop = new AbortController();
  process.once('SIGINT', () => {
    stop.abort();
  });
  return {
    out: (text) => {
      deps.out(text);
    },
    err: (text) => {
      deps.err(text);
    },
    sleep: (ms) => deps.sleep(ms),
    now: () => deps.now(),
    source: kubernetesExplainSource,
    signal: stop.signal,
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'explain') {
    return runExplain(argv.slice(1), explainDeps());
  }
  return runCLI(argv, defaultDeps());
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  process.exitCode = await main(process.argv.slice(2));
}
