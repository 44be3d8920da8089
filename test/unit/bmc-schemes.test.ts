// The BMC scheme registry and capabilities and the
// BMC-dependent host validation.
import { describe, expect, it } from 'vitest';
import {
  BMCSchemeRegistry,
  BUILTIN_SCHEMES,
  lookupScheme,
  parseBMCAddress,
  redfishProtocolOf,
  validateHostBMC,
  validateHostBMCIssues,
  type BMCSchemeCapabilities,
  type HostBMCInput,
} from '../../domain/bmc/index.js';

type Row = { scheme: string } & BMCSchemeCapabilities;

// One row per base scheme, one column per capability: upstream's table (kept as rows, so not
// formatted).
// prettier-ignore
const TABLE: Row[] = [
  { scheme: 'ipmi', driver: 'ipmi', bootMethod: 'ipxe', needsBootMAC: false, supportsSecureBoot: false, bootsISO: false, supportsRAID: false, supportsFastInspection: false, supportsFirmware: false, needsProvisioningNetwork: true },
  { scheme: 'libvirt', driver: 'ipmi', bootMethod: 'ipxe', needsBootMAC: true, supportsSecureBoot: false, bootsISO: false, supportsRAID: false, supportsFastInspection: false, supportsFirmware: false, needsProvisioningNetwork: true },
  { scheme: 'redfish', driver: 'redfish', bootMethod: 'ipxe', needsBootMAC: false, supportsSecureBoot: true, bootsISO: false, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: true },
  { scheme: 'ilo5-redfish', driver: 'redfish', bootMethod: 'ipxe', needsBootMAC: false, supportsSecureBoot: true, bootsISO: false, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: true },
  { scheme: 'idrac-redfish', driver: 'idrac', bootMethod: 'ipxe', needsBootMAC: false, supportsSecureBoot: true, bootsISO: false, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: true },
  { scheme: 'redfish-virtualmedia', driver: 'redfish', bootMethod: 'virtual-media', needsBootMAC: false, supportsSecureBoot: true, bootsISO: true, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: false },
  { scheme: 'ilo5-virtualmedia', driver: 'redfish', bootMethod: 'virtual-media', needsBootMAC: false, supportsSecureBoot: true, bootsISO: true, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: false },
  { scheme: 'idrac-virtualmedia', driver: 'idrac', bootMethod: 'virtual-media', needsBootMAC: false, supportsSecureBoot: true, bootsISO: true, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: false },
  { scheme: 'redfish-uefihttp', driver: 'redfish', bootMethod: 'uefi-http', needsBootMAC: false, supportsSecureBoot: true, bootsISO: true, supportsRAID: false, supportsFastInspection: true, supportsFirmware: false, needsProvisioningNetwork: false },
];

const CAPABILITIES = Object.keys(TABLE[0]!).filter((key) => key !== 'scheme') as (keyof BMCSchemeCapabilities)[];
const REDFISH_FAMILY = TABLE.filter((row) => row.scheme !== 'ipmi' && row.scheme !== 'libvirt');

/** Every accepted spelling of every scheme, with its row. */
const SPELLINGS = TABLE.flatMap((row) => {
  const suffixes = REDFISH_FAMILY.includes(row) ? ['', '+http', '+https'] : [''];
  return suffixes.map((suffix) => ({ spelling: `${row.scheme}${suffix}`, suffix, row }));
});

describe('scheme registry: the upstream capability table', () => {
  const cells = SPELLINGS.flatMap(({ spelling, row }) => CAPABILITIES.map((capability) => ({ spelling, capability, value: row[capability] })));

  it.each(cells)('$spelling: $capability = $value', ({ spelling, capability, value }) => {
    expect(lookupScheme(spelling)?.definition.capabilities[capability]).toBe(value);
  });

  it.each(SPELLINGS)('$spelling: parsed addresses carry the capabilities', ({ spelling, row }) => {
    const result = parseBMCAddress(`${spelling}://10.0.0.5`);
    const capabilities = Object.fromEntries(CAPABILITIES.map((capability) => [capability, row[capability]]));
    expect(result).toMatchObject({ kind: 'parsed', bmc: { scheme: spelling, baseScheme: row.scheme, driver: row.driver, capabilities } });
  });

  it.each(SPELLINGS)('$spelling: protocol from the suffix', ({ spelling, suffix, row }) => {
    const match = lookupScheme(spelling);
    const redfish = REDFISH_FAMILY.includes(row);
    expect(match?.protocol).toBe(suffix === '' ? undefined : suffix.slice(1));
    expect(match?.definition.addressKind).toBe(redfish ? 'redfish' : 'ipmi');
    if (redfish && match !== undefined) {
      expect(redfishProtocolOf(match)).toBe(suffix === '+http' ? 'http' : 'https');
    }
  });

  it('the built-in table is exactly the upstream schemes', () => {
    expect(BUILTIN_SCHEMES.map((definition) => definition.name).sort()).toEqual(TABLE.map((row) => row.scheme).sort());
  });

  it.each([
    'ipmi+http',
    'ipmi+https',
    'libvirt+https',
    'idrac',
    'idrac+https',
    'ibmc',
    'ibmc+http',
    'ilo4',
    'ilo4+https',
    'ilo4-virtualmedia',
    'ilo5',
    'ilo5+https',
    'irmc',
    'Redfish',
    'redfish+',
    '',
  ])('%j is not registered', (spelling) => {
    expect(lookupScheme(spelling)).toBeUndefined();
  });
});

describe('scheme registry: registration', () => {
  const vendor = {
    name: 'acme-redfish',
    addressKind: 'redfish' as const,
    protocols: ['https' as const],
    capabilities: { ...TABLE[2]!, driver: 'redfish' as const },
  };

  it('registers the name and its protocol variants only', () => {
    const registry = new BMCSchemeRegistry([vendor]);
    expect(registry.names()).toEqual(['acme-redfish', 'acme-redfish+https']);
    expect(registry.lookup('acme-redfish+http')).toBeUndefined();
    expect(registry.lookup('acme-redfish+https')).toEqual({ definition: vendor, protocol: 'https' });
  });

  it('a separate registry does not change the default one', () => {
    const registry = new BMCSchemeRegistry(BUILTIN_SCHEMES);
    registry.register(vendor);
    expect(parseBMCAddress('acme-redfish://10.0.0.5', registry).kind).toBe('parsed');
    expect(parseBMCAddress('acme-redfish://10.0.0.5')).toEqual({
      kind: 'invalid',
      error: { reason: 'unknown-scheme', message: "Unknown BMC type 'acme-redfish' for address acme-redfish://10.0.0.5" },
    });
  });

  it('a later registration replaces an earlier one', () => {
    const registry = new BMCSchemeRegistry(BUILTIN_SCHEMES);
    registry.register({ ...vendor, name: 'redfish', protocols: [] });
    expect(registry.lookup('redfish')?.definition.protocols).toEqual([]);
    expect(registry.lookup('redfish+http')?.definition.name).toBe('redfish');
  });
});

function input(overrides: Partial<HostBMCInput>): HostBMCInput {
  return {
    address: 'redfish://10.0.0.5',
    credentialsName: 'bmc-secret',
    bootMACAddress: '00:11:22:33:44:55',
    bootMode: 'UEFI',
    inspectionMode: 'agent',
    ...overrides,
  };
}

describe('validateHostBMC', () => {
  const rows: { name: string; input: HostBMCInput; errors: string[] }[] = [
    { name: 'valid redfish host', input: input({}), errors: [] },
    { name: 'valid ipmi host', input: input({ address: 'ipmi://10.0.0.5' }), errors: [] },
    { name: 'empty credentials name', input: input({ credentialsName: '' }), errors: ['No BMC CredentialsName defined The BMC secret reference is empty'] },
    { name: 'empty address', input: input({ address: '' }), errors: ["Empty BMC address Missing BMC connection detail 'Address'"] },
    {
      name: 'credentials Secret named as namespace/name (stored before the CEL rule)',
      input: input({ credentialsName: 'kube-system/bmc-secret' }),
      errors: [
        "credentialsName is the name of a Secret in the host's own namespace, not namespace/name: a BMC Secret in another namespace is not allowed; create it next to the host",
      ],
    },
    {
      name: 'both empty: credentials first, as upstream',
      input: input({ address: '', credentialsName: '' }),
      errors: ['No BMC CredentialsName defined The BMC secret reference is empty', "Empty BMC address Missing BMC connection detail 'Address'"],
    },
    { name: 'unknown scheme', input: input({ address: 'ilo4://10.0.0.5' }), errors: ["Unknown BMC type 'ilo4' for address ilo4://10.0.0.5"] },
    {
      name: 'invalid host name stops the driver checks',
      input: input({ address: 'libvirt://bad_host', bootMode: 'UEFISecureBoot' }),
      errors: ['failed to parse BMC address information: BMC address hostname/IP : [bad_host] is invalid'],
    },
    // Rule 9: MAC required by the driver (BMO main's NeedsMAC: libvirt only) or because inspection is disabled.
    {
      name: 'libvirt needs a MAC',
      input: input({ address: 'libvirt://10.0.0.5', bootMACAddress: '' }),
      errors: ['BMC driver libvirt requires a BootMACAddress value'],
    },
    { name: 'libvirt with a MAC', input: input({ address: 'libvirt://10.0.0.5' }), errors: [] },
    // v0.13's NeedsMAC also asked for one with these (docs/compatibility.md).
    { name: 'redfish needs none', input: input({ bootMACAddress: '' }), errors: [] },
    { name: 'redfish-uefihttp needs none', input: input({ address: 'redfish-uefihttp://h', bootMACAddress: '' }), errors: [] },
    { name: 'virtual media needs none', input: input({ address: 'idrac-virtualmedia://h', bootMACAddress: '' }), errors: [] },
    { name: 'ipmi needs none', input: input({ address: 'ipmi://h', bootMACAddress: '' }), errors: [] },
    {
      name: 'ipmi with inspection disabled',
      input: input({ address: 'ipmi://h', bootMACAddress: '', inspectionMode: 'disabled' }),
      errors: ['BMC driver ipmi requires a BootMACAddress value'],
    },
    {
      name: 'virtual media, inspection disabled by annotation',
      input: input({ address: 'redfish-virtualmedia+https://h', bootMACAddress: '', inspectDisabledByAnnotation: true }),
      errors: ['BMC driver redfish-virtualmedia+https requires a BootMACAddress value'],
    },
    { name: 'inspection disabled with a MAC', input: input({ inspectionMode: 'disabled', bootMACAddress: '0000.0000.0001' }), errors: [] },
    // Rule 10.
    { name: 'malformed MAC', input: input({ bootMACAddress: '00:11:22:33:44' }), errors: ['address 00:11:22:33:44: invalid MAC address'] },
    // Rule 8.
    {
      name: 'ipmi with hardware RAID',
      input: input({ address: 'ipmi://10.0.0.5', hasHardwareRAID: true }),
      errors: ['BMC driver ipmi does not support configuring RAID; remove spec.raid.hardwareRAIDVolumes'],
    },
    // No Ironhook driver configures RAID (docs/compatibility.md, deviation 7): upstream admits these.
    {
      name: 'idrac with hardware RAID',
      input: input({ address: 'idrac-virtualmedia://h', hasHardwareRAID: true }),
      errors: ['BMC driver idrac-virtualmedia does not support configuring RAID; remove spec.raid.hardwareRAIDVolumes'],
    },
    {
      name: 'software RAID (not a BMC rule: the agent flow lacks it)',
      input: input({ hasSoftwareRAID: true }),
      errors: ['software RAID is not implemented by the Ironhook agent flow; remove spec.raid.softwareRAIDVolumes'],
    },
    // Rule 11.
    {
      name: 'ipmi with secure boot',
      input: input({ address: 'ipmi://10.0.0.5', bootMode: 'UEFISecureBoot' }),
      errors: ['BMC driver ipmi does not support secure boot'],
    },
    {
      name: 'bare address names the ipmi driver',
      input: input({ address: '10.0.0.5', bootMode: 'UEFISecureBoot' }),
      errors: ['BMC driver ipmi does not support secure boot'],
    },
    { name: 'redfish with secure boot', input: input({ bootMode: 'UEFISecureBoot' }), errors: [] },
    // Rule 17, the driver part.
    {
      name: 'ipmi with fast inspection',
      input: input({ address: 'ipmi://10.0.0.5', inspectionMode: 'fast' }),
      errors: ['BMC driver ipmi does not support fast inspection'],
    },
    { name: 'redfish with fast inspection', input: input({ inspectionMode: 'fast' }), errors: [] },
    // PROVISIONING_NETWORK_DISABLED.
    {
      name: 'ipxe driver without provisioning network',
      input: input({ provisioningNetworkDisabled: true }),
      errors: ['BMC driver redfish requires a provisioning network'],
    },
    {
      name: 'virtual media without provisioning network',
      input: input({ address: 'redfish-virtualmedia://h', provisioningNetworkDisabled: true }),
      errors: [],
    },
    // Ironic's check of the IPMI privilege level.
    {
      name: 'unknown IPMI privilege level',
      input: input({ address: 'ipmi://h?privilegelevel=root' }),
      errors: ['Invalid privilege level value:root, the valid value can be one of ADMINISTRATOR, CALLBACK, OPERATOR, USER'],
    },
    {
      name: 'every libvirt problem at once, in upstream order',
      input: input({
        address: 'libvirt://10.0.0.5',
        bootMACAddress: '',
        credentialsName: '',
        bootMode: 'UEFISecureBoot',
        hasHardwareRAID: true,
        inspectionMode: 'fast',
        provisioningNetworkDisabled: true,
      }),
      errors: [
        'No BMC CredentialsName defined The BMC secret reference is empty',
        'BMC driver libvirt does not support configuring RAID; remove spec.raid.hardwareRAIDVolumes',
        'BMC driver libvirt requires a BootMACAddress value',
        'BMC driver libvirt does not support secure boot',
        'BMC driver libvirt does not support fast inspection',
        'BMC driver libvirt requires a provisioning network',
      ],
    },
  ];

  it.each(rows)('$name', ({ input: host, errors }) => {
    expect(validateHostBMC(host)).toEqual(errors);
  });

  it('issues carry codes', () => {
    expect(validateHostBMCIssues(input({ address: 'ipmi://h', bootMode: 'UEFISecureBoot', bootMACAddress: 'x' })).map((found) => found.code)).toEqual([
      'boot-mac-invalid',
      'secure-boot-unsupported',
    ]);
  });

  it.each(SPELLINGS)('$spelling: secure boot and RAID follow the table', ({ spelling, row }) => {
    const errors = validateHostBMC(
      input({ address: `${spelling}://10.0.0.5`, bootMode: 'UEFISecureBoot', hasHardwareRAID: true, bootMACAddress: '00:11:22:33:44:55' }),
    );
    const expected = [
      ...(row.supportsRAID ? [] : [`BMC driver ${spelling} does not support configuring RAID; remove spec.raid.hardwareRAIDVolumes`]),
      ...(row.supportsSecureBoot ? [] : [`BMC driver ${spelling} does not support secure boot`]),
    ];
    expect(errors).toEqual(expected);
  });
});
