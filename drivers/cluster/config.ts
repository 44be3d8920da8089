// Settings of the Cluster API request runner, from the environment (docs/drivers.md). The pool's
// own settings (namespaces, watch liveness, shutdown grace) are passed in by drivers/main.ts.
import { bool, integer } from '../pool/config.js';

type Env = Record<string, string | undefined>;

export interface ClusterRequestSettings {
  /** Off where the ObjectPatch and NodeOperation CRDs are not installed (no Cluster API provider). */
  enabled: boolean;
  /** Namespaces to watch; empty means all. */
  namespaces: string[];
  /** Requests executed at the same time (different targets only). */
  concurrency: number;
  /** How often a waiting NodeOperation looks at the workload cluster again. */
  nodeRecheckMs: number;
  /** Budget of one API call, management or workload cluster. */
  apiTimeoutMs: number;
  /** Upper bound of the back-off between transient failures. */
  maxBackoffMs: number;
  watchLivenessMs: number;
  watchTimeoutSeconds: number;
  shutdownTimeoutMs: number;
}

export type PoolShared = Pick<ClusterRequestSettings, 'namespaces' | 'watchLivenessMs' | 'watchTimeoutSeconds' | 'shutdownTimeoutMs'>;

/** CLUSTER_REQUESTS_ENABLED, CLUSTER_REQUEST_CONCURRENCY, NODE_RECHECK_SECONDS, CLUSTER_API_TIMEOUT_SECONDS, CLUSTER_REQUEST_MAX_BACKOFF_SECONDS. */
export function loadClusterRequestSettings(env: Env, shared: PoolShared): ClusterRequestSettings {
  return {
    ...shared,
    enabled: bool('CLUSTER_REQUESTS_ENABLED', env.CLUSTER_REQUESTS_ENABLED, true),
    concurrency: integer('CLUSTER_REQUEST_CONCURRENCY', env.CLUSTER_REQUEST_CONCURRENCY, 10, 1),
    nodeRecheckMs: integer('NODE_RECHECK_SECONDS', env.NODE_RECHECK_SECONDS, 10, 1) * 1000,
    apiTimeoutMs: integer('CLUSTER_API_TIMEOUT_SECONDS', env.CLUSTER_API_TIMEOUT_SECONDS, 15, 1) * 1000,
    maxBackoffMs: integer('CLUSTER_REQUEST_MAX_BACKOFF_SECONDS', env.CLUSTER_REQUEST_MAX_BACKOFF_SECONDS, 300, 1) * 1000,
  };
}
