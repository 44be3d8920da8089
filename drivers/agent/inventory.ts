// The in-band inventory IPA posts (ironic_python_agent.hardware.list_hardware_info, the
// `inventory` key of the inspection callback) and its mapping to status.hardware, the way
// baremetal-operator builds HardwareDetails from Ironic's inspection data.
import { normalizeMAC } from '../../domain/bmc/index.js';
import type { HardwareDetails, NIC, Storage } from '../../domain/baremetalhost.js';

export interface IpaInterface {
  name: string;
  mac_address: string;
  ipv4_address?: string | null;
  ipv6_address?: string | null;
  has_carrier?: boolean;
  vendor?: string | null;
  product?: string | null;
  speed_mbps?: number | null;
  biosdevname?: string | null;
  pxe_enabled?: boolean;
}

export interface IpaDisk {
  name: string;
  model?: string | null;
  size: number;
  rotational: boolean;
  wwn?: string | null;
  serial?: string | null;
  vendor?: string | null;
  wwn_with_extension?: string | null;
  wwn_vendor_extension?: string | null;
  hctl?: string | null;
  by_path?: string | null;
}

export interface IpaInventory {
  interfaces: IpaInterface[];
  cpu: { model_name?: string | null; frequency?: string | null; count?: number; architecture?: string; flags?: string[] };
  disks: IpaDisk[];
  memory: { total?: number; physical_mb?: number };
  bmc_address?: string | null;
  bmc_v6address?: string | null;
  bmc_mac?: string | null;
  system_vendor?: {
    product_name?: string | null;
    serial_number?: string | null;
    manufacturer?: string | null;
    firmware?: { vendor?: string | null; version?: string | null; build_date?: string | null };
  };
  boot?: { current_boot_mode?: string; pxe_interface?: string | null };
  hostname?: string;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function count(value: unknown): number | undefined {
  const parsed = typeof value === 'string' ? Number.parseFloat(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

function list(value: unknown): Loose[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Drops undefined fields, so the result compares and serialises cleanly. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/** "Intel Corporation" + "Ethernet X710": baremetal-operator joins vendor and product. */
function nicModel(item: Loose): string | undefined {
  const parts = [text(item.vendor), text(item.product)].filter((part) => part !== undefined);
  return parts.length === 0 ? undefined : parts.join(' ');
}

function nicBase(item: Loose, pxeMAC: string | undefined): NIC | undefined {
  const mac = normalizeMAC(text(item.mac_address) ?? '');
  if (mac === undefined) {
    return undefined;
  }
  const speed = count(item.speed_mbps);
  return compact({
    name: text(item.name),
    model: nicModel(item),
    mac,
    speedGbps: speed === undefined ? undefined : Math.floor(speed / 1000),
    pxe: item.pxe_enabled === true || mac === pxeMAC,
  });
}

/** One NIC per address, like baremetal-operator (an interface with v4 and v6 appears twice). */
export function mapNICs(interfaces: unknown, pxeInterface?: unknown): NIC[] {
  const pxeMAC = normalizeMAC(text(pxeInterface) ?? '');
  return list(interfaces).flatMap((item) => {
    const base = nicBase(item, pxeMAC);
    if (base === undefined) {
      return [];
    }
    const ips = [text(item.ipv4_address), text(item.ipv6_address)].filter((ip) => ip !== undefined);
    return ips.length === 0 ? [base] : ips.map((ip) => ({ ...base, ip }));
  });
}

function diskType(item: Loose): Storage['type'] {
  if ((text(item.name) ?? '').includes('nvme')) {
    return 'NVME';
  }
  return item.rotational === true ? 'HDD' : 'SSD';
}

function mapDisk(item: Loose): Storage {
  const byPath = text(item.by_path);
  return compact({
    name: text(item.name),
    alternateNames: byPath === undefined ? undefined : [byPath],
    rotational: item.rotational === true,
    type: diskType(item),
    sizeBytes: count(item.size),
    vendor: text(item.vendor),
    model: text(item.model),
    serialNumber: text(item.serial),
    wwn: text(item.wwn),
    wwnVendorExtension: text(item.wwn_vendor_extension),
    wwnWithExtension: text(item.wwn_with_extension),
    hctl: text(item.hctl),
  });
}

export function mapStorage(disks: unknown): Storage[] {
  return list(disks).map(mapDisk);
}

function mapCPU(cpu: unknown): HardwareDetails['cpu'] {
  const item = isObject(cpu) ? cpu : {};
  const flags = Array.isArray(item.flags) ? item.flags.filter((flag): flag is string => typeof flag === 'string').sort() : undefined;
  return compact({
    arch: text(item.architecture),
    model: text(item.model_name),
    clockMegahertz: count(item.frequency),
    flags,
    count: count(item.count),
  });
}

/** physical_mb when present (what the DIMMs add up to), else total bytes in MiB. */
function ramMebibytes(memory: unknown): number | undefined {
  const item = isObject(memory) ? memory : {};
  const physical = count(item.physical_mb);
  if (physical !== undefined) {
    return Math.floor(physical);
  }
  const total = count(item.total);
  return total === undefined ? undefined : Math.floor(total / (1024 * 1024));
}

function mapVendor(vendor: unknown): Pick<HardwareDetails, 'systemVendor' | 'firmware'> {
  const item = isObject(vendor) ? vendor : {};
  const firmware = isObject(item.firmware) ? item.firmware : {};
  const bios = compact({ date: text(firmware.build_date), vendor: text(firmware.vendor), version: text(firmware.version) });
  const systemVendor = compact({
    manufacturer: text(item.manufacturer),
    productName: text(item.product_name),
    serialNumber: text(item.serial_number),
  });
  return { systemVendor, firmware: { bios } };
}

/** status.hardware from IPA's inventory; unknown or malformed fields are left out. */
export function hardwareFromInventory(inventory: unknown): HardwareDetails {
  const item = isObject(inventory) ? inventory : {};
  const boot = isObject(item.boot) ? item.boot : {};
  return compact({
    ...mapVendor(item.system_vendor),
    ramMebibytes: ramMebibytes(item.memory),
    nics: mapNICs(item.interfaces, boot.pxe_interface),
    storage: mapStorage(item.disks),
    cpu: mapCPU(item.cpu),
    hostname: text(item.hostname),
  });
}

/** Every MAC the inventory lists (the inspection callback finds its host by these). */
export function inventoryMACs(inventory: unknown): string[] {
  const item = isObject(inventory) ? inventory : {};
  const macs = list(item.interfaces).map((entry) => normalizeMAC(text(entry.mac_address) ?? ''));
  return macs.filter((mac) => mac !== undefined);
}
