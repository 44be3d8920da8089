// A vendor's Redfish quirks as data. The driver reads these
// fields; it never branches on a vendor name. One file per vendor fills them in.

type VendorName = 'generic' | 'supermicro' | 'hpe' | 'dell' | 'lenovo';

export interface VendorQuirks {
  readonly vendor: VendorName;
  /** Lower-case substrings of System.Manufacturer that select this row. */
  readonly manufacturers: readonly string[];
  /** Keys of the service root's `Oem` object that select this row (when Manufacturer is absent). */
  readonly oemKeys: readonly string[];
  /** Send BootSourceOverrideEnabled even when it already has the wanted value. */
  readonly alwaysSendBootEnabled: boolean;
  /** PATCH BootSourceOverrideMode again after every boot-device change. */
  readonly resyncBootModeAfterDevice: boolean;
  /** Vendor spellings to prefer for a standard boot target, in order (when allowed). */
  readonly bootTargetAliases: Readonly<Partial<Record<string, readonly string[]>>>;
  /** Where to look for virtual media first; the other place is the fallback. */
  readonly virtualMediaFirst: 'system' | 'manager';
  /** EjectMedia body: none (standard), or `{}` first. */
  readonly ejectBody: 'none' | 'empty-object';
  /** Send TransferProtocolType with InsertMedia from the start. */
  readonly insertWithTransferProtocol: boolean;
  /** Insert/eject by PATCHing the VirtualMedia resource even when actions are listed. */
  readonly virtualMediaByPatch: boolean;
  /** Manager firmware below this cannot boot standard virtual media (dotted numeric compare). */
  readonly minVirtualMediaFirmware?: string;
}
