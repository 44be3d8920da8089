// The Metal3Cluster controller's hooks, by route name, for hooks/registry.ts
// (manifests/controllers/metal3cluster.yaml).
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { METAL3CLUSTER_RELATED, metal3clusterCustomize, metal3clusterFinalize, metal3clusterSync } from './sync.js';

export { metal3clusterCustomize, metal3clusterFinalize, metal3clusterSync };

export const metal3clusterHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3cluster: { sync: metal3clusterSync, finalize: metal3clusterFinalize, customize: metal3clusterCustomize },
};

/** By route, for scripts/chart-rbac.ts. */
export const metal3clusterAccess: Readonly<Record<string, HookAccess>> = {
  metal3cluster: { related: METAL3CLUSTER_RELATED },
};
