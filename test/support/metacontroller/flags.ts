// Command-line flags of the stand-in, named and defaulted like upstream Metacontroller's.
// Flags upstream has but the stand-in does not implement are refused, not silently ignored.
import { labelsOf } from './kube/objects.js';
import type { KObject } from './kube/objects.js';

export interface Options {
  kubeconfig?: string;
  discoveryIntervalMs: number;
  cacheFlushIntervalMs: number;
  workers: number;
  healthProbeBindAddress: string;
  metricsAddress: string;
  verbosity: number;
  targetLabelSelector: string;
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration string (`10s`, `1m30s`, `250ms`, `0`) in milliseconds. */
export function parseDuration(text: string): number {
  const value = text.trim();
  if (value === '0') return 0;
  const sign = value.startsWith('-') ? -1 : 1;
  const body = value.replace(/^[-+]/u, '');
  const parts = [...body.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gu)];
  if (body === '' || parts.map((part) => part[0]).join('') !== body) throw new Error(`time: invalid duration "${text}"`);
  return sign * parts.reduce((total, part) => total + Number(part[1]) * (UNITS[part[2] ?? ''] ?? 0), 0);
}

const LEVELS: Record<string, number> = { debug: 1, info: 0, error: -2, panic: -4 };

/** --zap-log-level: a level name or an integer verbosity (4 = actions, 6 = hook bodies). */
export function parseLevel(text: string): number {
  const named = LEVELS[text];
  if (named !== undefined) return named;
  if (!/^\d+$/u.test(text)) throw new Error(`invalid --zap-log-level "${text}"`);
  return Number(text);
}

type Setter = (options: Options, value: string) => void;

const SETTERS: Record<string, Setter> = {
  kubeconfig: (o, v) => (o.kubeconfig = v),
  'discovery-interval': (o, v) => (o.discoveryIntervalMs = parseDuration(v)),
  'cache-flush-interval': (o, v) => (o.cacheFlushIntervalMs = parseDuration(v)),
  workers: (o, v) => (o.workers = positiveInteger('workers', v)),
  'health-probe-bind-address': (o, v) => (o.healthProbeBindAddress = v),
  'metrics-address': (o, v) => (o.metricsAddress = v),
  'zap-log-level': (o, v) => (o.verbosity = parseLevel(v)),
  'target-label-selector': (o, v) => (o.targetLabelSelector = v),
  'apply-strategy': (_o, v) => {
    if (v !== 'dynamic-apply') throw new Error(`--apply-strategy=${v}: the stand-in implements only dynamic-apply`);
  },
};

function positiveInteger(flag: string, value: string): number {
  if (!/^\d+$/u.test(value) || Number(value) < 1) throw new Error(`--${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

export function defaults(): Options {
  return {
    discoveryIntervalMs: 30_000,
    cacheFlushIntervalMs: 30 * 60_000,
    workers: 5,
    healthProbeBindAddress: ':8081',
    metricsAddress: ':9999',
    verbosity: 0,
    targetLabelSelector: '',
  };
}

/** Parse `--flag=value` and `--flag value` (one or two dashes). */
export function parseFlags(argv: string[]): Options {
  const options = defaults();
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    const match = /^--?([a-z-]+)(?:=(.*))?$/u.exec(arg);
    const setter = match === null ? undefined : SETTERS[match[1] ?? ''];
    if (match === null || setter === undefined) throw new Error(`unknown or unsupported flag "${arg}"`);
    let value = match[2];
    if (value === undefined) {
      index += 1;
      value = argv[index];
    }
    if (value === undefined) throw new Error(`flag ${arg} needs a value`);
    setter(options, value);
  }
  return options;
}

/** `host:port` (host may be empty = all interfaces), or undefined for "0" (disabled). */
export function parseAddress(address: string): { host: string; port: number } | undefined {
  if (address === '0' || address === '') return undefined;
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port)) throw new Error(`invalid address "${address}"`);
  return { host: address.slice(0, colon), port };
}

/** --target-label-selector in kubectl syntax, equality-based subset: `a=b,c!=d,e,!f`. */
export function targetMatcher(selector: string): (obj: KObject) => boolean {
  const terms = selector
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '');
  const checks = terms.map((term): ((labels: Record<string, string>) => boolean) => {
    const [key = '', value] = term.split(/!=|==|=/u);
    if (term.includes('!=')) return (labels) => labels[key] !== value;
    if (value !== undefined) return (labels) => labels[key] === value;
    if (key.startsWith('!')) return (labels) => !(key.slice(1) in labels);
    return (labels) => key in labels;
  });
  return (obj) => checks.every((check) => check(labelsOf(obj)));
}
