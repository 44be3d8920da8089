// BMC addresses, the scheme registry and BMC-dependent validation: pure, shared by the hooks
// and the driver pool.
export { parseBMCAddress, parseBMCAddressAsUpstream, privilegeLevelFromQuery } from './address.js';
export type { BMCAddressError, BMCAddressErrorReason, ParsedBMCAddress } from './address.js';
export { isDNSName, isIPv4Literal, isIPv6Literal } from './ip.js';
export { normalizeMAC, parseMAC } from './mac.js';
export { hostPortOf, redfishBaseURL, renderBMCAddress } from './render.js';
export { BMCSchemeRegistry, BUILTIN_SCHEMES, defaultSchemeRegistry, lookupScheme, redfishProtocolOf } from './schemes.js';
export type { BMCDriverFamily, BMCSchemeCapabilities } from './schemes.js';
export { IPMI_PRIVILEGE_LEVELS, validateHostBMC, validateHostBMCIssues } from './validation.js';
export type { HostBMCInput } from './validation.js';
