// Lenovo XCC: virtual media is changed by PATCHing the VirtualMedia resource, not by actions.
import { genericQuirks } from './generic.js';
import type { VendorQuirks } from './types.js';

export const lenovoQuirks: VendorQuirks = {
  ...genericQuirks,
  vendor: 'lenovo',
  manufacturers: ['lenovo'],
  oemKeys: ['Lenovo'],
  virtualMediaFirst: 'manager',
  virtualMediaByPatch: true,
};
