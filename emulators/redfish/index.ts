// Ironhook's Redfish BMC emulator (docs/redfish.md, "The emulator").
export { startRedfishEmulator } from './server.js';
export type { EmulatorOptions, RedfishEmulator, RequestRecord, SystemHandle } from './server.js';
export { loadEmulatorConfig, parseEmulatorConfig } from './config.js';
export { ManualClock, systemScheduler } from './clock.js';
export type { Scheduler } from './clock.js';
export { selfSignedCertificate } from './tls.js';
export type { Certificate } from './tls.js';
export { PERSONALITIES } from './personalities/index.js';
export type { Personality } from './personalities/index.js';
export type { StateChangeListener } from './notifier.js';
export type {
  AsyncTaskConfig,
  CPUConfig,
  DiskConfig,
  ETagMode,
  FaultConfig,
  NICConfig,
  PersonalityName,
  StateChangeEvent,
  SystemConfig,
} from './types.js';
