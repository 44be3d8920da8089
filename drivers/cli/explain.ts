// `ironhook explain <host>` (also `kubectl ironhook explain <host>`): why a BareMetalHost is
// where it is, in one screen, and the next command to run. --watch re-reads every --interval
// seconds and prints again whenever the answer changes. Every side effect is a dependency.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { gatherFacts } from './explain-facts.js';
import { nextSteps } from './explain-next.js';
import { renderJSON, renderText } from './explain-render.js';
import { HostNotFoundError } from './explain-source.js';
import type { ExplainSource } from './explain-source.js';

export interface ExplainDeps {
  out(text: string): void;
  err(text: string): void;
  source(): Promise<ExplainSource>;
  sleep(ms: number): Promise<void>;
  now(): number;
  /** Ends --watch (Ctrl-C in the real CLI). */
  signal?: AbortSignal;
}

interface ExplainOptions {
  name: string;
  namespace?: string;
  json: boolean;
  watch: boolean;
  intervalSeconds: number;
}

export const EXPLAIN_USAGE = `usage: ironhook explain <host> [-n <namespace>] [-o json] [--watch [--interval <seconds>]]

Why a BareMetalHost is where it is: its state and what it waits for, the current request and its
pool steps, the last errors with their classification, the conditions (warnings first), the
recent Events, and the next command to run. Reads the cluster named by KUBECONFIG.
As a kubectl plugin (bin/ on PATH): kubectl ironhook explain <host> -n <namespace>`;

class UsageError extends Error {}

const OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  output: { type: 'string', short: 'o', default: 'text' },
  watch: { type: 'boolean', short: 'w', default: false },
  interval: { type: 'string', default: '2' },
} as const satisfies ParseArgsConfig['options'];

function hostName(positionals: readonly string[]): string {
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? 'which host? ironhook explain <host>' : `one host only, not ${positionals.join(' ')}`);
  }
  // `bmh/server-01` as kubectl writes it works too.
  return (positionals[0] ?? '').replace(/^(bmh|baremetalhosts?(\.metal3\.io)?)\//u, '');
}

export function parseExplainArgs(argv: readonly string[]): ExplainOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
  }
  const { values, positionals } = parsed;
  if (values.output !== 'json' && values.output !== 'text') throw new UsageError(`-o must be json or text, not ${values.output}`);
  const intervalSeconds = Number(values.interval);
  if (!(intervalSeconds > 0)) throw new UsageError('--interval must be a positive number of seconds');
  return {
    name: hostName(positionals),
    ...(values.namespace !== undefined && { namespace: values.namespace }),
    json: values.output === 'json',
    watch: values.watch,
    intervalSeconds,
  };
}

async function explainOnce(source: ExplainSource, namespace: string, options: ExplainOptions): Promise<string> {
  const facts = gatherFacts(await source.read(namespace, options.name));
  const next = nextSteps(facts);
  return options.json ? renderJSON(facts, next) : renderText(facts, next);
}

async function watch(deps: ExplainDeps, source: ExplainSource, namespace: string, options: ExplainOptions): Promise<void> {
  let last = '';
  while (deps.signal?.aborted !== true) {
    const text = await explainOnce(source, namespace, options);
    if (text !== last) {
      if (last !== '') deps.out(`── ${new Date(deps.now()).toISOString()} changed ──`);
      deps.out(text);
      last = text;
    }
    await deps.sleep(options.intervalSeconds * 1000);
  }
}

export async function runExplain(argv: readonly string[], deps: ExplainDeps): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    deps.out(EXPLAIN_USAGE);
    return 0;
  }
  try {
    const options = parseExplainArgs(argv);
    const source = await deps.source();
    const namespace = options.namespace ?? source.defaultNamespace();
    if (options.watch) {
      await watch(deps, source, namespace, options);
    } else {
      deps.out(await explainOnce(source, namespace, options));
    }
    return 0;
  } catch (error) {
    return failure(deps, error);
  }
}

function failure(deps: ExplainDeps, error: unknown): number {
  if (error instanceof UsageError) {
    deps.err(`${error.message}\n\n${EXPLAIN_USAGE}`);
    return 2;
  }
  if (error instanceof HostNotFoundError) {
    deps.err(`${error.message}: kubectl get bmh -A lists the hosts`);
    return 3;
  }
  deps.err(`could not read the host: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
