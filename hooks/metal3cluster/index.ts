// The Metal3Cluster controller's hooks, by route name, for hooks/registry.ts
// (manifests/controllers/metal3cluster.yaml).
import type { ControllerHooks } from '../types.js';
import { metal3clusterCustomize, metal3clusterFinalize, metal3clusterSync } from './sync.js';

export { metal3clusterCustomize, metal3clusterFinalize, metal3clusterSync };

export const metal3clusterHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3cluster: { sync: metal3clusterSync, finalize: metal3clusterFinalize, customize: metal3clusterCustomize },
};
