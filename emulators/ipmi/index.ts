// A simulated IPMI BMC on OpenIPMI's ipmi_sim, for tests, the local environment and demos.
export { IPMISimulator } from './simulator.js';
