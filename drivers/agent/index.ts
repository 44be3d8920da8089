// The agent side of the driver pool (docs/agent.md): the IPA-compatible API agents call, the
// command client, and AgentService (port.ts) on top of both.
export { API_VERSION, createAgentAPI, DEFAULT_HEARTBEAT_TIMEOUT_SECONDS } from './api.js';
export type { AgentAPIOptions } from './api.js';
export { AGENT_TIMEOUTS, AgentClient, bareName } from './client.js';
export type { AgentClientOptions, AgentEndpoint, CommandResult, CommandStatus } from './client.js';
export { AgentError } from './errors.js';
export type { AgentErrorReason } from './errors.js';
export { buildConfigDrive, buildImageInfo } from './image-info.js';
export { hardwareFromInventory } from './inventory.js';
export type { IpaInventory } from './inventory.js';
export { agentKernelParams } from './ipxe.js';
export type { PXEBootConfig } from './ipxe.js';
export { AGENT_SECRET_LABEL, SecretAgentStateStore } from './secret-store.js';
export { startAgentSide } from './server.js';
export type { AgentSide, AgentSideOptions } from './server.js';
export { DEFAULT_SERVICE_TIMEOUTS, IronhookAgentService } from './service.js';
export type { AgentServiceOptions, AgentServiceTimeouts } from './service.js';
export { AgentState } from './state.js';
export type { AgentRecord } from './state.js';
export { MemoryAgentStateStore } from './store.js';
export type { AgentStateStore } from './store.js';
export { MASKED_TOKEN, MIN_TOKEN_LENGTH } from './tokens.js';
