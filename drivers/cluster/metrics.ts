// Metrics of the Cluster API request runner, in the pool's registry.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface ClusterRequestMetrics {
  /** Finished requests by kind and outcome (Applied, TestFailed, …, Succeeded, Failed). */
  finished: Counter<'kind' | 'result'>;
  /** Attempts that ended in a transient error (retried) or a wait. */
  retries: Counter<'kind' | 'why'>;
  inFlight: Gauge;
}

export function createClusterRequestMetrics(registry: Registry): ClusterRequestMetrics {
  const registers = [registry];
  return {
    finished: new Counter({
      name: 'ironhook_cluster_requests_total',
      help: 'ObjectPatch and NodeOperation requests finished by the pool, by kind and result.',
      labelNames: ['kind', 'result'],
      registers,
    }),
    retries: new Counter({
      name: 'ironhook_cluster_request_retries_total',
      help: 'ObjectPatch and NodeOperation attempts that will be repeated, by kind and why (transient, waiting).',
      labelNames: ['kind', 'why'],
      registers,
    }),
    inFlight: new Gauge({ name: 'ironhook_cluster_requests_in_flight', help: 'ObjectPatch and NodeOperation requests being executed.', registers }),
  };
}
