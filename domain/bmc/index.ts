// BMC addresses, the scheme registry and BMC-dependent validation: pure, shared by the hooks
// and the driver pool.
export {
  IPMI_DEFAULT_PORT,
  IPMI_DEFAULT_PRIVILEGE_LEVEL,
  parseBMCAddress,
  privilegeLevelFromQuery,
  systemIdFromPath,
} from './address.js';
export type { BMCAddressError, BMCAddressErrorReason, BMCAddressParse, BMCTransport, ParsedBMCAddress } from './address.js';
export { isDNSName, isIPLiteral, isIPv4Literal, isIPv6Literal } from './ip.js';
export { normalizeMAC, parseMAC } from './mac.js';
export type { MACParse } from './mac.js';
export { formatHost, hostPortOf, redfishBaseURL, renderBMCAddress } from './render.js';
export {
  BMCSchemeRegistry,
  BUILTIN_SCHEMES,
  defaultSchemeRegistry,
  lookupScheme,
  redfishProtocolOf,
  registerScheme,
} from './schemes.js';
export type {
  BMCAddressKind,
  BMCBootMethod,
  BMCDriverFamily,
  BMCSchemeCapabilities,
  BMCSchemeDefinition,
  BMCSchemeMatch,
  RedfishProtocol,
} from './schemes.js';
export {
  IPMI_PRIVILEGE_LEVELS,
  inspectionDisabled,
  validateBMCCapabilities,
  validateHostBMC,
  validateHostBMCIssues,
} from './validation.js';
export type { BMCIssue, BMCIssueCode, HostBMCInput } from './validation.js';
