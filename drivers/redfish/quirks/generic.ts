// Standard Redfish behaviour: the row used when no vendor row matches.
import type { VendorQuirks } from './types.js';

export const genericQuirks: VendorQuirks = {
  vendor: 'generic',
  manufacturers: [],
  oemKeys: [],
  alwaysSendBootEnabled: false,
  resyncBootModeAfterDevice: false,
  bootTargetAliases: {},
  virtualMediaFirst: 'system',
  ejectBody: 'none',
  insertWithTransferProtocol: false,
  virtualMediaByPatch: false,
};
