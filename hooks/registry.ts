// Every controller's hooks, by route name. The server serves exactly these.
import { baremetalhostAnnotationHooks, baremetalhostHooks } from './baremetalhost/index.js';
import { ipamHooks } from './ipam/index.js';
import { metal3clusterHooks } from './metal3cluster/index.js';
import { metal3dataHooks } from './metal3data/index.js';
import { metal3machineHooks } from './metal3machine/index.js';
import { metal3machinetemplateHooks } from './metal3machinetemplate/index.js';
import { metal3remediationHooks } from './metal3remediation/index.js';
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
