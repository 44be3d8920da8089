// The Metal3Machine controller's hooks for hooks/registry.ts (manifests/controllers/metal3machine.yaml,
// docs/capm3.md). Sync and finalize are one function: `finalizing` picks the deletion path.
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { METAL3MACHINE_RELATED, metal3machineCustomize, metal3machineSync } from './sync.js';

export const metal3machineHooks: ControllerHooks = { sync: metal3machineSync, finalize: metal3machineSync, customize: metal3machineCustomize };

/** By route, for scripts/chart-rbac.ts. */
export const metal3machineAccess: Readonly<Record<string, HookAccess>> = {
  metal3machine: { related: METAL3MACHINE_RELATED },
};
