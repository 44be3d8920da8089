// The IPMI driver over Debian's ipmitool (docs/ipmi.md).
export { createIPMIDriver, createIPMIDriverFactory, IPMIDriver } from './driver.js';
export { DEFAULT_IPMI_SETTINGS, execTimeoutMs, resolveIPMISettings, systemClock } from './settings.js';
export type { IPMIClock, IPMICommandEvent, IPMISettings } from './settings.js';
export { execIpmitool } from './exec.js';
export type { ExecRequest, ExecResult, IPMIExec } from './exec.js';
export { CommandGate, GateRegistry, processGates } from './gate.js';
export { buildArgv } from './argv.js';
export type { IPMICommand, IPMITarget, PasswordArgument, SessionParameters } from './argv.js';
export { bootSteps, DISABLE_BOOT_TIMEOUT, UEFI_DEVICE_CODES } from './boot.js';
export { classifyFailure, FAILURE_RULES, redact } from './errors.js';
export { IPMIParseError, parseBootParameters, parseFRU, parseMCInfo, parsePowerStatus } from './parse.js';
export type { BootParameters, FRUProduct, MCInfo } from './parse.js';
export { IPMI_QUIRKS, quirksFor } from './quirks.js';
