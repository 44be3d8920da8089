// Boot device commands, pure. What is sent, in order:
//   1. `raw 0x00 0x08 0x03 0x08` (Set System Boot Options, parameter 3 "BMC boot flag valid
//      bit clearing", bit 3: do not clear the valid bit when the spec's 60 s timer expires),
//      as Ironic sends it, unless disableBootTimeout is off (OpenBMC rejects it);
//   2. legacy BIOS: `chassis bootdev <pxe|disk|cdrom|bios> [options=persistent]`;
//      UEFI, "raw" (Ironic's way): `raw 0x00 0x08 0x05 <0xa0 once|0xe0 persistent> <device>
//      0x00 0x00 0x00` with pxe 0x04, disk 0x08 (Supermicro 0x24), cdrom 0x14, bios 0x18;
//      UEFI, "efiboot": `chassis bootdev <device> options=efiboot[,persistent]`.
import { BMCError } from '../bmc/types.js';
import type { BootDevice, BootOptions } from '../bmc/types.js';
import { bootdev, raw } from './argv.js';
import type { IPMICommand } from './argv.js';

type IPMIBootDevice = Exclude<BootDevice, 'uefi-http'>;

/** Set System Boot Options: netfn chassis (0x00), command 0x08. */
const SET_BOOT_OPTIONS = [0x00, 0x08] as const;
const DISABLE_BOOT_TIMEOUT = raw([...SET_BOOT_OPTIONS, 0x03, 0x08]);

/** Boot flags byte 1: 0x80 valid, 0x40 persistent, 0x20 EFI. */
const UEFI_ONCE = 0xa0;
const UEFI_PERSISTENT = 0xe0;

const UEFI_DEVICE_CODES: Readonly<Record<IPMIBootDevice, number>> = {
  pxe: 0x04,
  disk: 0x08,
  cdrom: 0x14,
  bios: 0x18,
};

export interface BootStyle {
  uefiBootMethod: 'raw' | 'efiboot';
  disableBootTimeout: boolean;
  /** Vendor override of the UEFI disk code (Supermicro: 0x24). */
  uefiDiskCode?: number;
}

/** One command and the ipmitool output that proves it was accepted. */
export interface BootStep {
  command: IPMICommand;
  expect: { kind: 'raw' } | { kind: 'bootdev'; device: string };
}

function bootDeviceOf(options: BootOptions): IPMIBootDevice {
  if (options.device === 'uefi-http') {
    throw new BMCError('Permanent', 'Unsupported', 'IPMI cannot boot from a UEFI HTTP URI; use a Redfish scheme (redfish-uefihttp)');
  }
  return options.device;
}

function uefiRaw(device: IPMIBootDevice, persistent: boolean, style: BootStyle): BootStep {
  const code = device === 'disk' && style.uefiDiskCode !== undefined ? style.uefiDiskCode : UEFI_DEVICE_CODES[device];
  const flags = persistent ? UEFI_PERSISTENT : UEFI_ONCE;
  return { command: raw([...SET_BOOT_OPTIONS, 0x05, flags, code, 0x00, 0x00, 0x00]), expect: { kind: 'raw' } };
}

function bootdevStep(device: IPMIBootDevice, options: readonly string[]): BootStep {
  return { command: bootdev(device, options), expect: { kind: 'bootdev', device } };
}

/** The commands for one boot device change, in the order they are sent. */
export function bootSteps(options: BootOptions, style: BootStyle): BootStep[] {
  const device = bootDeviceOf(options);
  const steps: BootStep[] = style.disableBootTimeout ? [{ command: DISABLE_BOOT_TIMEOUT, expect: { kind: 'raw' } }] : [];
  const persistent = options.persistent ? ['persistent'] : [];
  if (options.mode === 'legacy') {
    steps.push(bootdevStep(device, persistent));
  } else if (style.uefiBootMethod === 'raw') {
    steps.push(uefiRaw(device, options.persistent, style));
  } else {
    steps.push(bootdevStep(device, ['efiboot', ...persistent]));
  }
  return steps;
}
