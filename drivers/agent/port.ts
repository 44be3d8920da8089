// The port between the driver pool (drivers/pool) and the agent side (drivers/agent):
// the pool decides *when* a host boots the agent and which commands it runs; the agent
// side serves the IPA-compatible lookup/heartbeat API, hands out per-host tokens and
// sends the commands. Interface only: implemented in drivers/agent, faked in tests.
import type { HardwareDetails, RootDeviceHints } from '../../domain/baremetalhost.js';

export interface AgentHostRef {
  namespace: string;
  name: string;
}

export interface AgentHostIdentity extends AgentHostRef {
  uid: string;
}

/** What the agent's boot medium / kernel command line must carry to find the pool. */
export interface AgentBootParameters {
  /** Base URL of the agent API the agent looks up against (ipa-api-url). */
  apiURL: string;
  /** Per-host agent token (>= 32 chars); secret: never logged, never written to a status. */
  token: string;
}

/** A host whose agent has looked up and heartbeated at least once. */
export interface AgentHandle {
  namespace: string;
  name: string;
  /** Where the agent listens for commands (from its heartbeat). */
  callbackURL: string;
}

export interface AgentImage {
  url: string;
  checksum?: string;
  /** md5, sha256, sha512 or auto (checksum is then a URL or detected by length). */
  checksumType?: string;
  /** raw, qcow2, ... */
  format?: string;
  rootDeviceHints?: RootDeviceHints;
}

export interface AgentConfigDrive {
  userData?: string;
  networkData?: string;
  metaData?: string;
}

/** Every long-running agent command takes these; rejects with an AbortError on abort. */
export interface AgentCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface AgentService {
  /** Arm a host for an agent boot: returns what the boot medium/kernel line must carry. */
  expect(host: AgentHostIdentity, macs: string[]): Promise<AgentBootParameters>;
  /** Resolves when that host's agent has looked up and heartbeated; rejects on signal abort/timeout. */
  waitForAgent(host: AgentHostRef, options: { signal: AbortSignal; timeoutMs: number }): Promise<AgentHandle>;
  inventory(agent: AgentHandle, options?: AgentCallOptions): Promise<HardwareDetails>;
  /** standby.prepare_image with the config drive; resolves when the image is written. */
  writeImage(agent: AgentHandle, image: AgentImage, configDrive?: AgentConfigDrive, options?: AgentCallOptions): Promise<void>;
  /** deploy.erase_devices_metadata (automatedCleaningMode: metadata). */
  eraseDevicesMetadata(agent: AgentHandle, options?: AgentCallOptions): Promise<void>;
  /** standby.power_off: the agent syncs and powers the host off in-band. */
  powerOff(agent: AgentHandle, options?: AgentCallOptions): Promise<void>;
  /** Drop every trace of the host (token, callback URL); a later boot must be re-armed with expect(). */
  forget(host: AgentHostRef): void;
}
