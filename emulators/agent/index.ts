// The fake IPA agent for emulated hosts (docs/agent.md, "Fake agent").
export { startFakeAgent } from './fleet.js';
export type { FakeAgentFleet } from './fleet.js';
export { hostFromRedfishConfig, ipmiBootEvents, redfishBootEvents } from './boot-events.js';
