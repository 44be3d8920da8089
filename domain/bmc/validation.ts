// BMC-dependent host validation with upstream-like messages (upstream's
// webhook rules on the BMC address and its driver, its credentials messages and
// PROVISIONING_NETWORK_DISABLED).

import { parseBMCAddress } from './address.js';
import type { ParsedBMCAddress } from './address.js';
import { parseMAC } from './mac.js';
import { defaultSchemeRegistry } from './schemes.js';
import type { BMCSchemeRegistry } from './schemes.js';

/** The privilege levels ipmitool (and Ironic) accept. */
export const IPMI_PRIVILEGE_LEVELS: readonly string[] = ['ADMINISTRATOR', 'CALLBACK', 'OPERATOR', 'USER'];

export interface HostBMCInput {
  /** spec.bmc.address ("" when absent). */
  readonly address: string;
  /** spec.bmc.credentialsName ("" when absent). */
  readonly credentialsName: string;
  /** spec.bootMACAddress ("" or undefined when absent). */
  readonly bootMACAddress?: string | undefined;
  readonly bootMode?: string | undefined;
  readonly inspectionMode?: string | undefined;
  /** The inspect.metal3.io annotation says "disabled". */
  readonly inspectDisabledByAnnotation?: boolean | undefined;
  /** spec.raid.hardwareRAIDVolumes is non-empty. */
  readonly hasHardwareRAID?: boolean | undefined;
  /** spec.raid.softwareRAIDVolumes is non-empty. */
  readonly hasSoftwareRAID?: boolean | undefined;
  /** PROVISIONING_NETWORK_DISABLED=true in the operator configuration. */
  readonly provisioningNetworkDisabled?: boolean | undefined;
}

type BMCIssueCode =
  | 'credentials-name-empty'
  | 'credentials-name-namespaced'
  | 'address-empty'
  | 'address-invalid'
  | 'raid-unsupported'
  | 'software-raid-unsupported'
  | 'boot-mac-required'
  | 'boot-mac-invalid'
  | 'secure-boot-unsupported'
  | 'fast-inspection-unsupported'
  | 'provisioning-network-required'
  | 'privilege-level-invalid';

export interface BMCIssue {
  readonly code: BMCIssueCode;
  readonly message: string;
}

/** The CRD's CEL message for a credentialsName with a '/' (manifests/crds/metal3.io_baremetalhosts.yaml). */
const CREDENTIALS_NAME_NAMESPACED =
  "credentialsName is the name of a Secret in the host's own namespace, not namespace/name: a BMC Secret in another namespace is not allowed; create it next to the host";

type Check = (bmc: ParsedBMCAddress, input: HostBMCInput) => BMCIssue | undefined;

function issue(code: BMCIssueCode, message: string): BMCIssue {
  return { code, message };
}

function inspectionDisabled(input: Pick<HostBMCInput, 'inspectionMode' | 'inspectDisabledByAnnotation'>): boolean {
  return input.inspectDisabledByAnnotation === true || input.inspectionMode === 'disabled';
}

// Upstream's text, then what to do: no scheme's driver configures RAID yet (ipmi-style addresses are
// also refused at admission, with upstream's rule).
const checkRAID: Check = (bmc, input) =>
  input.hasHardwareRAID === true && !bmc.capabilities.supportsRAID
    ? issue('raid-unsupported', `BMC driver ${bmc.scheme} does not support configuring RAID; remove spec.raid.hardwareRAIDVolumes`)
    : undefined;

// Not an upstream rule: Ironic builds software RAID through its agent; Ironhook's agent flow does not.
const checkSoftwareRAID: Check = (_bmc, input) =>
  input.hasSoftwareRAID === true
    ? issue('software-raid-unsupported', 'software RAID is not implemented by the Ironhook agent flow; remove spec.raid.softwareRAIDVolumes')
    : undefined;

// A MAC is required when the driver cannot discover it, or when inspection that would discover it is off.
const checkMACRequired: Check = (bmc, input) =>
  (bmc.capabilities.needsBootMAC || inspectionDisabled(input)) && (input.bootMACAddress ?? '') === ''
    ? issue('boot-mac-required', `BMC driver ${bmc.scheme} requires a BootMACAddress value`)
    : undefined;

const checkMACSyntax: Check = (_bmc, input) => {
  const mac = input.bootMACAddress ?? '';
  const parsed = mac === '' ? undefined : parseMAC(mac);
  return parsed !== undefined && !parsed.ok ? issue('boot-mac-invalid', parsed.error) : undefined;
};

const checkSecureBoot: Check = (bmc, input) =>
  input.bootMode === 'UEFISecureBoot' && !bmc.capabilities.supportsSecureBoot
    ? issue('secure-boot-unsupported', `BMC driver ${bmc.scheme} does not support secure boot`)
    : undefined;

const checkFastInspection: Check = (bmc, input) =>
  input.inspectionMode === 'fast' && !bmc.capabilities.supportsFastInspection
    ? issue('fast-inspection-unsupported', `BMC driver ${bmc.scheme} does not support fast inspection`)
    : undefined;

const checkProvisioningNetwork: Check = (bmc, input) =>
  input.provisioningNetworkDisabled === true && bmc.capabilities.needsProvisioningNetwork
    ? issue('provisioning-network-required', `BMC driver ${bmc.scheme} requires a provisioning network`)
    : undefined;

// Not an upstream admission rule: Ironic rejects the node at registration with this text.
const checkPrivilegeLevel: Check = (bmc) =>
  bmc.privilegeLevel !== undefined && !IPMI_PRIVILEGE_LEVELS.includes(bmc.privilegeLevel)
    ? issue('privilege-level-invalid', `Invalid privilege level value:${bmc.privilegeLevel}, the valid value can be one of ${IPMI_PRIVILEGE_LEVELS.join(', ')}`)
    : undefined;

/** In upstream's order (webhook validateBMCAccess), then the registration-time checks. */
const CAPABILITY_CHECKS: readonly Check[] = [
  checkRAID,
  checkSoftwareRAID,
  checkMACRequired,
  checkMACSyntax,
  checkSecureBoot,
  checkFastInspection,
  checkProvisioningNetwork,
  checkPrivilegeLevel,
];

/** The checks that depend on what the BMC driver can do (the webhook's part, given a parsed address). */
function validateBMCCapabilities(bmc: ParsedBMCAddress, input: HostBMCInput): BMCIssue[] {
  return CAPABILITY_CHECKS.map((check) => check(bmc, input)).filter((found) => found !== undefined);
}

/**
 * Everything about the BMC settings that would stop registration, in upstream's order: the
 * credentials reference, the address, its parse, then the driver capabilities. The first issue is
 * the one upstream reports (it stops at the first); the rest are what it would report next.
 * Whether a host without any BMC details is simply unmanaged is the caller's decision.
 */
export function validateHostBMCIssues(input: HostBMCInput, registry: BMCSchemeRegistry = defaultSchemeRegistry): BMCIssue[] {
  const issues: BMCIssue[] = [];
  if (input.credentialsName === '') {
    issues.push(issue('credentials-name-empty', 'No BMC CredentialsName defined The BMC secret reference is empty'));
  }
  if (input.credentialsName.includes('/')) {
    // The CRD refuses it on apply (CEL); a host stored before that rule is refused here.
    issues.push(issue('credentials-name-namespaced', CREDENTIALS_NAME_NAMESPACED));
  }
  const parsed = parseBMCAddress(input.address, registry);
  if (parsed.kind === 'none') {
    return [...issues, issue('address-empty', "Empty BMC address Missing BMC connection detail 'Address'")];
  }
  if (parsed.kind === 'invalid') {
    return [...issues, issue('address-invalid', parsed.error.message)];
  }
  return [...issues, ...validateBMCCapabilities(parsed.bmc, input)];
}

/** validateHostBMCIssues as plain messages. */
export function validateHostBMC(input: HostBMCInput, registry: BMCSchemeRegistry = defaultSchemeRegistry): string[] {
  return validateHostBMCIssues(input, registry).map((found) => found.message);
}
