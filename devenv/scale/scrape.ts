// One scrape of every component's own metrics: the apiserver's (apiserver_request_total), the hook
// server's (ironhook_hook_*), Metacontroller's (client-go workqueues, controller-runtime's registry)
// and the driver pool's. A phase of the bench is the difference of two scrapes.
import { apiTextReader } from '../chaos/api.js';
import { delta, parseExposition, quantile, sumBy, type Series } from './prometheus.js';
import type { ScaleStack } from './stack.js';

export interface Scrape {
  apiserver: Series[];
  hooks: Series[];
  metacontroller: Series[];
  pool: Series[];
}

async function local(port: number): Promise<Series[]> {
  const response = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
  if (!response.ok) throw new Error(`GET 127.0.0.1:${String(port)}/metrics: HTTP ${String(response.status)}`);
  return parseExposition(await response.text());
}

export function scraper(stack: ScaleStack): () => Promise<Scrape> {
  const apiserver = apiTextReader(stack.env.kubeconfig, 30_000);
  return async () => {
    const [api, hooks, metacontroller, pool] = await Promise.all([
      apiserver('/metrics').then(parseExposition),
      local(stack.env.hookPort),
      local(stack.env.metacontroller.metricsPort),
      local(stack.pool.metricsPort),
    ]);
    return { apiserver: api, hooks, metacontroller, pool };
  };
}

/** Queue depth of each Metacontroller controller's work queue now (its metrics alone: the apiserver's are megabytes). */
export async function queueDepths(stack: ScaleStack): Promise<Record<string, number>> {
  return sumBy(await local(stack.env.metacontroller.metricsPort), 'workqueue_depth', ['name']);
}

export interface PhaseMetrics {
  /** apiserver requests by "VERB resource[/subresource]", over the whole phase. */
  apiRequests: Record<string, number>;
  apiRequestsTotal: number;
  /** Writes (POST, PUT, PATCH, DELETE) to BareMetalHost status. */
  hostStatusWrites: number;
  hookCalls: number;
  hookP50Ms: number | undefined;
  hookP99Ms: number | undefined;
  /** Metacontroller's time per work item (one parent's sync), over all its controllers. */
  syncP50Ms: number | undefined;
  syncP99Ms: number | undefined;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);
const ms = (seconds: number | undefined): number | undefined => (seconds === undefined ? undefined : Math.round(seconds * 10_000) / 10);

function apiRequests(series: readonly Series[]): Record<string, number> {
  const raw = sumBy(series, 'apiserver_request_total', ['verb', 'resource', 'subresource']);
  const out: Record<string, number> = {};
  for (const [group, count] of Object.entries(raw)) {
    if (count <= 0) continue;
    const [verb = '', resource = '', subresource = ''] = group.split(' ');
    out[`${verb} ${resource}${subresource === '' ? '' : `/${subresource}`}`] = count;
  }
  return out;
}

export function phaseMetrics(before: Scrape, after: Scrape): PhaseMetrics {
  const api = delta(before.apiserver, after.apiserver);
  const hooks = delta(before.hooks, after.hooks);
  const queues = delta(before.metacontroller, after.metacontroller);
  const requests = apiRequests(api);
  const statusWrites = Object.entries(requests)
    .filter(([group]) => group.endsWith(' baremetalhosts/status') && WRITES.has(group.split(' ')[0] ?? ''))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    apiRequests: requests,
    apiRequestsTotal: Object.values(requests).reduce((sum, count) => sum + count, 0),
    hostStatusWrites: statusWrites,
    hookCalls: Object.values(sumBy(hooks, 'ironhook_hook_requests_total', [])).reduce((sum, count) => sum + count, 0),
    hookP50Ms: ms(quantile(hooks, 'ironhook_hook_duration_seconds', 0.5)),
    hookP99Ms: ms(quantile(hooks, 'ironhook_hook_duration_seconds', 0.99)),
    syncP50Ms: ms(quantile(queues, 'workqueue_work_duration_seconds', 0.5)),
    syncP99Ms: ms(quantile(queues, 'workqueue_work_duration_seconds', 0.99)),
  };
}
