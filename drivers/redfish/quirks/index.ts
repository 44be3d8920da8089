// The vendor-quirk table: rows are data, selection is one lookup by Manufacturer (then by the
// service root's Oem keys), and the generic row when nothing matches.
import { dellQuirks } from './dell.js';
import { genericQuirks } from './generic.js';
import { hpeQuirks } from './hpe.js';
import { lenovoQuirks } from './lenovo.js';
import { supermicroQuirks } from './supermicro.js';
import type { VendorQuirks } from './types.js';

export type { VendorQuirks } from './types.js';
export { genericQuirks };

export const QUIRK_TABLE: readonly VendorQuirks[] = [supermicroQuirks, hpeQuirks, dellQuirks, lenovoQuirks];

function byManufacturer(manufacturer: string): VendorQuirks | undefined {
  const words = manufacturer
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  const lower = manufacturer.toLowerCase();
  return QUIRK_TABLE.find((row) => row.manufacturers.some((name) => (name.includes(' ') ? lower.includes(name) : words.includes(name))));
}

/** The quirk row for a BMC: Manufacturer first, then the root's Oem keys, else generic. */
export function selectQuirks(manufacturer: string | undefined, rootOemKeys: readonly string[] = []): VendorQuirks {
  const named = manufacturer === undefined ? undefined : byManufacturer(manufacturer);
  return named ?? QUIRK_TABLE.find((row) => row.oemKeys.some((key) => rootOemKeys.includes(key))) ?? genericQuirks;
}

/** Dotted numeric comparison ("6.10.00.00" vs "6.00.00.00"); non-numeric parts count as 0. */
export function firmwareAtLeast(version: string, minimum: string): boolean {
  const parts = (text: string): number[] => text.split(/[.\-_ ]/).map((part) => Number.parseInt(part, 10) || 0);
  const have = parts(version);
  const want = parts(minimum);
  for (let index = 0; index < Math.max(have.length, want.length); index += 1) {
    const difference = (have[index] ?? 0) - (want[index] ?? 0);
    if (difference !== 0) {
      return difference > 0;
    }
  }
  return true;
}
