// The IPAM controllers' hooks, by route name, for hooks/registry.ts.
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { IPADDRESSCLAIM_RELATED, ipaddressclaimCustomize, ipaddressclaimSync } from './ipaddressclaim.js';
import { IPCLAIM_RELATED, ipclaimCustomize, ipclaimFinalize, ipclaimSync } from './ipclaim.js';
import { IPPOOL_RELATED, ippoolCustomize, ippoolFinalize, ippoolSync } from './ippool.js';

/** `/hooks/{route}/{sync|finalize|customize}` for the three IPAM controllers (manifests/controllers/ipam.yaml). */
export const ipamHooks: Readonly<Record<string, ControllerHooks>> = {
  ippool: { sync: ippoolSync, finalize: ippoolFinalize, customize: ippoolCustomize },
  ipclaim: { sync: ipclaimSync, finalize: ipclaimFinalize, customize: ipclaimCustomize },
  'ipaddressclaim-ipam': { sync: ipaddressclaimSync, customize: ipaddressclaimCustomize },
};

/**
 * By route, for scripts/chart-rbac.ts. A pool's CAPI IPAddress children name their claim as an
 * owner with blockOwnerDeletion (hooks/ipam/children.ts), so Metacontroller updates the claims'
 * finalizers.
 */
export const ipamAccess: Readonly<Record<string, HookAccess>> = {
  ippool: { related: IPPOOL_RELATED, blockingOwners: [IPPOOL_RELATED.capiClaims] },
  ipclaim: { related: IPCLAIM_RELATED },
  'ipaddressclaim-ipam': { related: IPADDRESSCLAIM_RELATED },
};
