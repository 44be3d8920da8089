// The fake agent's view of an emulated host and of the events that boot it. Adapters
// (boot-events.ts) turn the Redfish emulator's and the ipmi_sim launcher's hooks into these.
import type { FakeConfigDrive } from './configdrive.js';
import type { ImageVerification } from './download.js';

interface FakeNIC {
  name?: string;
  mac: string;
  ip?: string;
  speedMbps?: number;
}

export interface FakeDisk {
  name?: string;
  sizeBytes: number;
  type?: 'HDD' | 'SSD' | 'NVME';
  serialNumber?: string;
  model?: string;
  vendor?: string;
}

export interface FakeHostSpec {
  /** The emulator's system id (Redfish) or a name for an ipmi_sim host. */
  id: string;
  /** The host's NICs; the first one is the PXE interface. Lookup uses all their MACs. */
  nics: FakeNIC[];
  cpu?: { count?: number; model?: string; mhz?: number; arch?: string };
  memoryMiB?: number;
  disks?: FakeDisk[];
  manufacturer?: string;
  productName?: string;
  serialNumber?: string;
  biosVersion?: string;
  bmcAddress?: string;
  /** What standby.power_off does to the BMC (Redfish emulator API, BMC driver); absent: nothing. */
  powerOff?: () => Promise<void>;
}

export type BootDevice = 'pxe' | 'http' | 'cdrom' | 'disk' | 'other';

export interface HostBoot {
  hostId: string;
  device: BootDevice;
  /** The virtual media image inserted when the host booted from cdrom. */
  media?: string;
  /** The host's MACs, when the event carries them: an unknown host is added with these. */
  macs?: string[];
}

interface BootHandlers {
  boot(event: HostBoot): void;
  /** The host lost power (BMC power off): whatever ran on it stops. */
  powerOff(hostId: string): void;
}

/** Something that tells the fake agent when emulated hosts boot or lose power. */
export interface BootEventSource {
  subscribe(handlers: BootHandlers): () => void;
}

/** What happened on one host, over all its boots (for assertions). */
interface WrittenImage extends ImageVerification {
  /** When the write finished (ISO time), to attribute it to the request that asked for it. */
  time: string;
  /** The config drive's files, read back from the ISO the pool sent. */
  configDrive?: FakeConfigDrive;
}

export interface FakeAgentRecord {
  hostId: string;
  /** Boots that started the agent. */
  agentBoots: number;
  /** Boots from disk (the installed OS ran, no agent). */
  osBoots: number;
  lookups: number;
  heartbeats: number;
  inspections: number;
  images: WrittenImage[];
  metadataErased: number;
  poweredOff: number;
  /** Commands that ended FAILED, as "name: type". */
  failures: string[];
  /** A lookup answered the mask while the agent held no token (IPA locks itself down). */
  lockedDown: boolean;
}
