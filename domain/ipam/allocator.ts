// The address book of one pool sync and the cursors that hand out free addresses.
//
// Cost model: within one sync the free set only shrinks (releases are decided before anything is
// allocated), so "the first free address" never moves backwards. Each range keeps a cursor that
// only advances; every used address is stepped over at most once per range, so allocating k
// addresses in a pool with n used ones costs O(n + k) per range, never O(k·n), and nothing ever
// walks the free part of a range (a /64 costs what a /24 costs).
import { addressKey, type Address } from './address.js';
import { rangeSize, type AddressRange } from './ranges.js';

export interface Allocation {
  readonly address: Address;
  readonly range: AddressRange;
}

/** Used addresses, the names of IPAddress objects that exist or are promised, and reservations. */
export class AddressBook {
  private readonly used = new Set<bigint>();
  private readonly names = new Set<string>();
  private readonly reserved = new Map<bigint, string>();

  constructor(private readonly nameOf: (address: Address) => string) {}

  /** Marks an address (and its IPAddress name) as taken. */
  take(address: Address): void {
    this.used.add(addressKey(address));
    this.names.add(this.nameOf(address));
  }

  /** An object name that exists elsewhere (another pool with the same namePrefix). */
  takeName(name: string): void {
    this.names.add(name);
  }

  /** Keeps an address for one claim name (spec.preAllocations); the first reservation wins. */
  reserve(address: Address, claimName: string): void {
    const key = addressKey(address);
    if (!this.reserved.has(key)) this.reserved.set(key, claimName);
  }

  isUsed(address: Address): boolean {
    return this.used.has(addressKey(address));
  }

  reservedFor(address: Address): string | undefined {
    return this.reserved.get(addressKey(address));
  }

  /** Free for this claim: not used, not reserved for someone else, and its object name is free. */
  isFreeFor(address: Address, claimName: string | undefined): boolean {
    return this.nameIfFree(addressKey(address), address, claimName) !== undefined;
  }

  /** Takes the address when it is free for the claim (one key and one name computed); false otherwise. */
  takeIfFree(address: Address, claimName: string | undefined): boolean {
    const key = addressKey(address);
    const name = this.nameIfFree(key, address, claimName);
    if (name === undefined) return false;
    this.used.add(key);
    this.names.add(name);
    return true;
  }

  private nameIfFree(key: bigint, address: Address, claimName: string | undefined): string | undefined {
    if (this.used.has(key)) return undefined;
    const owner = this.reserved.get(key);
    if (owner !== undefined && owner !== claimName) return undefined;
    const name = this.nameOf(address);
    return this.names.has(name) ? undefined : name;
  }
}

/** Hands out the lowest free address, ranges strictly in `spec.pools` order. */
export class SequentialCursor {
  private readonly next: bigint[];
  private current = 0;

  constructor(
    private readonly ranges: readonly AddressRange[],
    private readonly book: AddressBook,
  ) {
    this.next = ranges.map((range) => range.first);
  }

  take(): Allocation | undefined {
    while (this.current < this.ranges.length) {
      const found = this.scan(this.current);
      if (found !== undefined) return found;
      this.current++;
    }
    return undefined;
  }

  private scan(index: number): Allocation | undefined {
    const range = this.ranges[index];
    if (range === undefined) return undefined;
    let value = this.next[index] ?? range.last + 1n;
    while (value <= range.last) {
      const address: Address = { family: range.family, value };
      value++;
      if (this.book.takeIfFree(address, undefined)) {
        this.next[index] = value;
        return { address, range };
      }
    }
    this.next[index] = value;
    return undefined;
  }
}

const SEED_BITS = 53n;

/**
 * Upstream's `random` strategy without randomness: the start offset inside a range comes from a
 * seed in [0, 1) that the caller derives from a hash of the pool and claim, then the scan wraps
 * around. Ranges are still consumed strictly in order; a range found full is never scanned again.
 */
export class ScatterCursor {
  private readonly full: boolean[];

  constructor(
    private readonly ranges: readonly AddressRange[],
    private readonly book: AddressBook,
  ) {
    this.full = ranges.map(() => false);
  }

  take(seed: number): Allocation | undefined {
    for (let index = 0; index < this.ranges.length; index++) {
      const range = this.ranges[index];
      if (range === undefined || this.full[index] === true) continue;
      const found = this.probe(range, seed);
      if (found !== undefined) return found;
      this.full[index] = true;
    }
    return undefined;
  }

  private probe(range: AddressRange, seed: number): Allocation | undefined {
    const size = rangeSize(range);
    const offset = (BigInt(Math.floor(seed * 2 ** 53)) * size) >> SEED_BITS;
    for (let step = 0n; step < size; step++) {
      const value = range.first + ((offset + step) % size);
      const address: Address = { family: range.family, value };
      if (this.book.takeIfFree(address, undefined)) return { address, range };
    }
    return undefined;
  }
}
