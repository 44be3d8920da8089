// The Metal3Data controllers' hooks, by route name, for hooks/registry.ts
// (manifests/controllers/metal3data.yaml, docs/metal3data.md).
import type { HookAccess } from '../kit/index.js';
import type { ControllerHooks } from '../types.js';
import { METAL3DATACLAIM_RELATED, metal3dataclaimCustomize, metal3dataclaimFinalize, metal3dataclaimSync } from './claim.js';
import { METAL3DATA_RELATED, metal3dataCustomize, metal3dataFinalize, metal3dataSync } from './data.js';
import { METAL3DATATEMPLATE_RELATED, metal3datatemplateCustomize, metal3datatemplateFinalize, metal3datatemplateSync } from './template.js';

/** `/hooks/{route}/{sync|finalize|customize}` for the three Metal3Data controllers. */
export const metal3dataHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3datatemplate: { sync: metal3datatemplateSync, finalize: metal3datatemplateFinalize, customize: metal3datatemplateCustomize },
  metal3data: { sync: metal3dataSync, finalize: metal3dataFinalize, customize: metal3dataCustomize },
  metal3dataclaim: { sync: metal3dataclaimSync, finalize: metal3dataclaimFinalize, customize: metal3dataclaimCustomize },
};

/** By route, for scripts/chart-rbac.ts. */
export const metal3dataAccess: Readonly<Record<string, HookAccess>> = {
  metal3datatemplate: { related: METAL3DATATEMPLATE_RELATED },
  metal3data: { related: METAL3DATA_RELATED },
  metal3dataclaim: { related: METAL3DATACLAIM_RELATED },
};
