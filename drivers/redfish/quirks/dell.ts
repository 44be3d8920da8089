// Dell iDRAC: virtual media under the Manager (iDRAC.Embedded.1); standard virtual-media boot
// needs firmware 6.00.00.00 or later (older ones need OEM calls, which this driver does not make:
// it never touches Dell's job queue). The system is usually Systems/System.Embedded.1.
import { genericQuirks } from './generic.js';
import type { VendorQuirks } from './types.js';

export const dellQuirks: VendorQuirks = {
  ...genericQuirks,
  vendor: 'dell',
  manufacturers: ['dell'],
  oemKeys: ['Dell'],
  virtualMediaFirst: 'manager',
  minVirtualMediaFirmware: '6.00.00.00',
};
