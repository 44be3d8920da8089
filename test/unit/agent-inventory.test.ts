// IPA's inventory → status.hardware, field by field, plus the shapes real agents send that are
// odd (string frequencies, missing physical_mb, an interface with v4 and v6, junk entries).
import { describe, expect, it } from 'vitest';
import { hardwareFromInventory, inventoryMACs, mapNICs, mapStorage } from '../../drivers/agent/inventory.js';
import type { IpaInventory } from '../../drivers/agent/inventory.js';

const inventory: IpaInventory = {
  interfaces: [
    {
      name: 'eno1',
      mac_address: '52:54:00:AB:CD:01',
      ipv4_address: '192.0.2.10',
      ipv6_address: null,
      vendor: '0x8086',
      product: '0x1572',
      speed_mbps: 10000,
      has_carrier: true,
    },
    { name: 'eno2', mac_address: '52:54:00:ab:cd:02', ipv4_address: null, speed_mbps: 1000 },
  ],
  cpu: { model_name: 'Intel(R) Xeon(R) Gold 6230', frequency: '2100.0000', count: 40, architecture: 'x86_64', flags: ['vmx', 'sse2', 'avx'] },
  disks: [
    {
      name: '/dev/sda',
      model: 'PERC H740P',
      size: 479559942144,
      rotational: true,
      wwn: '0x6d0946606f5aa200',
      serial: '00aa5f6f604609d06d',
      vendor: 'DELL',
      wwn_with_extension: '0x6d0946606f5aa2002a4b8fe8b2d1c3a1',
      wwn_vendor_extension: '0x2a4b8fe8b2d1c3a1',
      hctl: '0:2:0:0',
      by_path: '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0',
    },
    { name: '/dev/nvme0n1', model: 'Dell Express Flash', size: 1600321314816, rotational: false, serial: 'S4X1NA0N' },
    { name: '/dev/sdb', size: 240057409536, rotational: false },
  ],
  memory: { total: 201863626752, physical_mb: 196608 },
  bmc_address: '192.0.2.200',
  system_vendor: {
    product_name: 'PowerEdge R640',
    serial_number: 'CN7475185K0085',
    manufacturer: 'Dell Inc.',
    firmware: { vendor: 'Dell Inc.', version: '2.11.2', build_date: '01/04/2021' },
  },
  boot: { current_boot_mode: 'uefi', pxe_interface: '52:54:00:ab:cd:01' },
  hostname: 'server-01',
};

describe('hardwareFromInventory', () => {
  const hw = hardwareFromInventory(inventory);

  it.each([
    { name: 'system vendor', path: hw.systemVendor, want: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R640', serialNumber: 'CN7475185K0085' } },
    { name: 'firmware', path: hw.firmware, want: { bios: { vendor: 'Dell Inc.', version: '2.11.2', date: '01/04/2021' } } },
    { name: 'RAM from physical_mb', path: hw.ramMebibytes, want: 196608 },
    {
      name: 'CPU',
      path: hw.cpu,
      want: { arch: 'x86_64', model: 'Intel(R) Xeon(R) Gold 6230', clockMegahertz: 2100, count: 40, flags: ['avx', 'sse2', 'vmx'] },
    },
    { name: 'hostname', path: hw.hostname, want: 'server-01' },
  ])('$name', ({ path, want }) => {
    expect(path).toEqual(want);
  });

  it('NICs: normalised MAC, IP, name, model, speed, PXE flag', () => {
    expect(hw.nics).toEqual([
      { name: 'eno1', model: '0x8086 0x1572', mac: '52:54:00:ab:cd:01', ip: '192.0.2.10', speedGbps: 10, pxe: true },
      { name: 'eno2', mac: '52:54:00:ab:cd:02', speedGbps: 1, pxe: false },
    ]);
  });

  it('storage: size, type, serial, model, vendor, HCTL, WWNs, by-path', () => {
    expect(hw.storage).toEqual([
      {
        name: '/dev/sda',
        alternateNames: ['/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0'],
        rotational: true,
        type: 'HDD',
        sizeBytes: 479559942144,
        vendor: 'DELL',
        model: 'PERC H740P',
        serialNumber: '00aa5f6f604609d06d',
        wwn: '0x6d0946606f5aa200',
        wwnVendorExtension: '0x2a4b8fe8b2d1c3a1',
        wwnWithExtension: '0x6d0946606f5aa2002a4b8fe8b2d1c3a1',
        hctl: '0:2:0:0',
      },
      { name: '/dev/nvme0n1', rotational: false, type: 'NVME', sizeBytes: 1600321314816, model: 'Dell Express Flash', serialNumber: 'S4X1NA0N' },
      { name: '/dev/sdb', rotational: false, type: 'SSD', sizeBytes: 240057409536 },
    ]);
  });
});

describe('odd inputs', () => {
  it.each([
    { name: 'not an object', input: 'junk', want: { systemVendor: {}, firmware: { bios: {} }, nics: [], storage: [], cpu: {} } },
    { name: 'empty object', input: {}, want: { systemVendor: {}, firmware: { bios: {} }, nics: [], storage: [], cpu: {} } },
    { name: 'memory without physical_mb', input: { memory: { total: 8 * 1024 ** 3 } }, want: { ramMebibytes: 8192 } },
    { name: 'cpu frequency as number', input: { cpu: { frequency: 3000 } }, want: { cpu: { clockMegahertz: 3000 } } },
    { name: 'cpu frequency unparseable', input: { cpu: { frequency: 'fast' } }, want: { cpu: {} } },
  ])('$name', ({ input, want }) => {
    expect(hardwareFromInventory(input)).toMatchObject(want);
  });

  it('negative or missing memory leaves ramMebibytes out', () => {
    expect(hardwareFromInventory({ memory: { physical_mb: -1 } })).not.toHaveProperty('ramMebibytes');
    expect(hardwareFromInventory({ memory: {} })).not.toHaveProperty('ramMebibytes');
  });

  it('an interface with v4 and v6 becomes two NICs; invalid MACs are dropped', () => {
    const nics = mapNICs([
      { name: 'eth0', mac_address: '00:11:22:33:44:55', ipv4_address: '192.0.2.1', ipv6_address: '2001:db8::1' },
      { name: 'lo', mac_address: '' },
      { name: 'bogus', mac_address: 'zz:zz' },
      'not an object',
    ]);
    expect(nics.map((nic) => nic.ip)).toEqual(['192.0.2.1', '2001:db8::1']);
  });

  it('storage entries that are not objects are skipped', () => {
    expect(mapStorage([null, 3, { name: '/dev/vda', size: 10, rotational: true }])).toHaveLength(1);
    expect(mapStorage('nope')).toEqual([]);
  });

  it('inventoryMACs lists valid MACs only, normalised', () => {
    expect(inventoryMACs(inventory)).toEqual(['52:54:00:ab:cd:01', '52:54:00:ab:cd:02']);
    expect(inventoryMACs({ interfaces: [{ mac_address: 'x' }] })).toEqual([]);
    expect(inventoryMACs(undefined)).toEqual([]);
  });
});
