// The Metal3Remediation controller's hooks and the power-off decorator's, by route name, for
// hooks/registry.ts (manifests/controllers/metal3remediation.yaml).
import type { ControllerHooks } from '../types.js';
import { remediationPowerCustomize, remediationPowerSync } from './power.js';
import { metal3remediationCustomize, metal3remediationFinalize, metal3remediationSync } from './sync.js';

export { metal3remediationCustomize, metal3remediationFinalize, metal3remediationSync, remediationPowerCustomize, remediationPowerSync };

export const metal3remediationHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3remediation: { sync: metal3remediationSync, finalize: metal3remediationFinalize, customize: metal3remediationCustomize },
  'metal3remediation-power': { sync: remediationPowerSync, customize: remediationPowerCustomize },
};
