// Supermicro (X11/X12/X13 BMCs): InsertMedia rejects Inserted/WriteProtected (never sent anyway)
// and wants TransferProtocolType; BootSourceOverrideEnabled must always be sent; the boot mode
// falls back to Legacy after a boot-device change, so it is re-sent; the virtual CD is "UsbCd".
import { genericQuirks } from './generic.js';
import type { VendorQuirks } from './types.js';

export const supermicroQuirks: VendorQuirks = {
  ...genericQuirks,
  vendor: 'supermicro',
  manufacturers: ['supermicro', 'super micro'],
  oemKeys: ['Supermicro'],
  alwaysSendBootEnabled: true,
  resyncBootModeAfterDevice: true,
  bootTargetAliases: { Cd: ['UsbCd'] },
  insertWithTransferProtocol: true,
};
