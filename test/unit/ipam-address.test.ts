// Address arithmetic: strict parsing, Go-compatible canonical text, names, subnets.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  addressFromKey,
  addressFromName,
  addressKey,
  canonicalAddress,
  compareAddresses,
  formatAddress,
  ipAddressName,
  parseAddress,
  parseGoAddress,
  parseSubnet,
  type Address,
} from '../../domain/ipam/address.js';

describe('parseAddress / formatAddress', () => {
  const canonical: Array<[string, string, string]> = [
    ['IPv4 plain', '192.168.0.13', '192.168.0.13'],
    ['IPv4 zeros', '0.0.0.0', '0.0.0.0'],
    ['IPv4 broadcast', '255.255.255.255', '255.255.255.255'],
    ['IPv6 compressed', '2001:db8::5', '2001:db8::5'],
    ['IPv6 upper case is lowered', '2001:DB8::A', '2001:db8::a'],
    ['IPv6 leading zeros dropped', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['IPv6 single zero group is not compressed', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['IPv6 longest zero run wins', '2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['IPv6 first of equal runs wins', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['IPv6 all zeros', '::', '::'],
    ['IPv6 loopback', '::1', '::1'],
    ['IPv6 trailing run', '2001:db8::', '2001:db8::'],
    ['IPv6 full', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
  ];
  it.each(canonical)('%s: %s → %s', (_name, text, expected) => {
    expect(canonicalAddress(text)).toBe(expected);
  });

  const invalid: Array<[string, string]> = [
    ['empty', ''],
    ['IPv4 leading zero', '192.168.01.1'],
    ['IPv4 octet too big', '256.1.1.1'],
    ['IPv4 three octets', '10.0.0'],
    ['IPv4 with prefix', '10.0.0.1/24'],
    ['IPv6 two double colons', '1::2::3'],
    ['IPv6 too many groups', '1:2:3:4:5:6:7:8:9'],
    ['IPv6 double colon with eight groups', '1:2:3:4::5:6:7:8'],
    ['IPv6 group too long', '12345::1'],
    ['IPv6 embedded IPv4 (rejected like the CRD pattern)', '::ffff:1.2.3.4'],
    ['IPv6 zone', 'fe80::1%eth0'],
    ['host name', 'example.com'],
  ];
  it.each(invalid)('rejects %s (%s)', (_name, text) => {
    expect(parseAddress(text)).toBeUndefined();
  });

  it('agrees with ipaddr.js on RFC 5952 text for any IPv6 address', () => {
    const groups = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(groups, (g) => {
        const text = g.map((n) => n.toString(16)).join(':');
        expect(canonicalAddress(text)).toBe(ipaddr.IPv6.parse(text).toRFC5952String());
      }),
    );
  });

  it('round-trips every IPv4 value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const address: Address = { family: 4, value: BigInt(n) };
        expect(parseAddress(formatAddress(address))).toEqual(address);
        expect(formatAddress(address)).toBe(ipaddr.fromByteArray(ipaddr.IPv4.parse(formatAddress(address)).toByteArray()).toString());
      }),
    );
  });

  it('keys both families in one space without collisions', () => {
    const v4: Address = { family: 4, value: 1n };
    const v6: Address = { family: 6, value: 1n };
    expect(addressKey(v4)).not.toBe(addressKey(v6));
    expect(addressFromKey(addressKey(v4))).toEqual(v4);
    expect(addressFromKey(addressKey(v6))).toEqual(v6);
  });

  it('orders IPv4 before IPv6, then by value', () => {
    const list = ['::1', '10.0.0.2', '10.0.0.1'].map((t) => parseAddress(t) as Address).sort(compareAddresses);
    expect(list.map(formatAddress)).toEqual(['10.0.0.1', '10.0.0.2', '::1']);
  });
});

describe("parseGoAddress (what Go's net.ParseIP accepts, for the ipAddress annotation)", () => {
  it.each([
    ['10.0.0.5', '10.0.0.5'],
    ['::ffff:10.0.0.5', '10.0.0.5'],
    ['::FFFF:a00:5', '10.0.0.5'],
    ['0:0:0:0:0:ffff:10.0.0.5', '10.0.0.5'],
    ['::10.0.0.5', '::a00:5'],
    ['1:2:3:4:5:6:10.0.0.5', '1:2:3:4:5:6:a00:5'],
    ['2001:DB8:0::5', '2001:db8::5'],
  ])('%s is %s', (text, expected) => {
    const address = parseGoAddress(text);
    expect(address === undefined ? undefined : formatAddress(address)).toBe(expected);
  });

  it.each(['', '10.0.0.05', '::ffff:10.0.0.256', '1:2:3:4:5:6:7:10.0.0.5', '10.0.0.5:1', 'fe80::1%eth0', '::1.2.3'])('rejects %j', (text) => {
    expect(parseGoAddress(text)).toBeUndefined();
  });
});

describe('parseSubnet', () => {
  const rows: Array<[string, string, { network: string; last: string; prefix: number } | undefined]> = [
    ['IPv4 /24', '192.168.0.0/24', { network: '192.168.0.0', last: '192.168.0.255', prefix: 24 }],
    ['host bits are kept in the address, masked in network', '192.168.1.1/26', { network: '192.168.1.0', last: '192.168.1.63', prefix: 26 }],
    ['IPv4 /32', '10.0.0.7/32', { network: '10.0.0.7', last: '10.0.0.7', prefix: 32 }],
    ['IPv4 /0', '0.0.0.0/0', { network: '0.0.0.0', last: '255.255.255.255', prefix: 0 }],
    ['IPv6 /120', '2001:db8::/120', { network: '2001:db8::', last: '2001:db8::ff', prefix: 120 }],
    ['IPv4 prefix too long', '10.0.0.0/33', undefined],
    ['IPv6 prefix too long', '::/129', undefined],
    ['no prefix', '10.0.0.0', undefined],
    ['leading zero prefix', '10.0.0.0/08', undefined],
  ];
  it.each(rows)('%s: %s', (_name, text, expected) => {
    const subnet = parseSubnet(text);
    if (expected === undefined) {
      expect(subnet).toBeUndefined();
      return;
    }
    expect(subnet).toBeDefined();
    const family = subnet?.address.family ?? 4;
    expect(formatAddress({ family, value: subnet?.network ?? 0n })).toBe(expected.network);
    expect(formatAddress({ family, value: subnet?.last ?? 0n })).toBe(expected.last);
    expect(subnet?.prefixLength).toBe(expected.prefix);
  });
});

describe('IPAddress names', () => {
  const rows: Array<[string, string, string]> = [
    ['IPv4 (upstream docs)', '192.168.0.13', 'pool1-192-168-0-13'],
    ['IPv6 compressed', '2001:db8::5', 'pool1-2001-db8--5'],
    ['IPv6 trailing :: is trimmed', '2001:db8::', 'pool1-2001-db8'],
    ['IPv6 all zeros', '::', 'pool1'],
  ];
  it.each(rows)('%s: %s → %s', (_name, text, name) => {
    const address = parseAddress(text) as Address;
    expect(ipAddressName('pool1', address)).toBe(name);
  });

  it('reads names back, including trimmed IPv6 ones', () => {
    for (const text of ['192.168.0.13', '2001:db8::5', '2001:db8::', 'fe80::1:2']) {
      const address = parseAddress(text) as Address;
      expect(addressFromName('p', ipAddressName('p', address))).toEqual(address);
    }
    expect(addressFromName('p', 'other-10-0-0-1')).toBeUndefined();
    expect(addressFromName('p', 'p-not-an-address')).toBeUndefined();
  });

  it('maps distinct addresses of one family to distinct names', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }), (a, b) => {
        fc.pre(a !== b);
        expect(ipAddressName('p', { family: 6, value: a })).not.toBe(ipAddressName('p', { family: 6, value: b }));
      }),
    );
  });
});
