// Prometheus metrics of the hook server (ADR 0003). One Registry per server,
// never prom-client's global one, so several servers (tests, fixtures) can live in one process.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const METRIC_PREFIX = 'ironhook_';

export const MetricName = {
  hookDuration: 'ironhook_hook_duration_seconds',
  hookRequests: 'ironhook_hook_requests_total',
  hookRequestBytes: 'ironhook_hook_request_bytes',
  hookInFlight: 'ironhook_hook_requests_in_flight',
} as const;

/** `result` label values of the duration histogram. */
export type HookResult = 'success' | 'input_error' | 'rejected' | 'error' | 'aborted';

/** Label value used for a controller or hook that is not in the registry (bounded cardinality). */
export const UNKNOWN_LABEL = '_unknown';

// Hooks should take single-digit milliseconds; Metacontroller gives up after 10 s by default.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// 1 KiB … 64 MiB in steps of 4: Metacontroller sends whole objects for every child and related object.
const BYTE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536].map((kib) => kib * 1024);

export interface HookMetrics {
  readonly registry: Registry;
  readonly duration: Histogram<'controller' | 'hook' | 'result'>;
  readonly requests: Counter<'controller' | 'hook' | 'code'>;
  readonly requestBytes: Histogram<'controller' | 'hook'>;
  readonly inFlight: Gauge;
}

export interface MetricsOptions {
  /** Registry to register on; a new one when absent. */
  registry?: Registry;
  /** Also collect Node's process metrics (prefixed `ironhook_`). Default true. */
  defaultMetrics?: boolean;
}

export function createHookMetrics(options: MetricsOptions = {}): HookMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  }
  const registers = [registry];
  return {
    registry,
    duration: new Histogram({
      name: MetricName.hookDuration,
      help: 'Time from receiving a hook request to sending the response, by outcome.',
      labelNames: ['controller', 'hook', 'result'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    requests: new Counter({
      name: MetricName.hookRequests,
      help: 'Hook requests answered, by HTTP status code.',
      labelNames: ['controller', 'hook', 'code'],
      registers,
    }),
    requestBytes: new Histogram({
      name: MetricName.hookRequestBytes,
      help: 'Size of hook request bodies in bytes.',
      labelNames: ['controller', 'hook'],
      buckets: BYTE_BUCKETS,
      registers,
    }),
    inFlight: new Gauge({
      name: MetricName.hookInFlight,
      help: 'Hook requests being received or processed right now.',
      registers,
    }),
  };
}

/** The `result` label for an HTTP status code. */
export function resultOf(status: number): HookResult {
  if (status < 400) return 'success';
  if (status === 400) return 'input_error';
  if (status < 500) return 'rejected';
  return 'error';
}
