// A realistic IPA inventory for an emulated host, consistent with what its BMC reports (same
// MACs, disks, CPU and memory), in the shape drivers/agent/inventory.ts maps.
import { createHash } from 'node:crypto';
import type { IpaDisk, IpaInterface, IpaInventory } from '../../drivers/agent/inventory.js';
import type { FakeDisk, FakeHostSpec } from './types.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const DEFAULT_DISKS: readonly FakeDisk[] = [{ sizeBytes: 480 * GIB, type: 'SSD', model: 'Virtual SSD', vendor: 'ATA' }];

function derived(id: string, salt: string, length: number): string {
  return createHash('sha256').update(`${salt}/${id}`).digest('hex').slice(0, length);
}

function interfaces(spec: FakeHostSpec): IpaInterface[] {
  return spec.nics.map((nic, index) => ({
    name: nic.name ?? `eno${index + 1}`,
    mac_address: nic.mac.toLowerCase(),
    ipv4_address: nic.ip ?? null,
    ipv6_address: null,
    has_carrier: true,
    vendor: '0x8086',
    product: '0x1592',
    speed_mbps: nic.speedMbps ?? 25_000,
    biosdevname: null,
    pxe_enabled: index === 0,
  }));
}

function diskName(disk: FakeDisk, index: number, nvmeIndex: number): string {
  if (disk.name !== undefined) return disk.name.startsWith('/dev/') ? disk.name : `/dev/${disk.name}`;
  return disk.type === 'NVME' ? `/dev/nvme${nvmeIndex}n1` : `/dev/sd${String.fromCharCode(97 + index)}`;
}

function disks(spec: FakeHostSpec): IpaDisk[] {
  let scsi = 0;
  let nvme = 0;
  return (spec.disks ?? DEFAULT_DISKS).map((disk, index) => {
    const name = diskName(disk, disk.type === 'NVME' ? nvme : scsi, nvme);
    const hctl = disk.type === 'NVME' ? null : `0:0:${scsi}:0`;
    if (disk.type === 'NVME') nvme += 1;
    else scsi += 1;
    const wwn = `0x5000c500${derived(`${spec.id}/${String(index)}`, 'wwn', 8)}`;
    return {
      name,
      model: disk.model ?? 'Virtual Disk',
      size: disk.sizeBytes,
      rotational: disk.type === 'HDD',
      wwn,
      serial: disk.serialNumber ?? derived(`${spec.id}/${String(index)}`, 'disk', 12).toUpperCase(),
      vendor: disk.vendor ?? 'ATA',
      wwn_with_extension: wwn,
      wwn_vendor_extension: null,
      hctl,
      by_path: hctl === null ? `/dev/disk/by-path/pci-0000:0${String(index + 1)}:00.0-nvme-1` : `/dev/disk/by-path/pci-0000:00:1f.2-ata-${String(index + 1)}`,
    };
  });
}

function cpuOf(spec: FakeHostSpec): IpaInventory['cpu'] {
  const cpu = spec.cpu ?? {};
  return {
    model_name: cpu.model ?? 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz',
    frequency: (cpu.mhz ?? 2000).toFixed(4),
    count: cpu.count ?? 8,
    architecture: cpu.arch ?? 'x86_64',
    flags: ['fpu', 'vme', 'de', 'pse', 'sse2', 'avx2', 'vmx'],
  };
}

function vendorOf(spec: FakeHostSpec): IpaInventory['system_vendor'] {
  const manufacturer = spec.manufacturer ?? 'Ironhook';
  return {
    product_name: spec.productName ?? 'Ironhook Emulated Server',
    serial_number: spec.serialNumber ?? derived(spec.id, 'serial', 10).toUpperCase(),
    manufacturer,
    firmware: { vendor: manufacturer, version: spec.biosVersion ?? '1.0.0', build_date: '2026-01-01' },
  };
}

/** IPA's list_hardware_info for `spec`. */
export function ipaInventoryOf(spec: FakeHostSpec): IpaInventory {
  const memoryMiB = spec.memoryMiB ?? 16 * 1024;
  return {
    interfaces: interfaces(spec),
    cpu: cpuOf(spec),
    disks: disks(spec),
    memory: { total: memoryMiB * MIB - 512 * MIB, physical_mb: memoryMiB },
    bmc_address: spec.bmcAddress ?? null,
    bmc_v6address: null,
    bmc_mac: null,
    system_vendor: vendorOf(spec),
    boot: { current_boot_mode: 'uefi', pxe_interface: spec.nics[0]?.mac.toLowerCase() ?? null },
    hostname: `${spec.id}.localdomain`,
  };
}
