// The Metal3MachineTemplate controller's hooks, by route name, for hooks/registry.ts
// (manifests/controllers/metal3machinetemplate.yaml).
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { METAL3MACHINETEMPLATE_RELATED, metal3machinetemplateCustomize, metal3machinetemplateSync } from './sync.js';

export { metal3machinetemplateCustomize, metal3machinetemplateSync };

export const metal3machinetemplateHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3machinetemplate: { sync: metal3machinetemplateSync, customize: metal3machinetemplateCustomize },
};

/** By route, for scripts/chart-rbac.ts. */
export const metal3machinetemplateAccess: Readonly<Record<string, HookAccess>> = {
  metal3machinetemplate: { related: METAL3MACHINETEMPLATE_RELATED },
};
