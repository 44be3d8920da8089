// The Metal3Machine controller's hooks for hooks/registry.ts (manifests/controllers/metal3machine.yaml,
// docs/capm3.md). Sync and finalize are one function: `finalizing` picks the deletion path.
import type { ControllerHooks } from '../types.js';
import { metal3machineCustomize, metal3machineSync } from './sync.js';

export { metal3machineCustomize, metal3machineSync };

export const metal3machineHooks: ControllerHooks = { sync: metal3machineSync, finalize: metal3machineSync, customize: metal3machineCustomize };
