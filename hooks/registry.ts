// Every controller's hooks, by route name. The server serves exactly these.
import { baremetalhostAnnotationHooks, baremetalhostHooks } from './baremetalhost/index.js';
import { ipamAccess, ipamHooks } from './ipam/index.js';
import type { HookAccess } from './kit/index.js';
import { metal3clusterAccess, metal3clusterHooks } from './metal3cluster/index.js';
import { metal3dataAccess, metal3dataHooks } from './metal3data/index.js';
import { metal3machineAccess, metal3machineHooks } from './metal3machine/index.js';
import { metal3machinetemplateAccess, metal3machinetemplateHooks } from './metal3machinetemplate/index.js';
import { metal3remediationAccess, metal3remediationHooks } from './metal3remediation/index.js';
import type { HookRegistry } from './types.js';

export const hookRegistry: HookRegistry = {
  baremetalhost: baremetalhostHooks,
  'baremetalhost-annotations': baremetalhostAnnotationHooks,
  ...ipamHooks,
  ...metal3dataHooks,
  ...metal3clusterHooks,
  ...metal3machinetemplateHooks,
  ...metal3remediationHooks,
  metal3machine: metal3machineHooks,
};

/**
 * What each route's hooks make Metacontroller read (customize) or update (blockOwnerDeletion
 * owners) beyond its controller object, by route; scripts/chart-rbac.ts grants exactly this.
 * The BareMetalHost controllers have no customize hook and no blocking owners.
 */
export const hookAccess: Readonly<Record<string, HookAccess>> = {
  ...ipamAccess,
  ...metal3dataAccess,
  ...metal3clusterAccess,
  ...metal3machinetemplateAccess,
  ...metal3remediationAccess,
  ...metal3machineAccess,
};
