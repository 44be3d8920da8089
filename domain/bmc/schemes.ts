// The BMC scheme registry.
//
// Each registered scheme says which driver family talks to the BMC and what that driver can do.
// Hooks read only these capabilities; the driver pool picks its implementation by `driver`.
// The table is data: adding a vendor means adding a row, not another branch somewhere else.

/** Which driver implementation talks to the BMC (upstream's AccessDetails.Driver()). */
export type BMCDriverFamily = 'ipmi' | 'redfish' | 'idrac';

/** How the host boots the deploy ramdisk or live ISO. */
type BMCBootMethod = 'ipxe' | 'virtual-media' | 'uefi-http';

/** The transport of a Redfish-family scheme, chosen by a "+http"/"+https" suffix. */
export type RedfishProtocol = 'http' | 'https';

/** How the rest of the address is read once the scheme is known. */
export type BMCAddressKind = 'ipmi' | 'redfish';

export interface BMCSchemeCapabilities {
  /** Driver family (ipmi and libvirt share the ipmi driver). */
  readonly driver: BMCDriverFamily;
  readonly bootMethod: BMCBootMethod;
  /**
   * A bootMACAddress is required whatever the inspection mode: libvirt (VirtualBMC) only, whose
   * MAC inspection cannot find. This is BMO main's NeedsMAC (after v0.13.2: "Make NeedsMAC
   * semantics consistent across BMC drivers"); v0.13 also says true for the network-booting
   * Redfish schemes (docs/compatibility.md). Without inspection every scheme needs a MAC.
   */
  readonly needsBootMAC: boolean;
  /** UEFI secure boot: the Redfish family switches it through the System's SecureBoot resource. */
  readonly supportsSecureBoot: boolean;
  /** Boots ISOs through virtual media or UEFI HTTP: exempt from the provisioning limit. */
  readonly bootsISO: boolean;
  /**
   * Hardware RAID can be configured. False for every scheme: no Ironhook driver configures RAID
   * yet, although upstream's Redfish family has a RAID interface (docs/compatibility.md, deviation 7).
   */
  readonly supportsRAID: boolean;
  /** Out-of-band ("fast") inspection. */
  readonly supportsFastInspection: boolean;
  /**
   * BIOS settings and firmware updates (HostFirmwareSettings / HostFirmwareComponents). False for
   * every scheme: no Ironhook driver applies them yet (docs/compatibility.md, deviation 7).
   */
  readonly supportsFirmware: boolean;
  /** Needs the provisioning network (fails when PROVISIONING_NETWORK_DISABLED=true). */
  readonly needsProvisioningNetwork: boolean;
}

export interface BMCSchemeDefinition {
  /** The base scheme name, e.g. "redfish-virtualmedia". */
  readonly name: string;
  readonly addressKind: BMCAddressKind;
  /** Suffixes accepted as "<name>+<protocol>"; empty for ipmi and libvirt. */
  readonly protocols: readonly RedfishProtocol[];
  readonly capabilities: BMCSchemeCapabilities;
}

/** A scheme name as looked up: the definition plus what the suffix selected. */
export interface BMCSchemeMatch {
  readonly definition: BMCSchemeDefinition;
  /** The Redfish transport; undefined for IPMI-style schemes. */
  readonly protocol: RedfishProtocol | undefined;
}

const REDFISH_PROTOCOLS: readonly RedfishProtocol[] = ['http', 'https'];

const IPMI_CAPABILITIES: BMCSchemeCapabilities = {
  driver: 'ipmi',
  bootMethod: 'ipxe',
  needsBootMAC: false,
  supportsSecureBoot: false,
  bootsISO: false,
  supportsRAID: false,
  supportsFastInspection: false,
  supportsFirmware: false,
  needsProvisioningNetwork: true,
};

const REDFISH_CAPABILITIES: BMCSchemeCapabilities = {
  driver: 'redfish',
  bootMethod: 'ipxe',
  needsBootMAC: false,
  supportsSecureBoot: true,
  bootsISO: false,
  supportsRAID: false,
  supportsFastInspection: true,
  supportsFirmware: false,
  needsProvisioningNetwork: true,
};

const VIRTUAL_MEDIA: Partial<BMCSchemeCapabilities> = {
  bootMethod: 'virtual-media',
  bootsISO: true,
  needsProvisioningNetwork: false,
};

function ipmiScheme(name: string, overrides: Partial<BMCSchemeCapabilities> = {}): BMCSchemeDefinition {
  return { name, addressKind: 'ipmi', protocols: [], capabilities: { ...IPMI_CAPABILITIES, ...overrides } };
}

function redfishScheme(name: string, overrides: Partial<BMCSchemeCapabilities> = {}): BMCSchemeDefinition {
  return { name, addressKind: 'redfish', protocols: REDFISH_PROTOCOLS, capabilities: { ...REDFISH_CAPABILITIES, ...overrides } };
}

/**
 * The schemes of a 0.14-compatible BMO. Removed schemes (idrac, ibmc, ilo4, ilo5, irmc and their
 * variants) are deliberately absent, so they are reported as unknown.
 */
export const BUILTIN_SCHEMES: readonly BMCSchemeDefinition[] = [
  ipmiScheme('ipmi'),
  ipmiScheme('libvirt', { needsBootMAC: true }),
  redfishScheme('redfish'),
  redfishScheme('ilo5-redfish'),
  redfishScheme('idrac-redfish', { driver: 'idrac' }),
  redfishScheme('redfish-virtualmedia', VIRTUAL_MEDIA),
  redfishScheme('ilo5-virtualmedia', VIRTUAL_MEDIA),
  redfishScheme('idrac-virtualmedia', { ...VIRTUAL_MEDIA, driver: 'idrac' }),
  redfishScheme('redfish-uefihttp', { ...VIRTUAL_MEDIA, bootMethod: 'uefi-http' }),
];

/** A lookup table from every accepted scheme spelling to its definition. */
export class BMCSchemeRegistry {
  private readonly entries = new Map<string, BMCSchemeMatch>();

  constructor(definitions: readonly BMCSchemeDefinition[] = []) {
    for (const definition of definitions) {
      this.register(definition);
    }
  }

  /** Registers `name` and `name+<protocol>` for each protocol; a later registration wins. */
  register(definition: BMCSchemeDefinition): void {
    this.entries.set(definition.name, { definition, protocol: undefined });
    for (const protocol of definition.protocols) {
      this.entries.set(`${definition.name}+${protocol}`, { definition, protocol });
    }
  }

  /** The definition for a scheme exactly as spelled (schemes are matched case-sensitively). */
  lookup(scheme: string): BMCSchemeMatch | undefined {
    return this.entries.get(scheme);
  }

  /** Every accepted spelling, sorted. */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}

/** The process-wide registry, pre-filled with BUILTIN_SCHEMES. Register only at module load. */
export const defaultSchemeRegistry = new BMCSchemeRegistry(BUILTIN_SCHEMES);

export function lookupScheme(scheme: string): BMCSchemeMatch | undefined {
  return defaultSchemeRegistry.lookup(scheme);
}

/** The Redfish protocol a match implies: the suffix when given, else https. */
export function redfishProtocolOf(match: BMCSchemeMatch): RedfishProtocol {
  return match.protocol ?? 'https';
}
