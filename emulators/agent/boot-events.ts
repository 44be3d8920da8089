// Adapters from the emulators' hooks to the fake agent's BootEventSource, and host specs that
// match what the emulated BMC reports, so in-band and out-of-band inventory agree.
import type { SimulatorEvent, SimulatedHostState, BootEvent as IPMIBootEvent, SimulatedBootDevice } from '../ipmi/state.js';
import { derived } from '../redfish/render.js';
import { nicsOf } from '../redfish/system.js';
import type { DiskConfig, StateChangeEvent, SystemConfig } from '../redfish/types.js';
import type { BootDevice, BootEventSource, FakeDisk, FakeHostSpec, HostBoot } from './types.js';

const GIB = 1024 ** 3;

/** Redfish BootSourceOverrideTarget → what booted. "None" means the default order: the disk. */
const REDFISH_TARGETS: Record<string, BootDevice> = { Pxe: 'pxe', UefiHttp: 'http', Cd: 'cdrom', Hdd: 'disk', None: 'disk', UefiTarget: 'disk' };

/** A boot event from a Redfish emulator state change (in-process listener or HTTP notifier body). */
export function bootFromRedfish(event: Pick<StateChangeEvent, 'system' | 'bootSourceTarget' | 'virtualMedia' | 'macs'>): HostBoot {
  const device = REDFISH_TARGETS[event.bootSourceTarget] ?? 'other';
  const media = device === 'cdrom' && event.virtualMedia.inserted ? event.virtualMedia.image : undefined;
  return { hostId: event.system, device, ...(media === undefined ? {} : { media }), macs: event.macs };
}

/** The Redfish emulator's state-change listener as boot events (power-on boots, power-off stops). */
export function redfishBootEvents(emulator: { onStateChange(listener: (system: unknown, event: StateChangeEvent) => void): () => void }): BootEventSource {
  return {
    subscribe: (handlers) =>
      emulator.onStateChange((_system, event) => {
        if (event.type === 'power-on') handlers.boot(bootFromRedfish(event));
        if (event.type === 'power-off') handlers.powerOff(event.system);
      }),
  };
}

const IPMI_DEVICES: Record<SimulatedBootDevice, BootDevice> = { pxe: 'pxe', disk: 'disk', none: 'disk', cdrom: 'cdrom', bios: 'other', other: 'other' };

/** An ipmi_sim launcher's boot and state hooks as boot events for one host. IPMI has no virtual media. */
export function ipmiBootEvents(
  simulator: {
    onBoot(listener: (event: IPMIBootEvent) => void): () => void;
    onStateChange(listener: (event: SimulatorEvent, state: SimulatedHostState) => void): () => void;
  },
  hostId: string,
): BootEventSource {
  return {
    subscribe: (handlers) => {
      const offBoot = simulator.onBoot((event) => {
        handlers.boot({ hostId, device: IPMI_DEVICES[event.bootDevice] });
      });
      const offState = simulator.onStateChange((event, state) => {
        if (event.verb === 'set' && state.power === 'off' && (event.item === 'power' || event.item === 'shutdown')) handlers.powerOff(hostId);
      });
      return () => {
        offBoot();
        offState();
      };
    },
  };
}

/** The emulator's defaults (emulators/redfish/inventory.ts) for a system without disks. */
const EMULATOR_DEFAULT_DISKS: readonly DiskConfig[] = [
  { sizeGiB: 447, type: 'SSD', model: 'MZ7L3480HCHQ', vendor: 'Samsung' },
  { sizeGiB: 1788, type: 'NVME', model: 'PM9A3 1.92TB', vendor: 'Samsung' },
];

function diskOf(config: SystemConfig, disk: DiskConfig, index: number): FakeDisk {
  return {
    sizeBytes: Math.round(disk.sizeGiB * GIB),
    type: disk.type ?? 'HDD',
    model: disk.model ?? 'ST2000NM000A',
    vendor: disk.vendor ?? 'Seagate',
    serialNumber: disk.serialNumber ?? derived(`${config.id}/Disk${String(index + 1)}`, 'disk', 12).toUpperCase(),
  };
}

function macsOf(config: SystemConfig): FakeHostSpec['nics'] {
  const configured = nicsOf(config);
  if (configured.length > 0) {
    return configured.map((nic) => ({
      mac: nic.mac.toLowerCase(),
      ...(nic.ip === undefined ? {} : { ip: nic.ip }),
      ...(nic.speedMbps === undefined ? {} : { speedMbps: nic.speedMbps }),
    }));
  }
  const hex = derived(config.id, 'mac', 6);
  return [{ mac: `52:54:00:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}` }];
}

function cpuOf(config: SystemConfig): FakeHostSpec['cpu'] {
  const cpu = config.cpu ?? {};
  const cores = cpu.coresPerSocket ?? 8;
  const arm = cpu.instructionSet === 'ARM-A64';
  return {
    count: (cpu.sockets ?? 2) * (cpu.threadsPerSocket ?? cores * 2),
    model: cpu.model ?? (arm ? 'Ampere(R) Altra(R) Processor' : 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz'),
    mhz: cpu.maxSpeedMHz ?? 2000,
    arch: arm ? 'aarch64' : 'x86_64',
  };
}

/** A host spec for a Redfish emulator system: the same MACs, CPUs, memory and disks its BMC reports. */
export function hostFromRedfishConfig(config: SystemConfig, powerOff?: () => Promise<void>): FakeHostSpec {
  return {
    id: config.id,
    nics: macsOf(config),
    cpu: cpuOf(config),
    memoryMiB: (config.memoryGiB ?? 64) * 1024,
    disks: (config.disks ?? EMULATOR_DEFAULT_DISKS).map((disk, index) => diskOf(config, disk, index)),
    ...(config.manufacturer === undefined ? {} : { manufacturer: config.manufacturer }),
    ...(config.model === undefined ? {} : { productName: config.model }),
    ...(config.serialNumber === undefined ? {} : { serialNumber: config.serialNumber }),
    ...(config.biosVersion === undefined ? {} : { biosVersion: config.biosVersion }),
    ...(powerOff === undefined ? {} : { powerOff }),
  };
}
