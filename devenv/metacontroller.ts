// Upstream Metacontroller v4.17.2 as a local process: the binary and the unpacked source that
// scripts/setup-test-binaries.sh builds (its CRDs come from that source), run out of cluster with
// a kubeconfig, health and metrics on free loopback ports, and the chart's own flags.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { binary, CACHE_DIR, freePort, startProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';
import { parseExposition, sumBy } from './scale/prometheus.js';

const METACONTROLLER_VERSION = 'v4.17.2';
/** The source tree setup-test-binaries.sh unpacked (shared vendor tarball or release tag). */
const METACONTROLLER_SOURCE = join(CACHE_DIR, 'src', `metacontroller-${METACONTROLLER_VERSION.slice(1)}`);
/** Metacontroller's own CRDs (CompositeController, DecoratorController, ControllerRevision). */
export const METACONTROLLER_CRDS = join(METACONTROLLER_SOURCE, 'manifests', 'production', 'metacontroller-crds-v1.yaml');

const CHART_VALUES = new URL('../charts/ironhook/values.yaml', import.meta.url);

/** The flags the chart gives Metacontroller (values.yaml `metacontroller.commandArgs`). */
function chartCommandArgs(valuesText = readFileSync(CHART_VALUES, 'utf8')): string[] {
  const values = parse(valuesText) as { metacontroller?: { commandArgs?: unknown } };
  const args = values.metacontroller?.commandArgs;
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
    throw new Error('charts/ironhook/values.yaml has no metacontroller.commandArgs list');
  }
  return args;
}

/**
 * The chart's flags with the given ones put in their place (same flag name) or added: the local
 * process differs from the chart only in where it listens, how it finds the API server and how
 * often it rediscovers CRDs.
 */
function withFlags(chartArgs: readonly string[], overrides: readonly string[]): string[] {
  const name = (arg: string): string => arg.split('=', 1)[0] ?? arg;
  const replaced = new Set(overrides.map(name));
  return [...chartArgs.filter((arg) => !replaced.has(name(arg))), ...overrides];
}

export interface MetacontrollerProcess extends StartedProcess {
  metricsPort: number;
  healthPort: number;
}

export interface MetacontrollerOptions {
  kubeconfig: string;
  logDir: string;
  detached?: boolean;
  /** Extra or replacing flags (e.g. `--zap-log-level=6` to log hook bodies). */
  flags?: readonly string[];
}

/** Starts the real Metacontroller and waits for its /readyz. */
export async function startMetacontroller(options: MetacontrollerOptions): Promise<MetacontrollerProcess> {
  const [metricsPort, healthPort] = [await freePort(), await freePort()];
  const args = withFlags(chartCommandArgs(), [
    `--kubeconfig=${options.kubeconfig}`,
    // CRDs that a test installs after start-up are served within 2 s instead of the chart's 20 s.
    '--discovery-interval=2s',
    `--metrics-address=127.0.0.1:${String(metricsPort)}`,
    `--health-probe-bind-address=127.0.0.1:${String(healthPort)}`,
    ...(process.env.METACONTROLLER_LOG_LEVEL === undefined ? [] : [`--zap-log-level=${process.env.METACONTROLLER_LOG_LEVEL}`]),
    ...(options.flags ?? []),
  ]);
  const started = startProcess({
    name: 'metacontroller',
    command: binary('metacontroller'),
    args,
    logDir: options.logDir,
    detached: options.detached === true,
  });
  await waitFor('metacontroller /readyz', async () => (await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`)).ok, 60_000);
  return { ...started, metricsPort, healthPort };
}

/** One counter or gauge from Metacontroller's /metrics, summed over the series whose labels include `labels`. */
export async function metacontrollerMetric(metricsPort: number, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`)).text();
  return Object.values(sumBy(parseExposition(text), name, [], labels)).reduce((total, value) => total + value, 0);
}
