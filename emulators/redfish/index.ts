// Ironhook's Redfish BMC emulator (docs/redfish.md, "The emulator").
export { startRedfishEmulator } from './server.js';
export type { RedfishEmulator } from './server.js';
export { parseEmulatorConfig } from './config.js';
export { ManualClock } from './clock.js';
export { selfSignedCertificate } from './tls.js';
export type { InjectedFaults, RandomFaultConfig } from './faults.js';
export { seededRandom } from './faults.js';
export type { FaultConfig, PersonalityName, StateChangeEvent, SystemConfig } from './types.js';
