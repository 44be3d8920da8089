// Realistic inventory for an emulated system: Processors, Memory, EthernetInterfaces (the
// configured MACs), Storage with Drives, SimpleStorage, and Bios. Defaults are derived from the
// system id so every run shows the same serial numbers and MACs.
import type { Json } from './replies.js';
import { derived, link, systemPath } from './render.js';
import { nicsOf } from './system.js';
import type { EmulatedSystem } from './system.js';
import type { DiskConfig, NICConfig } from './types.js';

const GIB = 1024 ** 3;
const OK = { State: 'Enabled', Health: 'OK' };
const DEFAULT_CPU_MODEL = 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz';

export interface Member {
  readonly id: string;
  readonly body: Json;
}

export function memoryGiBOf(system: EmulatedSystem): number {
  return system.config.memoryGiB ?? 64;
}

function nics(system: EmulatedSystem): NICConfig[] {
  const configured = nicsOf(system.config);
  if (configured.length > 0) {
    return configured;
  }
  const hex = derived(system.id, 'mac', 6);
  return [{ mac: `52:54:00:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}` }];
}

export function processors(system: EmulatedSystem): Member[] {
  const cpu = system.config.cpu ?? {};
  const sockets = cpu.sockets ?? 2;
  const cores = cpu.coresPerSocket ?? 8;
  const arm = cpu.instructionSet === 'ARM-A64';
  return Array.from({ length: sockets }, (_, index) => {
    const id = `CPU${index + 1}`;
    return {
      id,
      body: {
        '@odata.id': `${systemPath(system.id)}/Processors/${id}`,
        '@odata.type': '#Processor.v1_11_0.Processor',
        Id: id,
        Name: `Processor ${index + 1}`,
        Socket: `CPU ${index + 1}`,
        ProcessorType: 'CPU',
        ProcessorArchitecture: arm ? 'ARM' : 'x86',
        InstructionSet: cpu.instructionSet ?? 'x86-64',
        Manufacturer: arm ? 'Ampere(R)' : 'Intel(R) Corporation',
        Model: cpu.model ?? (arm ? 'Ampere(R) Altra(R) Processor' : DEFAULT_CPU_MODEL),
        MaxSpeedMHz: cpu.maxSpeedMHz ?? 2000,
        TotalCores: cores,
        TotalThreads: cpu.threadsPerSocket ?? cores * 2,
        Status: OK,
      },
    };
  });
}

export function memoryModules(system: EmulatedSystem): Member[] {
  const total = memoryGiBOf(system);
  const count = total % 16 === 0 && total >= 32 ? total / 16 : 1;
  return Array.from({ length: count }, (_, index) => {
    const id = `DIMM${index + 1}`;
    return {
      id,
      body: {
        '@odata.id': `${systemPath(system.id)}/Memory/${id}`,
        '@odata.type': '#Memory.v1_10_0.Memory',
        Id: id,
        Name: `DIMM ${index + 1}`,
        MemoryDeviceType: 'DDR4',
        CapacityMiB: (total / count) * 1024,
        OperatingSpeedMhz: 3200,
        Manufacturer: 'Samsung',
        SerialNumber: derived(`${system.id}/${id}`, 'dimm', 8).toUpperCase(),
        Status: OK,
      },
    };
  });
}

export function ethernetInterfaces(system: EmulatedSystem): Member[] {
  return nics(system).map((nic, index) => {
    const id = `NIC${index + 1}`;
    const mac = nic.mac.toUpperCase();
    return {
      id,
      body: {
        '@odata.id': `${systemPath(system.id)}/EthernetInterfaces/${id}`,
        '@odata.type': '#EthernetInterface.v1_6_0.EthernetInterface',
        Id: id,
        Name: `Ethernet interface ${index + 1}`,
        Description: 'Emulated Ethernet adapter',
        MACAddress: mac,
        PermanentMACAddress: mac,
        SpeedMbps: nic.speedMbps ?? 25_000,
        LinkStatus: 'LinkUp',
        IPv4Addresses: nic.ip === undefined ? [] : [{ Address: nic.ip, SubnetMask: '255.255.255.0', AddressOrigin: 'DHCP' }],
        Status: OK,
      },
    };
  });
}

const DEFAULT_DISKS: readonly DiskConfig[] = [
  { sizeGiB: 447, type: 'SSD', model: 'MZ7L3480HCHQ', vendor: 'Samsung' },
  { sizeGiB: 1788, type: 'NVME', model: 'PM9A3 1.92TB', vendor: 'Samsung' },
];

function disks(system: EmulatedSystem): readonly DiskConfig[] {
  return system.config.disks ?? DEFAULT_DISKS;
}

function driveBody(system: EmulatedSystem, disk: DiskConfig, index: number): Json {
  const id = `Disk${index + 1}`;
  const type = disk.type ?? 'HDD';
  return {
    '@odata.id': `${systemPath(system.id)}/Storage/1/Drives/${id}`,
    '@odata.type': '#Drive.v1_9_0.Drive',
    Id: id,
    Name: disk.name ?? `Disk ${index + 1}`,
    CapacityBytes: Math.round(disk.sizeGiB * GIB),
    MediaType: type === 'HDD' ? 'HDD' : 'SSD',
    Protocol: type === 'NVME' ? 'NVMe' : type === 'SSD' ? 'SATA' : 'SAS',
    Manufacturer: disk.vendor ?? 'Seagate',
    Model: disk.model ?? 'ST2000NM000A',
    SerialNumber: disk.serialNumber ?? derived(`${system.id}/${id}`, 'disk', 12).toUpperCase(),
    Status: OK,
  };
}

export function drives(system: EmulatedSystem): Member[] {
  return disks(system).map((disk, index) => ({ id: `Disk${index + 1}`, body: driveBody(system, disk, index) }));
}

export function storage(system: EmulatedSystem): Json {
  const path = `${systemPath(system.id)}/Storage/1`;
  return {
    '@odata.id': path,
    '@odata.type': '#Storage.v1_9_0.Storage',
    Id: '1',
    Name: 'Storage controller',
    Drives: drives(system).map((drive) => link(`${path}/Drives/${drive.id}`)),
    'Drives@odata.count': disks(system).length,
    Status: OK,
  };
}

export function simpleStorage(system: EmulatedSystem): Json {
  return {
    '@odata.id': `${systemPath(system.id)}/SimpleStorage/1`,
    '@odata.type': '#SimpleStorage.v1_3_0.SimpleStorage',
    Id: '1',
    Name: 'Simple storage controller',
    Devices: drives(system).map(({ body }) => ({
      Name: body.Name,
      Manufacturer: body.Manufacturer,
      Model: body.Model,
      CapacityBytes: body.CapacityBytes,
      Status: OK,
    })),
    Status: OK,
  };
}

export function bios(system: EmulatedSystem): Json {
  return {
    '@odata.id': `${systemPath(system.id)}/Bios`,
    '@odata.type': '#Bios.v1_1_0.Bios',
    Id: 'BIOS',
    Name: 'BIOS Configuration Current Settings',
    AttributeRegistry: 'BiosAttributeRegistry.v1_0_0',
    Attributes: {
      BootMode: system.boot.mode === 'UEFI' ? 'Uefi' : 'Bios',
      ProcVirtualization: 'Enabled',
      SriovGlobalEnable: 'Enabled',
      SecureBoot: 'Disabled',
    },
  };
}
