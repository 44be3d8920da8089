// Out-of-band inventory in the shape of status.hardware:
// CPU from Processors (threads summed, architecture from the first that reports it), RAM from
// MemorySummary (or the Memory modules), NICs with MACs and addresses from EthernetInterfaces,
// disks from Storage/Drives (SimpleStorage devices when Storage lists none), the system vendor
// and the BIOS version. Whatever the BMC does not expose stays absent; nothing is guessed.
import type { HardwareDetails, NIC, Storage } from '../../domain/baremetalhost.js';
import { normalizeMAC } from '../../domain/bmc/index.js';
import type { Loaded } from './client.js';
import type { RedfishContext } from './context.js';
import { Reason, RedfishHttpError } from './errors.js';
import { asResource, list, num, ref, refs, text } from './resource.js';
import type { Resource } from './resource.js';

const FATAL_FOR_INVENTORY = new Set<string>([Reason.CredentialsInvalid, Reason.Busy]);

/**
 * Loads a linked resource that inventory can do without. A BMC that links something it does not
 * serve (sushy-tools' fake driver: 404 for Memory, 501 for Processors, 500 for Storage, even after
 * the GET retries) yields nothing for that part instead of failing the whole inventory. Bad
 * credentials, a busy BMC and transport failures (unreachable, timeout, TLS) still fail it.
 */
async function optional(context: RedfishContext, path: string): Promise<Resource | undefined> {
  try {
    return (await context.client.load(path)).resource;
  } catch (error) {
    if (error instanceof RedfishHttpError && !FATAL_FOR_INVENTORY.has(error.reason)) {
      context.logger.warn({ path, status: error.status }, 'Redfish inventory: linked resource not served, skipped');
      return undefined;
    }
    throw error;
  }
}

async function members(context: RedfishContext, collection: string | undefined): Promise<Resource[]> {
  const loaded: Resource[] = [];
  const list = collection === undefined ? undefined : await optional(context, collection);
  for (const member of refs(list, 'Members')) {
    const resource = await optional(context, member);
    if (resource !== undefined) {
      loaded.push(resource);
    }
  }
  return loaded;
}

const ARCHITECTURES: Readonly<Record<string, string>> = {
  'x86-64': 'x86_64',
  x86: 'x86_64',
  'ARM-A64': 'aarch64',
  ARM: 'aarch64',
  PowerISA: 'ppc64le',
  Power: 'ppc64le',
  IA64: 'ia64',
  MIPS: 'mips64',
};

function architectureOf(processor: Resource): string | undefined {
  const reported = text(processor, 'InstructionSet') ?? text(processor, 'ProcessorArchitecture');
  return reported === undefined ? undefined : (ARCHITECTURES[reported] ?? reported);
}

export function cpuOf(processors: readonly Resource[]): HardwareDetails['cpu'] {
  const cpus = processors.filter((processor) => (text(processor, 'ProcessorType') ?? 'CPU') === 'CPU');
  if (cpus.length === 0) {
    return undefined;
  }
  const count = cpus.reduce((sum, cpu) => sum + (num(cpu, 'TotalThreads') ?? num(cpu, 'TotalCores') ?? 1), 0);
  const first = cpus[0];
  const arch = cpus.map(architectureOf).find((value) => value !== undefined);
  const clock = num(first, 'MaxSpeedMHz') ?? num(first, 'OperatingSpeedMHz');
  return {
    ...(arch === undefined ? {} : { arch }),
    ...(text(first, 'Model') === undefined ? {} : { model: text(first, 'Model') }),
    ...(clock === undefined ? {} : { clockMegahertz: clock }),
    count,
  };
}

export function ramMebibytesOf(system: Resource, modules: readonly Resource[]): number | undefined {
  const gib = num(system, 'MemorySummary', 'TotalSystemMemoryGiB');
  if (gib !== undefined && gib > 0) {
    return Math.round(gib * 1024);
  }
  const mib = modules.reduce((sum, module) => sum + (num(module, 'CapacityMiB') ?? 0), 0);
  return mib > 0 ? mib : undefined;
}

function firstAddress(nic: Resource): string | undefined {
  const addresses = [...list(nic, 'IPv4Addresses'), ...list(nic, 'IPv6Addresses')].map((entry) => text(asResource(entry), 'Address'));
  return addresses.find((address) => address !== undefined && address !== '0.0.0.0' && address !== '::');
}

export function nicOf(nic: Resource): NIC | undefined {
  const mac = normalizeMAC(text(nic, 'MACAddress') ?? text(nic, 'PermanentMACAddress') ?? '');
  if (mac === undefined) {
    return undefined;
  }
  const ip = firstAddress(nic);
  const speed = num(nic, 'SpeedMbps');
  return {
    name: text(nic, 'Id') ?? text(nic, 'Name') ?? mac,
    mac,
    ...(ip === undefined ? {} : { ip }),
    ...(speed === undefined ? {} : { speedGbps: speed / 1000 }),
    ...(text(nic, 'Description') === undefined ? {} : { model: text(nic, 'Description') }),
  };
}

function diskType(drive: Resource): Storage['type'] {
  if (text(drive, 'Protocol') === 'NVMe') {
    return 'NVME';
  }
  const media = text(drive, 'MediaType');
  return media === 'SSD' ? 'SSD' : media === 'HDD' ? 'HDD' : undefined;
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function driveOf(drive: Resource): Storage {
  const type = diskType(drive);
  return defined<Storage>({
    name: text(drive, 'Name') ?? text(drive, 'Id'),
    sizeBytes: num(drive, 'CapacityBytes'),
    type,
    rotational: type === undefined ? undefined : type === 'HDD',
    serialNumber: text(drive, 'SerialNumber'),
    model: text(drive, 'Model'),
    vendor: text(drive, 'Manufacturer'),
  });
}

async function drives(context: RedfishContext, system: Resource): Promise<Storage[]> {
  const found: Storage[] = [];
  for (const storage of await members(context, ref(system, 'Storage'))) {
    for (const drive of refs(storage, 'Drives')) {
      const resource = await optional(context, drive);
      found.push(...(resource === undefined ? [] : [driveOf(resource)]));
    }
  }
  if (found.length > 0) {
    return found;
  }
  for (const controller of await members(context, ref(system, 'SimpleStorage'))) {
    const devices = list(controller, 'Devices').map(asResource);
    found.push(...devices.filter((device): device is Resource => device !== undefined && num(device, 'CapacityBytes') !== undefined).map(driveOf));
  }
  return found;
}

function vendorOf(system: Resource): HardwareDetails['systemVendor'] {
  return defined({ manufacturer: text(system, 'Manufacturer'), productName: text(system, 'Model'), serialNumber: text(system, 'SerialNumber') });
}

export async function readInventory(context: RedfishContext, loaded: Loaded): Promise<HardwareDetails> {
  const system = loaded.resource;
  const processors = await members(context, ref(system, 'Processors'));
  const modules = num(system, 'MemorySummary', 'TotalSystemMemoryGiB') === undefined ? await members(context, ref(system, 'Memory')) : [];
  const nics = (await members(context, ref(system, 'EthernetInterfaces'))).map(nicOf).filter((nic): nic is NIC => nic !== undefined);
  const bios = text(system, 'BiosVersion');
  return defined<HardwareDetails>({
    systemVendor: vendorOf(system),
    firmware: bios === undefined ? undefined : { bios: { version: bios } },
    ramMebibytes: ramMebibytesOf(system, modules),
    nics,
    storage: await drives(context, system),
    cpu: cpuOf(processors),
    hostname: text(system, 'HostName'),
  });
}
