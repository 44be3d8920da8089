// Pure parts of the Redfish driver, table-driven: the vendor-quirk selection and firmware
// comparison, boot target choice, and the inventory mappers for shapes the emulator does not
// produce (ARM, PermanentMACAddress only, SimpleStorage devices, missing fields).
import { describe, expect, it } from 'vitest';
import { bootTarget } from '../../drivers/redfish/boot.js';
import { cpuOf, driveOf, nicOf, ramMebibytesOf } from '../../drivers/redfish/inventory.js';
import { QUIRK_TABLE, firmwareAtLeast, genericQuirks, selectQuirks } from '../../drivers/redfish/index.js';
import { BMCError } from '../../drivers/bmc/types.js';

describe('vendor quirk selection', () => {
  it.each([
    { name: 'Supermicro', manufacturer: 'Supermicro', oem: [], vendor: 'supermicro' },
    { name: 'Super Micro Computer', manufacturer: 'Super Micro Computer, Inc.', oem: [], vendor: 'supermicro' },
    { name: 'HPE', manufacturer: 'HPE', oem: [], vendor: 'hpe' },
    { name: 'HP', manufacturer: 'HP', oem: [], vendor: 'hpe' },
    { name: 'Hewlett Packard Enterprise', manufacturer: 'Hewlett Packard Enterprise', oem: [], vendor: 'hpe' },
    { name: 'Dell Inc.', manufacturer: 'Dell Inc.', oem: [], vendor: 'dell' },
    { name: 'Lenovo', manufacturer: 'Lenovo', oem: [], vendor: 'lenovo' },
    { name: 'no Manufacturer, Dell in the root Oem', manufacturer: undefined, oem: ['Dell'], vendor: 'dell' },
    { name: 'no Manufacturer, Hpe in the root Oem', manufacturer: undefined, oem: ['Hpe'], vendor: 'hpe' },
    { name: 'unknown vendor', manufacturer: 'Acme', oem: ['Acme'], vendor: 'generic' },
    { name: '"hp" inside another word does not match', manufacturer: 'Alphabet Systems', oem: [], vendor: 'generic' },
    { name: 'nothing at all', manufacturer: undefined, oem: [], vendor: 'generic' },
  ])('$name → $vendor', ({ manufacturer, oem, vendor }) => {
    expect(selectQuirks(manufacturer, oem).vendor).toBe(vendor);
  });

  it('every row is data over the generic row: same keys, its own vendor name', () => {
    const keys = Object.keys(genericQuirks).sort();
    for (const row of QUIRK_TABLE) {
      expect(
        Object.keys(row)
          .filter((key) => key !== 'minVirtualMediaFirmware')
          .sort(),
      ).toEqual(keys);
      expect(row.manufacturers.length).toBeGreaterThan(0);
    }
    expect(new Set(QUIRK_TABLE.map((row) => row.vendor)).size).toBe(QUIRK_TABLE.length);
  });

  it.each([
    { version: '6.00.00.00', minimum: '6.00.00.00', ok: true },
    { version: '6.10.30.00', minimum: '6.00.00.00', ok: true },
    { version: '5.10.50.00', minimum: '6.00.00.00', ok: false },
    { version: '7', minimum: '6.00.00.00', ok: true },
    { version: '6.0', minimum: '6.00.00.01', ok: false },
  ])('firmware $version ≥ $minimum is $ok', ({ version, minimum, ok }) => {
    expect(firmwareAtLeast(version, minimum)).toBe(ok);
  });
});

describe('boot target', () => {
  const supermicro = selectQuirks('Supermicro');
  it.each([
    { name: 'pxe, no list', device: 'pxe', allowed: undefined, quirks: genericQuirks, target: 'Pxe' },
    { name: 'disk', device: 'disk', allowed: ['Pxe', 'Hdd'], quirks: genericQuirks, target: 'Hdd' },
    { name: 'bios', device: 'bios', allowed: ['BiosSetup'], quirks: genericQuirks, target: 'BiosSetup' },
    { name: 'uefi-http', device: 'uefi-http', allowed: ['UefiHttp'], quirks: genericQuirks, target: 'UefiHttp' },
    { name: 'cdrom on Supermicro prefers UsbCd', device: 'cdrom', allowed: ['Cd', 'UsbCd'], quirks: supermicro, target: 'UsbCd' },
    { name: 'cdrom on Supermicro without UsbCd uses Cd', device: 'cdrom', allowed: ['Cd'], quirks: supermicro, target: 'Cd' },
    { name: 'cdrom on Supermicro, no list: the standard name', device: 'cdrom', allowed: undefined, quirks: supermicro, target: 'Cd' },
    { name: 'not allowed', device: 'cdrom', allowed: ['Pxe'], quirks: genericQuirks, target: 'Unsupported' },
  ] as const)('$name', ({ device, allowed, quirks, target }) => {
    let chosen: string;
    try {
      chosen = bootTarget(device, allowed, quirks);
    } catch (error) {
      chosen = error instanceof BMCError ? error.reason : 'thrown';
    }
    expect(chosen).toBe(target);
  });
});

describe('inventory mappers', () => {
  it.each([
    {
      name: 'ARM by InstructionSet',
      cpus: [{ InstructionSet: 'ARM-A64', TotalThreads: 80, Model: 'Altra' }],
      cpu: { arch: 'aarch64', model: 'Altra', count: 80 },
    },
    { name: 'x86 by ProcessorArchitecture only', cpus: [{ ProcessorArchitecture: 'x86', TotalCores: 4 }], cpu: { arch: 'x86_64', count: 4 } },
    {
      name: 'GPUs are not CPUs',
      cpus: [
        { ProcessorType: 'GPU', TotalThreads: 1000 },
        { ProcessorType: 'CPU', TotalThreads: 8, OperatingSpeedMHz: 2100 },
      ],
      cpu: { clockMegahertz: 2100, count: 8 },
    },
    { name: 'no processors', cpus: [], cpu: undefined },
  ])('CPU: $name', ({ cpus, cpu }) => {
    expect(cpuOf(cpus)).toEqual(cpu);
  });

  it.each([
    { name: 'MemorySummary in GiB', system: { MemorySummary: { TotalSystemMemoryGiB: 7.5 } }, modules: [], mib: 7680 },
    { name: 'modules when the summary is missing', system: {}, modules: [{ CapacityMiB: 8192 }, { CapacityMiB: 8192 }], mib: 16384 },
    { name: 'nothing reported', system: {}, modules: [], mib: undefined },
  ])('RAM: $name', ({ system, modules, mib }) => {
    expect(ramMebibytesOf(system, modules)).toBe(mib);
  });

  it.each([
    {
      name: 'MACAddress and IPv4',
      nic: { Id: 'eth0', MACAddress: 'AA:BB:CC:DD:EE:FF', IPv4Addresses: [{ Address: '0.0.0.0' }, { Address: '192.0.2.5' }] },
      out: { name: 'eth0', mac: 'aa:bb:cc:dd:ee:ff', ip: '192.0.2.5' },
    },
    {
      name: 'PermanentMACAddress only, IPv6',
      nic: { Name: 'Port 1', PermanentMACAddress: 'aa-bb-cc-dd-ee-01', IPv6Addresses: [{ Address: 'fd00::5' }] },
      out: { name: 'Port 1', mac: 'aa:bb:cc:dd:ee:01', ip: 'fd00::5' },
    },
    { name: 'no MAC: skipped', nic: { Id: 'x' }, out: undefined },
  ])('NIC: $name', ({ nic, out }) => {
    expect(nicOf(nic)).toEqual(out);
  });

  it.each([
    {
      name: 'SATA SSD',
      drive: { Name: 'd', CapacityBytes: 10, MediaType: 'SSD', Protocol: 'SATA' },
      out: { name: 'd', sizeBytes: 10, type: 'SSD', rotational: false },
    },
    { name: 'NVMe', drive: { Id: 'n', Protocol: 'NVMe', MediaType: 'SSD' }, out: { name: 'n', type: 'NVME', rotational: false } },
    {
      name: 'HDD with identity',
      drive: { Name: 'h', MediaType: 'HDD', SerialNumber: 'S', Model: 'M', Manufacturer: 'V' },
      out: { name: 'h', type: 'HDD', rotational: true, serialNumber: 'S', model: 'M', vendor: 'V' },
    },
    { name: 'SimpleStorage device (no type)', drive: { Name: 's', CapacityBytes: 5 }, out: { name: 's', sizeBytes: 5 } },
  ])('disk: $name', ({ drive, out }) => {
    expect(driveOf(drive)).toEqual(out);
  });
});
