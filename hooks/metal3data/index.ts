// The Metal3Data controllers' hooks, by route name, for hooks/registry.ts
// (manifests/controllers/metal3data.yaml, docs/metal3data.md).
import type { ControllerHooks } from '../types.js';
import { metal3dataclaimCustomize, metal3dataclaimFinalize, metal3dataclaimSync } from './claim.js';
import { metal3dataCustomize, metal3dataFinalize, metal3dataSync } from './data.js';
import { metal3datatemplateCustomize, metal3datatemplateFinalize, metal3datatemplateSync } from './template.js';

export {
  metal3dataclaimCustomize,
  metal3dataclaimFinalize,
  metal3dataclaimSync,
  metal3dataCustomize,
  metal3dataFinalize,
  metal3dataSync,
  metal3datatemplateCustomize,
  metal3datatemplateFinalize,
  metal3datatemplateSync,
};

/** `/hooks/{route}/{sync|finalize|customize}` for the three Metal3Data controllers. */
export const metal3dataHooks: Readonly<Record<string, ControllerHooks>> = {
  metal3datatemplate: { sync: metal3datatemplateSync, finalize: metal3datatemplateFinalize, customize: metal3datatemplateCustomize },
  metal3data: { sync: metal3dataSync, finalize: metal3dataFinalize, customize: metal3dataCustomize },
  metal3dataclaim: { sync: metal3dataclaimSync, finalize: metal3dataclaimFinalize, customize: metal3dataclaimCustomize },
};
