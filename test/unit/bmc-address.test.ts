// BMC address parsing, rendering and MAC parsing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hostPortOf,
  isDNSName,
  isIPv4Literal,
  isIPv6Literal,
  normalizeMAC,
  parseBMCAddress,
  parseMAC,
  privilegeLevelFromQuery,
  redfishBaseURL,
  renderBMCAddress,
  type BMCAddressErrorReason,
  type ParsedBMCAddress,
} from '../../domain/bmc/index.js';

function parsed(address: string): ParsedBMCAddress {
  const result = parseBMCAddress(address);
  if (result.kind !== 'parsed') {
    throw new Error(`expected ${JSON.stringify(address)} to parse, got ${JSON.stringify(result)}`);
  }
  return result.bmc;
}

function failure(address: string): { reason: BMCAddressErrorReason; message: string } {
  const result = parseBMCAddress(address);
  if (result.kind !== 'invalid') {
    throw new Error(`expected ${JSON.stringify(address)} to be rejected, got ${JSON.stringify(result)}`);
  }
  return result.error;
}

/** The fields that define a parsed address (everything but the text it came from). */
function meaning(bmc: ParsedBMCAddress): Omit<ParsedBMCAddress, 'address'> {
  return Object.fromEntries(Object.entries(bmc).filter(([key]) => key !== 'address')) as Omit<ParsedBMCAddress, 'address'>;
}

describe('parseBMCAddress: the upstream fallbacks', () => {
  // prettier-ignore
  const rows: { name: string; address: string; expect: Partial<ParsedBMCAddress> }[] = [
    { name: 'full ipmi URL', address: 'ipmi://192.168.122.1:6233', expect: { scheme: 'ipmi', host: '192.168.122.1', port: 6233, driver: 'ipmi' } },
    { name: 'opaque ipmi:<ip> becomes ipmi://', address: 'ipmi:10.0.0.5', expect: { scheme: 'ipmi', host: '10.0.0.5', port: 623 } },
    { name: 'opaque ipmi:<ip>:<port>', address: 'ipmi:192.168.122.1:6233', expect: { scheme: 'ipmi', host: '192.168.122.1', port: 6233 } },
    { name: 'opaque redfish:<ip>', address: 'redfish:10.0.0.5', expect: { scheme: 'redfish', host: '10.0.0.5', port: undefined, protocol: 'https' } },
    { name: 'opaque keeps the query', address: 'ipmi:10.0.0.5?privilegelevel=OPERATOR', expect: { host: '10.0.0.5', privilegeLevel: 'OPERATOR' } },
    { name: 'bare IPv4 is ipmi', address: '10.0.0.5', expect: { scheme: 'ipmi', host: '10.0.0.5', port: 623 } },
    { name: 'bare host name is ipmi', address: 'bmc-7', expect: { scheme: 'ipmi', host: 'bmc-7', port: 623 } },
    { name: 'bare FQDN is ipmi', address: 'my.favoritebmc.com', expect: { scheme: 'ipmi', host: 'my.favoritebmc.com' } },
    { name: 'bare host with path is ipmi', address: 'bmc-7/ignored', expect: { scheme: 'ipmi', host: 'bmc-7', path: '/ignored' } },
    { name: 'IPv4 host:port is ipmi', address: '192.168.122.1:6233', expect: { scheme: 'ipmi', host: '192.168.122.1', port: 6233 } },
    { name: 'bracketed IPv6 with port, no scheme', address: '[fd00::5]:623', expect: { scheme: 'ipmi', host: 'fd00::5', port: 623 } },
    { name: 'bracketed IPv6 link-local with port', address: '[fe80::fc33:62ff:fe83:8a76]:6233', expect: { host: 'fe80::fc33:62ff:fe83:8a76', port: 6233 } },
    { name: 'ipmi with bracketed IPv6, no port', address: 'ipmi://[fd00::5]', expect: { scheme: 'ipmi', host: 'fd00::5', port: 623 } },
    { name: 'redfish with bracketed IPv6, port and path', address: 'redfish://[fd00::5]:8443/x', expect: { host: 'fd00::5', port: 8443, systemId: '/x' } },
    { name: 'redfish IPv6 without port', address: 'redfish://[fe80::fc33:62ff:fe83:8a76]', expect: { host: 'fe80::fc33:62ff:fe83:8a76', port: undefined } },
    { name: 'IPv4-mapped IPv6', address: 'redfish://[::ffff:10.0.0.5]', expect: { host: '::ffff:10.0.0.5' } },
    { name: 'libvirt with path and query', address: 'libvirt://192.168.122.1:6233/?abc=def', expect: { scheme: 'libvirt', driver: 'ipmi', port: 6233, path: '/' } },
    { name: 'user info is dropped', address: 'redfish://admin:pw@10.0.0.5/redfish/v1/Systems/1', expect: { host: '10.0.0.5', systemId: '/redfish/v1/Systems/1' } },
    { name: 'fragment is ignored', address: 'redfish://10.0.0.5/redfish/v1/Systems/1#top', expect: { systemId: '/redfish/v1/Systems/1' } },
    { name: 'scheme is case-insensitive (Go lower-cases it)', address: 'REDFISH+HTTP://10.0.0.5', expect: { scheme: 'redfish+http', protocol: 'http' } },
    { name: 'host name case is kept', address: 'ipmi://BMC-7.Example.COM', expect: { host: 'BMC-7.Example.COM' } },
    { name: 'leading zeros make a name, not an IP', address: '010.0.0.5', expect: { host: '010.0.0.5' } },
    { name: 'empty port after colon', address: 'redfish://10.0.0.5:/x', expect: { port: undefined, systemId: '/x' } },
    { name: 'port with leading zeros', address: 'ipmi://10.0.0.5:0623', expect: { port: 623 } },
    { name: 'largest port', address: 'ipmi://10.0.0.5:65535', expect: { port: 65535 } },
  ];

  it.each(rows)('$name: $address', ({ address, expect: expected }) => {
    expect(parsed(address)).toMatchObject({ address, ...expected });
  });

  it('an empty address means no BMC', () => {
    expect(parseBMCAddress('')).toEqual({ kind: 'none' });
  });
});

describe('parseBMCAddress: rejections and their messages', () => {
  const rows: { name: string; address: string; reason: BMCAddressErrorReason; message: string }[] = [
    {
      name: 'bracketed IPv6 without scheme and port',
      address: '[fd00::5]',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "[fd00::5]": first path segment in URL cannot contain colon',
    },
    {
      name: 'bracketed IPv6 without scheme, junk after bracket',
      address: '[fd00::5]x:1',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "[fd00::5]x:1": first path segment in URL cannot contain colon',
    },
    {
      name: 'invalid IPv6 literal',
      address: '[fe80::fc33:62ff:fe33:8xff]:6223',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [fe80::fc33:62ff:fe33:8xff] is invalid',
    },
    {
      name: 'label ending with a hyphen',
      address: 'my-.examplehost.com',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [my-.examplehost.com] is invalid',
    },
    {
      name: 'label longer than 63 characters',
      address: `ipmi://${'a'.repeat(64)}.example.com`,
      reason: 'hostname',
      message: `failed to parse BMC address information: BMC address hostname/IP : [${'a'.repeat(64)}.example.com] is invalid`,
    },
    {
      name: 'trailing dot',
      address: 'ipmi://bmc.example.com.',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [bmc.example.com.] is invalid',
    },
    {
      name: 'underscore in a name',
      address: 'redfish://bmc_7',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [bmc_7] is invalid',
    },
    {
      name: 'non-numeric port without scheme',
      address: '10.0.0.5:abc',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [10.0.0.5:abc] is invalid',
    },
    {
      name: 'non-numeric port with scheme',
      address: 'ipmi://10.0.0.5:abc',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://10.0.0.5:abc": invalid port ":abc" after host',
    },
    {
      name: 'space in a bare host',
      address: '10.0.0.5 x',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://10.0.0.5 x": invalid character " " in host name',
    },
    { name: 'unknown scheme', address: 'foo://10.0.0.5', reason: 'unknown-scheme', message: "Unknown BMC type 'foo' for address foo://10.0.0.5" },
    {
      name: 'ipmi takes no +https',
      address: 'ipmi+https://10.0.0.5',
      reason: 'unknown-scheme',
      message: "Unknown BMC type 'ipmi+https' for address ipmi+https://10.0.0.5",
    },
    {
      name: 'libvirt takes no +http',
      address: 'libvirt+http://10.0.0.5',
      reason: 'unknown-scheme',
      message: "Unknown BMC type 'libvirt+http' for address libvirt+http://10.0.0.5",
    },
    {
      name: 'redfish takes only http/https',
      address: 'redfish+ftp://10.0.0.5',
      reason: 'unknown-scheme',
      message: "Unknown BMC type 'redfish+ftp' for address redfish+ftp://10.0.0.5",
    },
    { name: 'opaque unknown scheme', address: 'foo:10.0.0.5', reason: 'unknown-scheme', message: "Unknown BMC type 'foo' for address foo:10.0.0.5" },
    // Go reads "name:port" as scheme "name" plus an opaque part when the name is scheme-shaped.
    { name: 'host-name:port reads as a scheme', address: 'bmc-7:623', reason: 'unknown-scheme', message: "Unknown BMC type 'bmc-7' for address bmc-7:623" },
    { name: 'unbracketed IPv6 reads as a scheme', address: 'fd00::5', reason: 'unknown-scheme', message: "Unknown BMC type 'fd00' for address fd00::5" },
    { name: 'scheme-relative URL has no scheme', address: '//10.0.0.5', reason: 'unknown-scheme', message: "Unknown BMC type '' for address //10.0.0.5" },
    {
      name: 'missing scheme error',
      address: ':a:b',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse ":a:b": missing protocol scheme',
    },
    {
      name: 'bad escape in the path',
      address: 'redfish://10.0.0.5/%zz',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [redfish://10.0.0.5/%zz] is invalid',
    },
    {
      name: 'bad escape in a bare address',
      address: '%zz',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [%zz] is invalid',
    },
    {
      name: 'control character',
      address: 'ipmi://10.0.0.5\n',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [ipmi://10.0.0.5\n] is invalid',
    },
    // Go (since 1.25.2) admits only IPv6 literals in brackets, with RFC 6874 zones.
    {
      name: 'IPv4 in brackets',
      address: 'ipmi://[10.0.0.5]',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://[10.0.0.5]": invalid IP-literal',
    },
    {
      name: 'a name in brackets',
      address: 'redfish://[bmc-7]:8443',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "redfish://[bmc-7]:8443": invalid host: ParseAddr("bmc-7"): unable to parse IP',
    },
    {
      name: 'a bracket inside the host',
      address: 'ipmi://bmc[7]',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://bmc[7]": invalid IP-literal',
    },
    {
      name: 'IPv6 zone',
      address: 'redfish://[fe80::1%25eth0]',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [fe80::1%eth0] is invalid',
    },
    {
      name: 'a zone escape that could be written plainly',
      address: 'redfish://[fe80::1%25%41]',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [fe80::1%A] is invalid',
    },
    {
      name: 'an escape cut in the middle of a character (Go slices bytes)',
      address: 'ipmi://h:1:2/%A\u00e9',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://h:1:2/%A\u00e9": invalid URL escape "%A\\xc3"',
    },
    {
      name: 'a control character is quoted as Go quotes it',
      address: 'ipmi://[::1\t]:623',
      reason: 'parse',
      message: 'failed to parse BMC address information: parse "ipmi://[::1\\t]:623": net/url: invalid control character in URL',
    },
    {
      name: "bytes that are not UTF-8 show one U+FFFD each, as in Go's JSON",
      address: 'ipmi://%E2%82',
      reason: 'hostname',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [\uFFFD\uFFFD] is invalid',
    },
    // Stricter than upstream (see domain/bmc/address.ts): admitted by BMO, useless to a driver.
    {
      name: 'no host at all',
      address: 'ipmi://',
      reason: 'host-required',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [] is invalid',
    },
    {
      name: 'only a port',
      address: 'redfish://:8443/x',
      reason: 'host-required',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [] is invalid',
    },
    {
      name: 'port without host, no scheme',
      address: ':623',
      reason: 'host-required',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [] is invalid',
    },
    {
      name: 'host in the path',
      address: 'redfish:/10.0.0.5',
      reason: 'host-required',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [] is invalid',
    },
    {
      name: 'IPv6 without brackets',
      address: 'ipmi://fd00::5:623',
      reason: 'host-brackets',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [fd00::5] is invalid',
    },
    {
      name: 'IPv4 in brackets, no scheme',
      address: '[10.0.0.5]:623',
      reason: 'host-brackets',
      message: 'failed to parse BMC address information: BMC address hostname/IP : [10.0.0.5] is invalid',
    },
    {
      name: 'port out of range',
      address: 'ipmi://10.0.0.5:65536',
      reason: 'port-range',
      message: 'failed to parse BMC address information: invalid port ":65536" after host',
    },
  ];

  it.each(rows)('$name: $address', ({ address, reason, message }) => {
    expect(failure(address)).toEqual({ reason, message });
  });

  it.each(['idrac', 'idrac+http', 'idrac+https', 'ibmc', 'ibmc+https', 'ilo4', 'ilo4+https', 'ilo4-virtualmedia', 'ilo5', 'ilo5+https', 'irmc'])(
    'removed scheme %s is unknown',
    (scheme) => {
      expect(failure(`${scheme}://10.0.0.5`)).toEqual({ reason: 'unknown-scheme', message: `Unknown BMC type '${scheme}' for address ${scheme}://10.0.0.5` });
    },
  );
});

describe('parseBMCAddress: IPMI specifics', () => {
  const rows: { name: string; address: string; port: number; privilegeLevel: string }[] = [
    { name: 'default port and privilege level', address: 'ipmi://10.0.0.5', port: 623, privilegeLevel: 'ADMINISTRATOR' },
    { name: 'explicit port', address: 'ipmi://10.0.0.5:6230', port: 6230, privilegeLevel: 'ADMINISTRATOR' },
    { name: 'privilege level', address: 'ipmi://10.0.0.5?privilegelevel=OPERATOR', port: 623, privilegeLevel: 'OPERATOR' },
    { name: 'privilege level with port on libvirt', address: 'libvirt://10.0.0.5:6233?privilegelevel=USER', port: 6233, privilegeLevel: 'USER' },
    { name: 'first value wins', address: 'ipmi://10.0.0.5?privilegelevel=USER&privilegelevel=OPERATOR', port: 623, privilegeLevel: 'USER' },
    { name: 'empty value is kept', address: 'ipmi://10.0.0.5?privilegelevel=', port: 623, privilegeLevel: '' },
    { name: 'value is query-decoded', address: 'ipmi://10.0.0.5?privilegelevel=A%42C+D', port: 623, privilegeLevel: 'ABC D' },
    { name: 'key is case-sensitive', address: 'ipmi://10.0.0.5?PrivilegeLevel=USER', port: 623, privilegeLevel: 'ADMINISTRATOR' },
    { name: 'a query error means the default', address: 'ipmi://10.0.0.5?privilegelevel=USER&x=%zz', port: 623, privilegeLevel: 'ADMINISTRATOR' },
    { name: 'a semicolon means the default', address: 'ipmi://10.0.0.5?privilegelevel=USER;x=1', port: 623, privilegeLevel: 'ADMINISTRATOR' },
    { name: 'bare host:port', address: '10.0.0.5:6230', port: 6230, privilegeLevel: 'ADMINISTRATOR' },
  ];

  it.each(rows)('$name: $address', ({ address, port, privilegeLevel }) => {
    expect(parsed(address)).toMatchObject({ protocol: 'ipmi', port, privilegeLevel, systemId: undefined });
  });

  it('privilegeLevelFromQuery ignores empty pairs', () => {
    expect(privilegeLevelFromQuery('&&privilegelevel=CALLBACK&')).toBe('CALLBACK');
  });

  // Go's url.ParseQuery refuses more than 10000 parameters, and upstream then uses the default.
  it('more than 10000 query parameters mean the default level', () => {
    expect(privilegeLevelFromQuery(`privilegelevel=USER${'&'.repeat(9999)}`)).toBe('USER');
    expect(privilegeLevelFromQuery(`privilegelevel=USER${'&'.repeat(10000)}`)).toBe('ADMINISTRATOR');
  });
});

describe('parseBMCAddress: Redfish protocol and system id', () => {
  const rows: { name: string; address: string; protocol: 'http' | 'https'; base: string; systemId: string | undefined }[] = [
    { name: 'default https', address: 'redfish://10.0.0.5', protocol: 'https', base: 'https://10.0.0.5', systemId: undefined },
    { name: '+http', address: 'redfish+http://10.0.0.5/foo/bar', protocol: 'http', base: 'http://10.0.0.5', systemId: '/foo/bar' },
    { name: '+https', address: 'redfish+https://10.0.0.5/foo/bar', protocol: 'https', base: 'https://10.0.0.5', systemId: '/foo/bar' },
    { name: 'port kept', address: 'redfish://10.0.0.5:8080/foo/bar', protocol: 'https', base: 'https://10.0.0.5:8080', systemId: '/foo/bar' },
    { name: 'IPv6 with port', address: 'redfish://[fd00::5]:8080/foo', protocol: 'https', base: 'https://[fd00::5]:8080', systemId: '/foo' },
    {
      name: 'DMTF system path',
      address: 'redfish://10.0.0.5/redfish/v1/Systems/1',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: '/redfish/v1/Systems/1',
    },
    {
      name: 'Dell system path',
      address: 'idrac-virtualmedia://10.0.0.5/redfish/v1/Systems/System.Embedded.1',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: '/redfish/v1/Systems/System.Embedded.1',
    },
    {
      name: 'sushy-tools UUID path',
      address: 'redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/0b0a6f4e',
      protocol: 'http',
      base: 'http://127.0.0.1:8000',
      systemId: '/redfish/v1/Systems/0b0a6f4e',
    },
    { name: 'empty path is no system', address: 'redfish://10.0.0.5', protocol: 'https', base: 'https://10.0.0.5', systemId: undefined },
    { name: 'slash is no system', address: 'redfish+https://10.0.0.5/', protocol: 'https', base: 'https://10.0.0.5', systemId: undefined },
    { name: 'redfish/v1 is no system', address: 'redfish://10.0.0.5/redfish/v1', protocol: 'https', base: 'https://10.0.0.5', systemId: undefined },
    {
      name: '/redfish/v1/ is no system',
      address: 'redfish-virtualmedia://10.0.0.5/redfish/v1/',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: undefined,
    },
    {
      name: 'extra slashes are trimmed for the check',
      address: 'redfish://10.0.0.5//redfish/v1//',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: undefined,
    },
    {
      name: 'path is percent-decoded',
      address: 'redfish://10.0.0.5/redfish/v1/Systems/System%2EEmbedded.1',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: '/redfish/v1/Systems/System.Embedded.1',
    },
    {
      name: 'uefihttp passes redfish/v1',
      address: 'redfish-uefihttp://10.0.0.5/redfish/v1/',
      protocol: 'https',
      base: 'https://10.0.0.5',
      systemId: '/redfish/v1/',
    },
    {
      name: 'uefihttp passes a system path',
      address: 'redfish-uefihttp+http://10.0.0.5/redfish/v1/Systems/1',
      protocol: 'http',
      base: 'http://10.0.0.5',
      systemId: '/redfish/v1/Systems/1',
    },
    { name: 'uefihttp without a path', address: 'redfish-uefihttp://10.0.0.5', protocol: 'https', base: 'https://10.0.0.5', systemId: undefined },
  ];

  it.each(rows)('$name: $address', ({ address, protocol, base, systemId }) => {
    const bmc = parsed(address);
    expect(bmc).toMatchObject({ protocol, systemId, privilegeLevel: undefined });
    expect(redfishBaseURL(bmc)).toBe(base);
  });

  it('IPMI addresses have no Redfish base URL', () => {
    expect(redfishBaseURL(parsed('ipmi://10.0.0.5'))).toBeUndefined();
    expect(hostPortOf(parsed('ipmi://[fd00::5]'))).toBe('[fd00::5]:623');
  });
});

describe('host literals (Go net.ParseIP and the RFC-1123 pattern)', () => {
  const rows: { name: string; text: string; ipv4: boolean; ipv6: boolean; dns: boolean }[] = [
    { name: 'IPv4', text: '192.168.122.1', ipv4: true, ipv6: false, dns: true },
    { name: 'IPv4 with a leading zero', text: '192.168.122.01', ipv4: false, ipv6: false, dns: true },
    { name: 'IPv4 octet over 255', text: '256.1.1.1', ipv4: false, ipv6: false, dns: true },
    { name: 'three octets', text: '10.0.5', ipv4: false, ipv6: false, dns: true },
    { name: 'IPv6 full', text: '2001:db8:0:0:0:0:0:1', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 compressed', text: 'fd00::5', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 unspecified', text: '::', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 trailing ellipsis', text: '1:2:3:4:5:6:7::', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 ellipsis standing for nothing', text: '1:2:3:4::5:6:7:8', ipv4: false, ipv6: false, dns: false },
    { name: 'IPv6 two ellipses', text: '1::2::3', ipv4: false, ipv6: false, dns: false },
    { name: 'IPv6 five-digit group', text: '12345::1', ipv4: false, ipv6: false, dns: false },
    { name: 'IPv6 seven groups', text: '1:2:3:4:5:6:7', ipv4: false, ipv6: false, dns: false },
    { name: 'IPv6 embedded IPv4', text: '::ffff:192.0.2.1', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 embedded IPv4, full', text: '1:2:3:4:5:6:192.0.2.1', ipv4: false, ipv6: true, dns: false },
    { name: 'IPv6 embedded IPv4 not last', text: '::192.0.2.1:1', ipv4: false, ipv6: false, dns: false },
    { name: 'IPv6 zone', text: 'fe80::1%eth0', ipv4: false, ipv6: false, dns: false },
    { name: 'name', text: 'bmc-7.example.com', ipv4: false, ipv6: false, dns: true },
    { name: '63-character label', text: `${'a'.repeat(63)}.com`, ipv4: false, ipv6: false, dns: true },
    { name: 'leading hyphen', text: '-bmc', ipv4: false, ipv6: false, dns: false },
    { name: 'empty label', text: 'bmc..example', ipv4: false, ipv6: false, dns: false },
    { name: 'empty', text: '', ipv4: false, ipv6: false, dns: false },
  ];

  it.each(rows)('$name: $text', ({ text, ipv4, ipv6, dns }) => {
    expect({ ipv4: isIPv4Literal(text), ipv6: isIPv6Literal(text), dns: isDNSName(text) }).toEqual({ ipv4, ipv6, dns });
  });
});

describe('renderBMCAddress', () => {
  const rows: { name: string; address: string; rendered: string }[] = [
    { name: 'bare IPv4 gets scheme and default port', address: '10.0.0.5', rendered: 'ipmi://10.0.0.5:623' },
    { name: 'opaque form', address: 'ipmi:10.0.0.5', rendered: 'ipmi://10.0.0.5:623' },
    { name: 'privilege level kept', address: 'ipmi://h?privilegelevel=OPERATOR', rendered: 'ipmi://h:623?privilegelevel=OPERATOR' },
    { name: 'IPv6 bracketed', address: '[fd00::5]:6230', rendered: 'ipmi://[fd00::5]:6230' },
    { name: 'redfish path escaped', address: 'redfish+http://h/a%3Fb%20c', rendered: 'redfish+http://h/a%3Fb%20c' },
    { name: 'redfish without port', address: 'REDFISH://h/redfish/v1/Systems/1', rendered: 'redfish://h/redfish/v1/Systems/1' },
  ];

  it.each(rows)('$name: $address', ({ address, rendered }) => {
    expect(renderBMCAddress(parsed(address))).toBe(rendered);
  });
});

describe('parseMAC', () => {
  const valid: { name: string; text: string; mac: string }[] = [
    { name: 'colon, lower case', text: '00:11:22:33:44:55', mac: '00:11:22:33:44:55' },
    { name: 'colon, upper case', text: '00:AA:BB:CC:DD:EE', mac: '00:aa:bb:cc:dd:ee' },
    { name: 'hyphen', text: '00-aa-BB-cc-DD-ee', mac: '00:aa:bb:cc:dd:ee' },
    { name: 'dotted', text: '00aa.bbcc.ddee', mac: '00:aa:bb:cc:dd:ee' },
    { name: 'dotted zeros', text: '0000.0000.0000', mac: '00:00:00:00:00:00' },
    { name: 'EUI-64', text: '02:00:5e:10:00:00:00:01', mac: '02:00:5e:10:00:00:00:01' },
    { name: 'EUI-64 dotted', text: '0200.5e10.0000.0001', mac: '02:00:5e:10:00:00:00:01' },
    {
      name: 'InfiniBand',
      text: '00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01',
      mac: '00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01',
    },
  ];
  const invalid: { name: string; text: string; error: string }[] = [
    { name: 'too short', text: '00:11', error: 'address 00:11: invalid MAC address' },
    { name: 'empty', text: '', error: 'invalid MAC address' },
    { name: 'seven bytes', text: '00:11:22:33:44:55:66', error: 'address 00:11:22:33:44:55:66: invalid MAC address' },
    { name: 'mixed separators', text: '00:11-22:33:44:55', error: 'address 00:11-22:33:44:55: invalid MAC address' },
    { name: 'single hex digit', text: '0:11:22:33:44:555', error: 'address 0:11:22:33:44:555: invalid MAC address' },
    { name: 'not hex', text: '00:11:22:33:44:zz', error: 'address 00:11:22:33:44:zz: invalid MAC address' },
    { name: 'no separators', text: '001122334455aa', error: 'address 001122334455aa: invalid MAC address' },
    { name: 'dotted with bad group', text: '00aa.bbcc.dde', error: 'address 00aa.bbcc.dde: invalid MAC address' },
    { name: 'trailing separator', text: '00:11:22:33:44:55:', error: 'address 00:11:22:33:44:55:: invalid MAC address' },
    { name: 'surrounding space', text: ' 00:11:22:33:44:55', error: 'address  00:11:22:33:44:55: invalid MAC address' },
  ];

  it.each(valid)('accepts $name: $text', ({ text, mac }) => {
    expect(parseMAC(text)).toEqual({ ok: true, mac });
    expect(normalizeMAC(text)).toBe(mac);
  });

  it.each(invalid)('rejects $name: $text', ({ text, error }) => {
    expect(parseMAC(text)).toEqual({ ok: false, error });
    expect(normalizeMAC(text)).toBeUndefined();
  });

  it('normalises every 6-byte form to the same colon form', () => {
    const bytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(bytes, fc.boolean(), (values, upper) => {
        const hex = values.map((byte) => byte.toString(16).padStart(2, '0')).map((pair) => (upper ? pair.toUpperCase() : pair));
        const expected = hex.join(':').toLowerCase();
        const dotted = [0, 2, 4].map((index) => `${hex[index]!}${hex[index + 1]!}`).join('.');
        expect([hex.join(':'), hex.join('-'), dotted].map(normalizeMAC)).toEqual([expected, expected, expected]);
      }),
    );
  });
});

describe('properties', () => {
  const urlish = fc.string({
    unit: fc.constantFrom(...'ipmredfshvtualbc+-.:/[]@?#%=&;_ 0123456789aAfF'.split(''), 'ipmi', 'redfish', '://', '::', '%25', '%2F', '\u00e9', '\n'),
    maxLength: 40,
  });

  it('never throws, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), urlish), (text) => {
        expect(() => parseBMCAddress(text)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('a parsed address, rendered and parsed again, means the same', () => {
    const knownPrefix = fc.constantFrom(
      '',
      'ipmi://',
      'libvirt:',
      'redfish://',
      'redfish-virtualmedia+http://',
      'idrac-redfish+https://',
      'redfish-uefihttp://',
    );
    fc.assert(
      fc.property(
        knownPrefix,
        fc.oneof(
          urlish,
          fc.tuple(fc.domain(), urlish).map(([host, tail]) => `${host}/${tail}`),
        ),
        (prefix, rest) => {
          const first = parseBMCAddress(prefix + rest);
          if (first.kind !== 'parsed') {
            return;
          }
          const again = parsed(renderBMCAddress(first.bmc));
          expect(meaning(again)).toEqual(meaning(first.bmc));
        },
      ),
      { numRuns: 3000 },
    );
  });

  const schemes = fc.constantFrom(
    'ipmi',
    'libvirt',
    'redfish',
    'redfish+http',
    'redfish+https',
    'redfish-virtualmedia',
    'redfish-virtualmedia+http',
    'redfish-uefihttp+https',
    'idrac-redfish',
    'idrac-virtualmedia+https',
    'ilo5-redfish+http',
    'ilo5-virtualmedia',
  );
  const hosts = fc.oneof(
    fc.ipV4().map((ip) => ({ host: ip, written: ip })),
    fc.ipV6().map((ip) => ({ host: ip, written: `[${ip}]` })),
    fc.domain().map((name) => ({ host: name, written: name })),
  );
  const ports = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
  const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
  const paths = fc.oneof(
    fc.constant(''),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/redfish/v1/Systems/${parts.join('/')}`),
  );

  it('valid scheme/host/port/path combinations parse to what they were built from', () => {
    fc.assert(
      fc.property(schemes, hosts, ports, paths, (scheme, { host, written }, port, path) => {
        const address = `${scheme}://${written}${port === undefined ? '' : `:${port}`}${path}`;
        const bmc = parsed(address);
        const ipmiStyle = scheme === 'ipmi' || scheme === 'libvirt';
        expect(bmc).toMatchObject({ scheme, host, path, port: ipmiStyle ? (port ?? 623) : port });
        expect(bmc.protocol).toBe(ipmiStyle ? 'ipmi' : scheme.endsWith('+http') ? 'http' : 'https');
        expect(bmc.systemId).toBe(ipmiStyle || path === '' ? undefined : path);
      }),
      { numRuns: 1000 },
    );
  });

  it('bare IPv4 host:port and bracketed IPv6 host:port are IPMI', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6().map((ip) => `[${ip}]`),
        ),
        fc.integer({ min: 0, max: 65535 }),
        (written, port) => {
          const bmc = parsed(`${written}:${port}`);
          expect(bmc).toMatchObject({ scheme: 'ipmi', port, host: written.replace(/^\[|\]$/g, '') });
        },
      ),
    );
  });

  it('bracketed IPv6 without scheme and port is always rejected', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        expect(isIPv6Literal(ip)).toBe(true);
        expect(parseBMCAddress(`[${ip}]`).kind).toBe('invalid');
      }),
    );
  });
});
