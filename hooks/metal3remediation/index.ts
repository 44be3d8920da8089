// The Metal3Remediation controller's hooks and the power-off decorator's, by route name, for
// hooks/registry.ts (manifests/controllers/metal3remediation.yaml).
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { REMEDIATION_POWER_RELATED, remediationPowerCustomize, remediationPowerSync } from './power.js';
import { METAL3REMEDIATION_RELATED, metal3remediationCustomize, metal3remediationFinalize, metal3remediationSync } from './sync.js';

export { metal3remediationCustomize, metal3remediationFinalize, metal3remediationSync, remediationPowerCustomize, remediationPowerSync };

export const metal3remediationHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3remediation: { sync: metal3remediationSync, finalize: metal3remediationFinalize, customize: metal3remediationCustomize },
  'metal3remediation-power': { sync: remediationPowerSync, customize: remediationPowerCustomize },
};

/** By route, for scripts/chart-rbac.ts. */
export const metal3remediationAccess: Readonly<Record<string, HookAccess>> = {
  metal3remediation: { related: METAL3REMEDIATION_RELATED },
  'metal3remediation-power': { related: REMEDIATION_POWER_RELATED },
};
