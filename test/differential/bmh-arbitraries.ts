// Random BareMetalHosts for the bmh-admission area: every field upstream's schema and webhook
// look at, each drawn from a pool of valid values most of the time and from a pool of edge
// values ("wild": malformed, out of range, of the wrong type, or valid but unusual) otherwise,
// so that a case has typically zero, one or two suspicious fields and both verdicts are common.
//
// Only fields of upstream's BareMetalHost are generated: Ironhook's own additions
// (spec.networkInterfaces, softwareRAIDVolumes[].rootVolume) are not Metal3 users' YAML.
// Excluded on purpose, as documented deviations (docs/compatibility.md, the test's
// 'documented deviations'): inspectionMode "fast" (an Ironhook extension).
import fc from 'fast-check';

/** A field's valid values and its edge values. */
interface Field<T> {
  readonly valid: fc.Arbitrary<T>;
  /** Valid values (weight 16) or edge values (weight 1): a host of 17 fields has no edge value a third of the time, one another third. */
  readonly mixed: fc.Arbitrary<T>;
}

function field<T>(valid: fc.Arbitrary<T>, wild: fc.Arbitrary<T>): Field<T> {
  return { valid, mixed: fc.oneof({ arbitrary: valid, weight: 16 }, { arbitrary: wild, weight: 1 }) };
}

const pick = <T>(...values: T[]): fc.Arbitrary<T> => fc.constantFrom(...values);

/** Marks an absent field; objects are built without the keys whose value is ABSENT. */
export const ABSENT = Symbol('absent');
type Maybe<T> = T | typeof ABSENT;

function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT));
}

// --- BMC --------------------------------------------------------------------------------------

const KNOWN_SCHEMES = ['ipmi', 'libvirt', 'redfish', 'redfish+http', 'redfish+https', 'redfish-virtualmedia', 'redfish-virtualmedia+https'];
const MORE_KNOWN_SCHEMES = ['redfish-uefihttp', 'idrac-redfish', 'idrac-virtualmedia', 'ilo5-redfish', 'ilo5-virtualmedia+http'];
const WILD_SCHEMES = ['idrac', 'ilo4', 'irmc', 'ipmi+https', 'libvirt+http', 'REDFISH', 'Redfish-VirtualMedia', 'bogus', 'x', 'redfish+ftp'];
const GOOD_HOSTS = ['192.0.2.5', '10.10.0.27', '[2001:db8::5]', 'bmc.example.test', 'h', 'bmc-7.rack-b4.example'];
// Left out, as documented deviations: an empty host ("BMC address without a host": upstream
// takes redfish:///path and ipmi://), and IP literals upstream's URL parser reads by accident
// ("an IPv6 BMC address is bracketed": redfish://2001:db8::5:623 as host 2001:db8::5 and port
// 623); unbracketed IPv6 without a scheme, which both refuse, is in WILD_ADDRESSES.
const WILD_HOSTS = [
  '[::1]',
  '[192.0.2.5]',
  '[fe80::1%25eth0]',
  '[2001:db8::g]',
  'BMC.Example.Test',
  'bmc_1.example',
  '-bad.example',
  `${'a'.repeat(64)}.example`,
  'bmc.example.test.',
  '999.1.1.1',
  '1.2.3',
  'host name',
];
const GOOD_PORTS = ['', ':623', ':8443'];
// No port above 65535 (documented deviation "BMC address port out of range"): upstream's URL
// parser takes any digits.
const WILD_PORTS = [':0', ':65535', ':', ':abc'];
const GOOD_PATHS = ['', '/', '/redfish/v1/Systems/1', '?privilegelevel=OPERATOR'];
const WILD_PATHS = ['#frag', '/a b', '/%zz', '/redfish/v1/Systems/1?x=1#y'];

const goodAddress = fc
  .tuple(pick(...KNOWN_SCHEMES, ...MORE_KNOWN_SCHEMES), pick(...GOOD_HOSTS), pick(...GOOD_PORTS), pick(...GOOD_PATHS))
  .map(([scheme, host, port, path]) => `${scheme}://${host}${port}${path}`);

const wildAddress = fc
  .tuple(
    pick(...KNOWN_SCHEMES, ...MORE_KNOWN_SCHEMES, ...WILD_SCHEMES),
    // No user information (documented deviation "credentials in the BMC address"), and no
    // ":///" (an empty host, see WILD_HOSTS).
    pick('://', ':', ''),
    pick(...GOOD_HOSTS, ...WILD_HOSTS),
    pick(...GOOD_PORTS, ...WILD_PORTS),
    pick(...GOOD_PATHS, ...WILD_PATHS),
  )
  .map(([scheme, separator, host, port, path]) => (separator === '' ? `${host}${port}${path}` : `${scheme}${separator}${host}${port}${path}`));

const WILD_ADDRESSES = ['', ' ', '://h', '::623', '2001:db8::5', '2001:db8::5:623', '[2001:db8::5]', '[2001:db8::5]:', 'h\tx', 'ipmi://h/\n'];

/** A BMC address: well-formed for a known driver, or anything. */
export const bmcAddress: Field<string> = {
  valid: goodAddress,
  // Addresses are the most varied input: a third of them are edge cases.
  mixed: fc.oneof({ arbitrary: goodAddress, weight: 2 }, { arbitrary: fc.oneof(wildAddress, pick(...WILD_ADDRESSES)), weight: 1 }),
};

const bmc = (address: fc.Arbitrary<string>): Field<Record<string, unknown>> =>
  field(
    fc.record({ address, credentialsName: pick('h-bmc'), disableCertificateVerification: pick<Maybe<boolean>>(ABSENT, true, false) }).map(compact),
    fc.oneof(
      fc.record({ address: pick<Maybe<string>>(ABSENT, 'ipmi://192.0.2.5') }).map((r) => compact({ ...r, credentialsName: ABSENT })),
      fc.record({ address: pick<Maybe<string>>(ABSENT), credentialsName: pick('h-bmc') }).map(compact),
      fc.constant({ address: '', credentialsName: '' }),
    ),
  );

// --- the other spec fields ---------------------------------------------------------------------

export const MAC = '3c:ec:ef:10:20:30';
const bootMACAddress = field<Maybe<string>>(
  pick<Maybe<string>>(ABSENT, MAC, '3C:EC:EF:10:20:30', '00:1a:2b:3c:4d:5e'),
  // No 8- or 20-octet hardware addresses (documented deviation "bootMACAddress longer than six
  // octets"): upstream's unanchored pattern and Go's net.ParseMAC take them.
  pick('', '3c-ec-ef-10-20-30', '3c:ec:ef:10:20', 'x3c:ec:ef:10:20:30', '3c:ec:ef:10:20:3g', '3cec.ef10.2030', ' 3c:ec:ef:10:20:30'),
);

const bootMode = field<Maybe<string>>(pick<Maybe<string>>(ABSENT, 'UEFI', 'legacy', 'UEFISecureBoot'), pick('uefi', 'bogus', ''));

const GOOD_IMAGE_URLS = ['http://172.22.0.1/images/os.qcow2', 'https://images.example/os.raw', 'oci://quay.io/example/os:9.6'];
// Only URLs with a host and a scheme of BMO main's list (documented deviation "image URL"):
// v0.13.2 takes whatever Go's url.ParseRequestURI takes (file:///x, /x, mailto:x, http:/x, *).
const WILD_IMAGE_URLS = [
  'HTTPS://images.example/os.raw',
  'ftp://images.example/os.img',
  'gopher://images.example/os.img',
  'OCI://quay.io/example/os:9.6',
  'images/os.qcow2',
  '',
  'http://images.example/a b.qcow2',
  'http://images.example/%zz.qcow2',
  'http://images.example/%41.qcow2#x',
  'http://images.example#x',
  'http://images.example/os.qcow2\t',
  'http://images.example:8080/os.qcow2?x=1#y',
  'http://[2001:db8::1]/os.qcow2',
  'http://images.example:/os.qcow2',
  'http://images.example:http/os.qcow2',
  'http://images.example:99999/os.qcow2',
  'http://images.example:8080:80/os.qcow2',
  'http://2001:db8::1/os.qcow2',
  'http://[2001:db8::1]:8080/os.qcow2',
  'http://[2001:db8::1]x/os.qcow2',
  'http://user@images.example/os.qcow2',
  'http://us er@images.example/os.qcow2',
  'http://a@b@images.example/os.qcow2',
];

const image = field(
  fc
    .record({
      url: pick(...GOOD_IMAGE_URLS),
      checksumType: pick<Maybe<string>>(ABSENT, 'sha256', 'auto'),
      format: pick<Maybe<string>>(ABSENT, 'raw', 'qcow2', 'live-iso'),
    })
    .map(({ url, checksumType, format }) => compact({ url, format, ...(url.startsWith('oci:') ? {} : { checksum: 'abc123', checksumType }) })),
  fc
    .record({
      url: pick<Maybe<string>>(...GOOD_IMAGE_URLS, ...WILD_IMAGE_URLS, ABSENT),
      checksum: pick<Maybe<string>>(ABSENT, '', 'abc123', 'http://images.example/os.qcow2.sha256sum'),
      checksumType: pick<Maybe<string>>(ABSENT, 'md5', 'sha256', 'sha512', 'auto', 'sha1', ''),
      format: pick<Maybe<string>>(ABSENT, 'raw', 'qcow2', 'vdi', 'vmdk', 'live-iso', 'iso', ''),
      ociAuthSecretName: pick<Maybe<string>>(ABSENT, ABSENT, '', 'pull-secret'),
    })
    .map(compact),
);

const rootDeviceHints = field(
  pick<Record<string, unknown>>(
    { deviceName: '/dev/sda' },
    { deviceName: '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0' },
    { minSizeGigabytes: 100 },
    { rotational: false, model: 'PERC' },
  ),
  fc
    .record({
      deviceName: pick<Maybe<string>>(
        'sda',
        '/dev/',
        '/dev/disk/by-path/',
        '/dev/disk/by-id/wwn-0x1',
        '/dev/sda/1',
        '',
        '/dev//sda',
        'dev/sda',
        '/dev/disk/by-path/a/b',
        '/dev/nvme0n1',
      ),
      minSizeGigabytes: pick<Maybe<number>>(ABSENT, -1, 0, 20),
      hctl: pick<Maybe<string>>(ABSENT, '0:2:0:0'),
    })
    .map(compact),
);

const hardwareVolume = fc
  .record({
    level: pick('0', '1', '5', '6', '1+0', '5+0', '6+0', '2', 'bogus'),
    sizeGibibytes: pick<Maybe<number>>(ABSENT, 0, 100, -1),
    name: pick<Maybe<string>>(ABSENT, 'boot', 'x'.repeat(65)),
    numberOfPhysicalDisks: pick<Maybe<number>>(ABSENT, ABSENT, 0, 1, 2, 3),
    controller: pick<Maybe<string>>(ABSENT, ABSENT, '', 'RAID.Integrated.1-1'),
    physicalDisks: pick<Maybe<string[]>>(ABSENT, ABSENT, [], ['Disk.Bay.0'], ['Disk.Bay.0', 'Disk.Bay.1']),
    rotational: pick<Maybe<boolean>>(ABSENT, false),
  })
  .map(compact);

const softwareVolume = fc
  .record({
    level: pick('0', '1', '1+0', '5'),
    sizeGibibytes: pick<Maybe<number>>(ABSENT, 100),
    physicalDisks: pick<Maybe<unknown[]>>(ABSENT, [{ deviceName: '/dev/sda' }], [{ deviceName: '/dev/sda' }, { deviceName: '/dev/sdb' }], [{}, {}, {}]),
  })
  .map(compact);

const validHardwareVolume = fc
  .record({
    level: pick('0', '1', '5', '1+0'),
    sizeGibibytes: pick<Maybe<number>>(ABSENT, 100),
    name: pick<Maybe<string>>(ABSENT, 'boot'),
    disks: pick<Record<string, unknown>>({}, { controller: 'RAID.Integrated.1-1', physicalDisks: ['Disk.Bay.0', 'Disk.Bay.1'] }, { numberOfPhysicalDisks: 2 }),
  })
  .map(({ disks, ...volume }) => ({ ...compact(volume), ...disks }));

const validSoftwareVolume = fc
  .record({
    level: pick('0', '1', '1+0'),
    sizeGibibytes: pick<Maybe<number>>(ABSENT, 100),
    physicalDisks: pick<Maybe<unknown[]>>(ABSENT, [{ deviceName: '/dev/sda' }, { deviceName: '/dev/sdb' }]),
  })
  .map(compact);

const volumes = <T>(volume: fc.Arbitrary<T>): fc.Arbitrary<Maybe<T[] | null>> =>
  fc.oneof(pick<Maybe<T[] | null>>(ABSENT, null, []), fc.array(volume, { minLength: 1, maxLength: 3 }));

const raid = field<Maybe<Record<string, unknown>>>(
  fc.oneof(
    pick<Maybe<Record<string, unknown>>>(ABSENT),
    validHardwareVolume.map((v) => ({ hardwareRAIDVolumes: [v] })),
    validSoftwareVolume.map((v) => ({ softwareRAIDVolumes: [v], hardwareRAIDVolumes: null })),
  ),
  fc.record({ hardwareRAIDVolumes: volumes(hardwareVolume), softwareRAIDVolumes: volumes(softwareVolume) }).map(compact),
);

const firmware = field<Maybe<Record<string, unknown>>>(pick(ABSENT), pick({}, { virtualizationEnabled: true }, { sriovEnabled: false }));

/** The host's namespace and another one, for the Secret references. */
export const NAMESPACES = { host: 'adm', other: 'adm-other' } as const;

const secretRef = field<Maybe<Record<string, unknown>>>(
  pick<Maybe<Record<string, unknown>>>(ABSENT, ABSENT, { name: 'h-data' }, { name: 'h-data', namespace: NAMESPACES.host }),
  pick({ name: 'h-data', namespace: NAMESPACES.other }, { namespace: NAMESPACES.other }, { name: 'h-data', namespace: '' }, {}),
);

const inspectionMode = field<Maybe<string>>(pick<Maybe<string>>(ABSENT, ABSENT, 'agent', 'disabled'), pick('bogus', 'Disabled', ''));

/** Fields without rules of their own, and one unknown field (rejected by strict field validation). */
const extras = field<Record<string, unknown>>(
  pick(
    {},
    {},
    { hardwareProfile: 'unknown', architecture: 'x86_64' },
    { description: 'rack B4', preprovisioningNetworkDataName: 'h-ramdisk' },
    { consumerRef: { kind: 'Metal3Machine', name: 'm', namespace: NAMESPACES.host } },
  ),
  pick({ bogusField: 1 }, { customDeploy: {} }, { automatedCleaningMode: 'bogus' }, { hardwareProfile: 7 }),
);

type Mode = 'valid' | 'mixed';

/** A BareMetalHost spec: every field valid, or each field valid most of the time ('mixed'). */
export function specOf(mode: Mode): fc.Arbitrary<Spec> {
  return fc
    .record({
      online: field<Maybe<boolean>>(pick(true, false), pick(ABSENT))[mode],
      bmc: fc.oneof({ arbitrary: pick(ABSENT), weight: 1 }, { arbitrary: bmc(bmcAddress[mode])[mode], weight: 6 }),
      bootMACAddress: bootMACAddress[mode],
      bootMode: bootMode[mode],
      image: fc.oneof({ arbitrary: pick(ABSENT), weight: 2 }, { arbitrary: image[mode], weight: 1 }),
      rootDeviceHints: fc.oneof({ arbitrary: pick(ABSENT), weight: 2 }, { arbitrary: rootDeviceHints[mode], weight: 1 }),
      raid: raid[mode],
      firmware: firmware[mode],
      userData: secretRef[mode],
      networkData: secretRef[mode],
      metaData: secretRef[mode],
      inspectionMode: inspectionMode[mode],
      disablePowerOff: field<Maybe<boolean>>(pick<Maybe<boolean>>(ABSENT, ABSENT, false), pick(true))[mode],
      externallyProvisioned: pick<Maybe<boolean>>(ABSENT, ABSENT, false, true),
      automatedCleaningMode: pick<Maybe<string>>(ABSENT, ABSENT, 'metadata', 'disabled'),
      customDeploy: pick<Maybe<Record<string, unknown>>>(ABSENT, ABSENT, ABSENT, { method: 'install_coreos' }),
      extras: extras[mode],
    })
    .map(({ extras: more, ...fields }) => ({ ...compact(fields), ...more }));
}

export type Spec = Record<string, unknown>;
