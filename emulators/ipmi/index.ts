// A simulated IPMI BMC on OpenIPMI's ipmi_sim, for tests, the local environment and demos.
export { DEFAULT_FRU, freeUdpPort, IPMISimulator } from './simulator.js';
export type { IPMISimulatorOptions } from './simulator.js';
export { CHASSIS_SCRIPT, encodeFRU, renderEmu, renderLanConf } from './files.js';
export type { FRUProductInfo, LanConfInput, SimulatorPrivilege, SimulatorUser } from './files.js';
export { applyEvent, bootDeviceFromSimulator, parseEventLine, parseEventLog, readHostState } from './state.js';
export type { BootEvent, SimulatedBootDevice, SimulatedHostState, SimulatorEvent } from './state.js';
