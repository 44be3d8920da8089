// Root device hints in the form IPA matches them (Ironic's node.properties.root_device), mapped
// from the BareMetalHost's rootDeviceHints as baremetal-operator maps them: exact-string
// operators for identifiers, "<in>" for model and vendor (a substring, as BMO documents),
// ">=" for the minimum size in GiB.
import type { RootDeviceHints } from '../../domain/baremetalhost.js';

export type IronicRootDevice = Record<string, string | boolean>;

// [field, Ironic hint, operator]: BMO's MakeHintMap.
const STRING_HINTS: [keyof RootDeviceHints, string, string][] = [
  ['hctl', 'hctl', 's=='],
  ['serialNumber', 'serial', 's=='],
  ['wwn', 'wwn', 's=='],
  ['wwnWithExtension', 'wwn_with_extension', 's=='],
  ['wwnVendorExtension', 'wwn_vendor_extension', 's=='],
  ['model', 'model', '<in>'],
  ['vendor', 'vendor', '<in>'],
];
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The hints IPA reads from its cached node, or undefined when there are none. */
export function ironicRootDevice(hints: RootDeviceHints | undefined): IronicRootDevice | undefined {
  if (hints === undefined) return undefined;
  const result: IronicRootDevice = {};
  const deviceName = text(hints.deviceName);
  if (deviceName !== undefined) result[deviceName.startsWith('/dev/disk/by-path/') ? 'by_path' : 'name'] = `s== ${deviceName}`;
  for (const [field, key, operator] of STRING_HINTS) {
    const value = text(hints[field]);
    if (value !== undefined) result[key] = `${operator} ${value}`;
  }
  if (typeof hints.minSizeGigabytes === 'number' && hints.minSizeGigabytes > 0) result['size'] = `>= ${String(hints.minSizeGigabytes)}`;
  if (typeof hints.rotational === 'boolean') result['rotational'] = hints.rotational;
  return Object.keys(result).length === 0 ? undefined : result;
}
