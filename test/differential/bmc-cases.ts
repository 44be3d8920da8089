// Random BMC addresses for the bmc sweep: every scheme upstream registers (and its +http/+https
// spellings, in random letter case), removed and unknown schemes, IPv4/IPv6/DNS hosts valid and
// not, bracketed or not, with zones and escapes, ports in and out of range, paths, queries
// (privilegelevel), user info and fragments; written as URLs, as "scheme:opaque", without a
// scheme, with odd slashes, and as garbage.
import fc from 'fast-check';

export interface BMCCase {
  readonly address: string;
  readonly disableCertificateVerification: boolean;
}

/** The Redfish-family factories hardwareutils v0.13.1 registers, each also as +http and +https. */
const REDFISH_FAMILY = ['redfish', 'ilo5-redfish', 'idrac-redfish', 'redfish-virtualmedia', 'ilo5-virtualmedia', 'idrac-virtualmedia', 'redfish-uefihttp'];

/** Every scheme upstream accepts, written out (not read from Ironhook's registry) so a missing one shows. */
export const UPSTREAM_SCHEMES: readonly string[] = ['ipmi', 'libvirt', ...REDFISH_FAMILY.flatMap((name) => [name, `${name}+http`, `${name}+https`])];

// Schemes older BMOs had (idrac, ilo4, irmc, ...), suffixes on the wrong family, and plain junk.
const UNKNOWN_SCHEMES = [
  'idrac',
  'ilo4',
  'ilo5',
  'irmc',
  'ibmc',
  'ilo4-virtualmedia',
  'irmc-virtualmedia',
  'ibmc+https',
  'idrac+http',
  'ipmi+http',
  'libvirt+https',
  'redfish+ftp',
  'redfish+',
  'redfish+http+https',
  'redfish-uefihttp+httpss',
  'http',
  'https',
  'bogus',
  'x',
  'a-b.c+d',
];

/** Upper-cases a random selection of the letters (URL schemes are case-insensitive). */
function caseVariant(text: string): fc.Arbitrary<string> {
  return fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) =>
    Array.from(text)
      .map((char, index) => (upper[index] === true ? char.toUpperCase() : char))
      .join(''),
  );
}

const knownOrNot = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...UPSTREAM_SCHEMES) },
  { weight: 2, arbitrary: fc.constantFrom(...UNKNOWN_SCHEMES) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9+.-]{0,8}$/) },
);
const scheme: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: knownOrNot }, { weight: 1, arbitrary: knownOrNot.chain(caseVariant) });

const ipv4 = fc.oneof(
  fc.ipV4(),
  fc.constantFrom('0.0.0.0', '255.255.255.255', '192.0.2.5', '10.0.0.5'),
  fc.constantFrom('256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1..2.3', '1.2.3.4.', '.1.2.3', '1.2.3.04', '1.2.3.a', '999.1.1.1'),
);

const ipv6Text = fc.oneof(
  fc.ipV6(),
  fc.constantFrom('::', '::1', 'fe80::1', 'fd00::5', '2001:db8::5', '::ffff:10.0.0.5', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:1.2.3.4', '::1.2.3.4'),
  fc.constantFrom('1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', 'FE80::A', '0000:0000::0001', '1::2:3:4:5:6:7'),
  fc.constantFrom('1:2:3:4:5:6:7:8:9', '1::2::3', '12345::1', 'g::1', ':1::', '1:2:3:4:5:6:7:8::', '1:2:3:4:5:6:7:1.2.3.4', '1::1.2.3', '::1.2.3.04'),
  fc.constantFrom('1:2:3:4:5:6:7', '1:', '::1:', '1.2.3.4::', '::ffff:256.1.1.1', ':::1', '1:2:3:4:5:6:7:8%', '::%eth0'),
);
const zone = fc.constantFrom('', '', '', '%25eth0', '%eth0', '%25', '%25%41', '%25%20x', '%25a%2Fb', '%25en0%25', '%2541', '%25é');
const ipv6 = fc.tuple(ipv6Text, zone).map(([address, suffix]) => address + suffix);

const label = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?$/),
  fc.stringMatching(/^[A-Za-z0-9-]{1,6}$/),
  fc.constantFrom('a'.repeat(63), 'b'.repeat(64), `a${'-'.repeat(61)}z`, 'xn--bcher-kva', '0', '9a'),
);
const dnsName = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
  fc.domain(),
  fc.constantFrom('localhost', 'bmc-7', 'BMC-7.Example.COM', 'my.favoritebmc.com', 'my-.examplehost.com', 'a.', '.a', 'a..b', '-a', 'a-'),
);
const oddHost = fc.oneof(
  fc.constantFrom('a_b', 'a b', 'é.example', 'a%41', '%C3%A9', '%C3', '%E2%82', 'a%2', 'a%zz', '*', 'a]', 'a[b', '[a]', '[1.2.3.4]', '[::1', '::1]'),
  fc.constantFrom('[::1]x', '[::1]]', '[[::1]]', 'a\u0001b', 'a\tb', 'a!b', "a'b", 'a"b', 'a<b', 'a{b', 'a^b', 'a|b', 'a\\b', 'a`b', 'a\u007fb'),
  fc.constantFrom('[fe80::1%25eth0]', '[fe80::1%eth0]', '[::1%25]', '[]', '[:]', '[x]', '[1.2.3.4%25a]', '[::ffff:1.2.3.4]', '[v1.x]', '[::1]%41'),
  fc.string({ unit: fc.constantFrom(...Array.from('a1.-_:[]%@!*é')), maxLength: 8 }),
);
const host: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: ipv4 },
  { weight: 6, arbitrary: ipv6.map((address) => `[${address}]`) },
  { weight: 2, arbitrary: ipv6 },
  { weight: 8, arbitrary: dnsName },
  { weight: 4, arbitrary: oddHost },
  { weight: 1, arbitrary: fc.constant('') },
);

const port: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.constantFrom(':', ':0', ':1', ':623', ':6230', ':8443', ':65535', ':0623', ':00', ':65536', ':99999') },
  { weight: 2, arbitrary: fc.constantFrom(':abc', ':-1', '::623', ':6 23', ':+1', ':1e3', ':0x10', ':%31', ':623:', ':623/') },
  { weight: 2, arbitrary: fc.stringMatching(/^:[0-9]{1,7}$/) },
  { weight: 1, arbitrary: fc.constant(':18446744073709551617') },
);

const userinfo: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('user@', 'user:pass@', 'a%41:b%42@', 'u%zz@', 'u:p%zz@', 'u%4:x@', 'a b@', '@', 'a@b@', 'u:p:q@', '[x]@', 'é@', 'u/p@'),
  },
);

// Path segments: the characters a path may hold, and percent-escapes of any byte (UTF-8 or not).
const pathSegment = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,6}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^(%[0-9A-Fa-f]{2}|[a-z%]){1,4}$/) },
);
const path: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc.constantFrom('/', '/redfish/v1', '/redfish/v1/', '//redfish/v1//', '/redfish/v1/Systems/1', '/redfish/v1/Systems/System.Embedded.1', '/x'),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('/a%20b', '/a%2Fb', '/%zz', '/%E2%82%AC', '/%E2%82', '/%FF', '/%C0%80', '/%ED%A0%80', '/a:b', '/a b', '/é', '///', '/ignored'),
  },
  { weight: 2, arbitrary: fc.array(pathSegment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`) },
);

const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc.constantFrom('?', '?privilegelevel=OPERATOR', '?privilegelevel=USER', '?privilegelevel=callback', '?privilegelevel=', '?privilegelevel'),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '?privilegelevel=USER&privilegelevel=OPERATOR',
      '?a=b&privilegelevel=OPERATOR',
      '?privilegelevel=OPERATOR;x=1',
      '?x;y&privilegelevel=USER',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '?privilegelevel=%zz',
      '?x=%zz&privilegelevel=USER',
      '?privilegelevel=USER&x=%zz',
      '?privilegelevel=A+B',
      '?privilegelevel=A%20B',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '?privilege%6cevel=OPERATOR',
      '?PrivilegeLevel=USER',
      '?abc=def',
      '??privilegelevel=USER',
      '?privilegelevel=USER?x',
      '?privilegelevel=é',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('?privilegelevel=%E2%82', '?privilegelevel=%FF', '?&&privilegelevel=CALLBACK&', '?=x&privilegelevel=USER', '?privilegelevel=='),
  },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...Array.from('ab=&;%+?/2F')), maxLength: 10 }).map((text) => `?${text}`) },
);

const fragment: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom('#', '#top', '#%zz', '#a b', '#?x', '#%41', '#/x', '##') },
);

// How the pieces are put together: mostly full URLs; also "scheme:rest" (opaque), no scheme at
// all, and odd slashes (which mostly leave the host empty, so fewer of them).
const parts = fc.record({ scheme, userinfo, host, port, path, query, fragment });
type Parts = typeof parts extends fc.Arbitrary<infer T> ? T : never;
const forms: readonly (readonly [number, (p: Parts) => string])[] = [
  [50, (p) => `${p.scheme}://${p.userinfo}${p.host}${p.port}${p.path}${p.query}${p.fragment}`],
  [14, (p) => `${p.scheme}:${p.host}${p.port}${p.path}${p.query}${p.fragment}`],
  [16, (p) => `${p.host}${p.port}${p.path}${p.query}${p.fragment}`],
  [3, (p) => `${p.scheme}:/${p.host}${p.port}${p.path}`],
  [3, (p) => `${p.scheme}:///${p.host}${p.port}${p.path}`],
  [5, (p) => `//${p.userinfo}${p.host}${p.port}${p.path}${p.query}`],
  [2, (p) => `///${p.host}${p.path}`],
];
const assembled = fc.oneof(...forms.map(([weight, form]) => ({ weight, arbitrary: parts.map(form) })));

const garbage = fc.oneof(
  fc.string({ unit: fc.constantFrom(...Array.from(':/[]@%?#.+-_ aZ09é\u0001\t!*~')), maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', ':', '::', '/', '//', '///', '?', '#', '*', '%', '@', '[', ']', '[]', ':623', 'ipmi:', 'ipmi:/', 'ipmi://', 'redfish://'),
);

export const bmcCase: fc.Arbitrary<BMCCase> = fc.record({
  address: fc.oneof({ weight: 9, arbitrary: assembled }, { weight: 1, arbitrary: garbage }),
  disableCertificateVerification: fc.boolean(),
});
