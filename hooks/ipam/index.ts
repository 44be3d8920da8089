// The IPAM controllers' hooks, by route name, for hooks/registry.ts.
import type { ControllerHooks } from '../types.js';
import { ipaddressclaimCustomize, ipaddressclaimSync } from './ipaddressclaim.js';
import { ipclaimCustomize, ipclaimFinalize, ipclaimSync } from './ipclaim.js';
import { ippoolCustomize, ippoolFinalize, ippoolSync } from './ippool.js';

export { ipaddressclaimCustomize, ipaddressclaimSync, ipclaimCustomize, ipclaimFinalize, ipclaimSync, ippoolCustomize, ippoolFinalize, ippoolSync };

/** `/hooks/{route}/{sync|finalize|customize}` for the three IPAM controllers (manifests/controllers/ipam.yaml). */
export const ipamHooks: Readonly<Record<string, ControllerHooks>> = {
  ippool: { sync: ippoolSync, finalize: ippoolFinalize, customize: ippoolCustomize },
  ipclaim: { sync: ipclaimSync, finalize: ipclaimFinalize, customize: ipclaimCustomize },
  'ipaddressclaim-ipam': { sync: ipaddressclaimSync, customize: ipaddressclaimCustomize },
};
