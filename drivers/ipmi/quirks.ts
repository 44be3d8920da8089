// Vendor quirks as data, keyed by the IANA manufacturer ID `mc info`
// reports. Add a row, not a branch.

export interface IPMIQuirks {
  /** UEFI disk device code for the raw Set Boot Options command (spec: 0x08). */
  uefiDiskCode?: number;
}

const IPMI_QUIRKS: Readonly<Record<number, IPMIQuirks & { vendor: string }>> = {
  // Supermicro: UEFI hard disk is 0x24 (Ironic's ipmitool driver does the same).
  10876: { vendor: 'Supermicro', uefiDiskCode: 0x24 },
};

export function quirksFor(manufacturerId: number): IPMIQuirks {
  return IPMI_QUIRKS[manufacturerId] ?? {};
}
