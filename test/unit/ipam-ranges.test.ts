// spec.pools as ranges, and the allocator's cursors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddress, ipAddressName, parseAddress, type Address } from '../../domain/ipam/address.js';
import { AddressBook, ScatterCursor, SequentialCursor } from '../../domain/ipam/allocator.js';
import { buildRanges, findRange, rangesOverlap, totalSize, type AddressRange } from '../../domain/ipam/ranges.js';
import type { IPPoolRange, IPPoolSpec } from '../../domain/ipam/types.js';

function spec(pools: IPPoolRange[], extra: Partial<IPPoolSpec> = {}): IPPoolSpec {
  return { namePrefix: 'p', pools, ...extra };
}

function text(range: AddressRange): string {
  return `${formatAddress({ family: range.family, value: range.first })}..${formatAddress({ family: range.family, value: range.last })}`;
}

describe('buildRanges', () => {
  const rows: Array<[string, IPPoolRange, string | RegExp]> = [
    ['start and end', { start: '192.168.0.10', end: '192.168.0.30' }, '192.168.0.10..192.168.0.30'],
    ['subnet only starts after the network address', { subnet: '192.168.0.0/24' }, '192.168.0.1..192.168.0.255'],
    ['subnet only with host bits starts after the written address (upstream)', { subnet: '192.168.1.1/26' }, '192.168.1.2..192.168.1.63'],
    ['start inside subnet', { start: '10.0.0.100', subnet: '10.0.0.0/24' }, '10.0.0.100..10.0.0.255'],
    ['start, end and subnet: end clipped to the subnet', { start: '10.0.0.250', end: '10.0.1.5', subnet: '10.0.0.0/24' }, '10.0.0.250..10.0.0.255'],
    ['start only runs to the end of the family', { start: '255.255.255.250' }, '255.255.255.250..255.255.255.255'],
    ['single address', { start: '10.0.0.1', end: '10.0.0.1' }, '10.0.0.1..10.0.0.1'],
    ['IPv6 start and end', { start: '2001:db8::10', end: '2001:db8::1f' }, '2001:db8::10..2001:db8::1f'],
    ['IPv6 subnet', { subnet: '2001:db8::/64' }, '2001:db8::1..2001:db8::ffff:ffff:ffff:ffff'],
    ['start after end', { start: '10.0.0.9', end: '10.0.0.1' }, /start is after end/u],
    ['start below the subnet', { start: '10.0.0.1', subnet: '10.0.1.0/24' }, /start is outside the subnet/u],
    ['neither start nor subnet', { end: '10.0.0.9' }, /either start or subnet is required/u],
    ['mixed families', { start: '10.0.0.1', end: '2001:db8::1' }, /mix IPv4 and IPv6/u],
    ['bad start', { start: '10.0.0.256' }, /start "10.0.0.256" is not an IP address/u],
    ['bad subnet', { subnet: '10.0.0.0/40' }, /subnet "10.0.0.0\/40" is not a CIDR/u],
    ['/32 subnet only has no address (written + 1 is outside)', { subnet: '10.0.0.7/32' }, /start is outside the subnet|has no addresses/u],
  ];
  it.each(rows)('%s', (_name, entry, expected) => {
    const { ranges, problems } = buildRanges(spec([entry]));
    if (typeof expected === 'string') {
      expect(problems).toEqual([]);
      expect(ranges.map(text)).toEqual([expected]);
    } else {
      expect(ranges).toEqual([]);
      expect(problems.join('\n')).toMatch(expected);
    }
  });

  it('takes prefix, gateway and DNS servers from the entry, else from the pool', () => {
    const { ranges } = buildRanges(
      spec(
        [
          { start: '10.0.0.1', end: '10.0.0.2', prefix: 25, gateway: '10.0.0.254', dnsServers: ['10.0.0.53'] },
          { start: '10.0.1.1', end: '10.0.1.2' },
        ],
        { prefix: 24, gateway: '10.0.1.254', dnsServers: ['8.8.8.8'] },
      ),
    );
    expect(ranges.map((r) => [r.prefix, r.gateway, r.dnsServers])).toEqual([
      [25, '10.0.0.254', ['10.0.0.53']],
      [24, '10.0.1.254', ['8.8.8.8']],
    ]);
  });

  it('reports an empty pool list', () => {
    expect(buildRanges(spec([])).problems).toEqual(['spec.pools is empty: the pool has no addresses']);
  });

  it('sizes overlapping ranges once and caps nothing itself', () => {
    const { ranges } = buildRanges(spec([{ subnet: '10.0.0.0/24' }, { start: '10.0.0.10', end: '10.0.1.9' }, { subnet: '2001:db8::/64' }]));
    expect(totalSize(ranges)).toBe(255n + 10n + 2n ** 64n - 1n);
  });

  it('finds the first range holding an address, in spec order', () => {
    const { ranges } = buildRanges(
      spec([
        { start: '10.0.0.5', end: '10.0.0.9', prefix: 30 },
        { subnet: '10.0.0.0/24', prefix: 24 },
      ]),
    );
    expect(findRange(ranges, parseAddress('10.0.0.6') as Address)?.prefix).toBe(30);
    expect(findRange(ranges, parseAddress('10.0.0.10') as Address)?.prefix).toBe(24);
    expect(findRange(ranges, parseAddress('10.0.1.1') as Address)).toBeUndefined();
    expect(findRange(ranges, parseAddress('::a00:6') as Address)).toBeUndefined();
  });

  it('detects overlap only within a family', () => {
    const a = buildRanges(spec([{ start: '10.0.0.1', end: '10.0.0.10' }])).ranges;
    const b = buildRanges(spec([{ start: '10.0.0.10', end: '10.0.0.20' }])).ranges;
    const c = buildRanges(spec([{ start: '10.0.0.11', end: '10.0.0.20' }])).ranges;
    const v6 = buildRanges(spec([{ start: '::a00:1', end: '::a00:a' }])).ranges;
    expect(rangesOverlap(a, b)).toBe(true);
    expect(rangesOverlap(a, c)).toBe(false);
    expect(rangesOverlap(a, v6)).toBe(false);
  });
});

function book(): AddressBook {
  return new AddressBook((address) => ipAddressName('p', address));
}

function take(cursor: SequentialCursor, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const allocation = cursor.take();
    out.push(allocation === undefined ? '-' : formatAddress(allocation.address));
  }
  return out;
}

describe('SequentialCursor', () => {
  it('hands out the lowest free address, range by range, skipping used, reserved and named ones', () => {
    const { ranges } = buildRanges(
      spec([
        { start: '10.0.0.1', end: '10.0.0.5' },
        { start: '10.0.1.1', end: '10.0.1.2' },
      ]),
    );
    const b = book();
    b.take(parseAddress('10.0.0.2') as Address);
    b.reserve(parseAddress('10.0.0.3') as Address, 'someone');
    b.takeName('p-10-0-0-4');
    expect(take(new SequentialCursor(ranges, b), 5)).toEqual(['10.0.0.1', '10.0.0.5', '10.0.1.1', '10.0.1.2', '-']);
  });

  it('never hands out an address twice across overlapping ranges', () => {
    const { ranges } = buildRanges(
      spec([
        { start: '10.0.0.3', end: '10.0.0.4' },
        { start: '10.0.0.1', end: '10.0.0.5' },
      ]),
    );
    expect(take(new SequentialCursor(ranges, book()), 6)).toEqual(['10.0.0.3', '10.0.0.4', '10.0.0.1', '10.0.0.2', '10.0.0.5', '-']);
  });

  it('allocates from a huge IPv6 range without walking it', () => {
    const { ranges } = buildRanges(spec([{ subnet: '2001:db8::/32' }]));
    expect(take(new SequentialCursor(ranges, book()), 2)).toEqual(['2001:db8::1', '2001:db8::2']);
  });

  it('matches a brute-force first-free scan on random inputs', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), fc.integer({ min: 0, max: 50 }), (used, k) => {
        const { ranges } = buildRanges(spec([{ start: '10.0.0.0', end: '10.0.0.40' }]));
        const b = book();
        for (const u of used) b.take({ family: 4, value: 0x0a000000n + BigInt(u) });
        const got = take(new SequentialCursor(ranges, b), k).filter((a) => a !== '-');
        const free = Array.from({ length: 41 }, (_, i) => i).filter((i) => !used.includes(i));
        expect(got).toEqual(free.slice(0, k).map((i) => `10.0.0.${i}`));
      }),
    );
  });
});

describe('ScatterCursor', () => {
  it('starts where the seed points, wraps around, and fills the range exactly once', () => {
    const { ranges } = buildRanges(spec([{ start: '10.0.0.0', end: '10.0.0.9' }]));
    const cursor = new ScatterCursor(ranges, book());
    const first = cursor.take(0.5);
    expect(first && formatAddress(first.address)).toBe('10.0.0.5');
    const seen = new Set<string>([formatAddress(first?.address ?? { family: 4, value: 0n })]);
    for (let i = 0; i < 9; i++) {
      const next = cursor.take(0.5);
      if (next !== undefined) seen.add(formatAddress(next.address));
    }
    expect(seen.size).toBe(10);
    expect(cursor.take(0.1)).toBeUndefined();
  });
});
