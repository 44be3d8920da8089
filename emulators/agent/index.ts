// The fake IPA agent for emulated hosts (docs/agent.md, "Fake agent").
export { startFakeAgent, defaultIsAgentMedia } from './fleet.js';
export type { BootResult, FakeAgentFleet, FakeAgentOptions } from './fleet.js';
export { bootFromRedfish, hostFromRedfishConfig, ipmiBootEvents, redfishBootEvents } from './boot-events.js';
export { startControlServer } from './control.js';
export type { ControlServer } from './control.js';
export { ipaInventoryOf } from './inventory.js';
export type { BootDevice, BootEventSource, FakeAgentRecord, FakeHostSpec, HostBoot, WrittenImage } from './types.js';
