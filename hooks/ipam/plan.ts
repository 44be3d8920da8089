// One pool sync as a pure computation: rebuild which claim holds which address from what was
// observed, then give addresses to the claims still waiting.
//
// Memory, strongest first: the IPAddress children Metacontroller reports (objects that exist),
// then the pool's own `status.indexes` (what the last sync committed), then the address a claim
// already reports in its status. An address held by any of them is never handed to another claim
// and never moved; an address whose object still exists is not reused until the object is gone.
import { addressFromName, addressKey, ipAddressName, parseAddress, parseGoAddress, type Address } from '../../domain/ipam/address.js';
import { AddressBook, ScatterCursor, SequentialCursor, type Allocation } from '../../domain/ipam/allocator.js';
import { findRange, type AddressRange } from '../../domain/ipam/ranges.js';
import { ClaimError, Kind, type AllocationStrategy } from '../../domain/ipam/types.js';
import { unitInterval } from '../../domain/naming.js';
import { claimKey, compareClaims, keyOf, type PoolClaim } from './claims.js';
import type { ObservedAddress } from './observed.js';
import { compareCandidates, type Candidate } from './preference.js';
import { compareText } from '../kit/index.js';

export interface PlanInput {
  readonly poolUid: string;
  readonly namePrefix: string;
  readonly strategy: AllocationStrategy;
  readonly ranges: readonly AddressRange[];
  readonly preAllocations: ReadonlyMap<string, Address>;
  readonly claims: readonly PoolClaim[];
  readonly observed: readonly ObservedAddress[];
  readonly statusIndexes: Readonly<Record<string, string>>;
  /** IPAddress names other pools with the same namePrefix use. */
  readonly foreignNames: readonly string[];
  /** When set, nothing new is allocated and every waiting claim gets this message. */
  readonly holdMessage?: string;
}

export interface Hold {
  readonly claim: PoolClaim;
  readonly address: Address;
  /** The existing object, when there is one. */
  readonly observed?: ObservedAddress;
  /** The first range holding the address; undefined when spec.pools no longer covers it. */
  readonly range?: AddressRange;
}

export interface ClaimFailure {
  readonly claim: PoolClaim;
  readonly message: string;
  /** Exhaustion or a pool-wide hold message: the same text for many claims. */
  readonly generic: boolean;
}

export interface Plan {
  /** Sorted by claim kind and name. */
  readonly holds: readonly Hold[];
  /** Claims left without an address, in allocation order. */
  readonly failures: readonly ClaimFailure[];
  /** Observed children that are not kept (released, duplicates): Metacontroller deletes them. */
  readonly released: readonly ObservedAddress[];
  /** Held or pre-allocated addresses inside spec.pools (released objects count as free). */
  readonly usedInRanges: number;
}

/** A claim whose address must stay: alive, or deleting but still held by someone else's finalizer. */
function keepsAddress(claim: PoolClaim): boolean {
  return !claim.releasable || claim.frozen;
}

class Memory {
  readonly holds = new Map<string, Hold>();
  readonly released: ObservedAddress[] = [];

  constructor(
    private readonly input: PlanInput,
    private readonly book: AddressBook,
    private readonly claims: ReadonlyMap<string, PoolClaim>,
  ) {}

  fromChildren(): void {
    for (const observed of this.byPreference()) {
      const key = claimKey(observed.kind, observed.claimName);
      const claim = this.claims.get(key);
      const keep = claim !== undefined && keepsAddress(claim) && !this.holds.has(key) && !this.book.isUsed(observed.address);
      // Kept or not, the object exists until Metacontroller deletes it: its address and name stay taken.
      this.book.take(observed.address);
      this.book.takeName(observed.objectName);
      if (keep) this.hold(claim, observed.address, observed);
      else this.released.push(observed);
    }
  }

  /**
   * Observed children in the order that decides between two objects for one claim or one address.
   * Only contested objects need ranking; the others cannot conflict, so their order is irrelevant.
   */
  private byPreference(): ObservedAddress[] {
    const perClaim = new Map<string, number>();
    const perAddress = new Map<bigint, number>();
    for (const observed of this.input.observed) {
      const key = claimKey(observed.kind, observed.claimName);
      perClaim.set(key, (perClaim.get(key) ?? 0) + 1);
      perAddress.set(addressKey(observed.address), (perAddress.get(addressKey(observed.address)) ?? 0) + 1);
    }
    const contested = (observed: ObservedAddress): boolean =>
      (perClaim.get(claimKey(observed.kind, observed.claimName)) ?? 0) > 1 || (perAddress.get(addressKey(observed.address)) ?? 0) > 1;
    const ranked = this.input.observed.filter(contested).map((observed) => ({ observed, rank: this.candidate(observed) }));
    ranked.sort((a, b) => compareCandidates(a.rank, b.rank));
    return [...this.input.observed.filter((observed) => !contested(observed)), ...ranked.map((entry) => entry.observed)];
  }

  private candidate(observed: ObservedAddress): Candidate {
    const claim = this.claims.get(claimKey(observed.kind, observed.claimName));
    const committed = parseAddress(this.input.statusIndexes[observed.claimName] ?? '');
    return {
      created: observed.created,
      id: `${observed.kind}/${observed.objectName}`,
      reported: claim?.reportedName === observed.objectName,
      committed: committed !== undefined && committed.family === observed.address.family && committed.value === observed.address.value,
    };
  }

  fromStatus(): void {
    for (const name of Object.keys(this.input.statusIndexes).sort()) {
      const claim = this.claims.get(claimKey(Kind.IPClaim, name)) ?? this.claims.get(claimKey(Kind.IPAddressClaim, name));
      const address = parseAddress(this.input.statusIndexes[name] ?? '');
      if (claim === undefined || address === undefined) continue;
      this.restore(claim, address, false);
    }
  }

  fromReported(): void {
    for (const claim of this.claims.values()) {
      if (claim.reportedName === undefined) continue;
      const address = addressFromName(this.input.namePrefix, claim.reportedName);
      if (address !== undefined) this.restore(claim, address, true);
    }
  }

  private restore(claim: PoolClaim, address: Address, mustBeInRange: boolean): void {
    if (this.holds.has(keyOf(claim)) || !keepsAddress(claim)) return;
    if (mustBeInRange && findRange(this.input.ranges, address) === undefined) return;
    if (!this.book.isFreeFor(address, claim.name)) return;
    this.book.take(address);
    this.hold(claim, address, undefined);
  }

  private hold(claim: PoolClaim, address: Address, observed: ObservedAddress | undefined): void {
    const range = findRange(this.input.ranges, address);
    this.holds.set(keyOf(claim), { claim, address, ...(observed && { observed }), ...(range && { range }) });
  }
}

type Target = { address: Address; preAllocated: boolean } | { error: string } | undefined;

function targetOf(claim: PoolClaim, preAllocations: ReadonlyMap<string, Address>): Target {
  const pre = preAllocations.get(claim.name);
  if (claim.requested === undefined) return pre && { address: pre, preAllocated: true };
  const requested = parseGoAddress(claim.requested);
  // Upstream compares the two first, so an unparsable request next to a pre-allocation conflicts.
  if (pre !== undefined && (requested === undefined || pre.family !== requested.family || pre.value !== requested.value)) {
    return { error: ClaimError.Conflicting };
  }
  if (requested === undefined) return { error: ClaimError.InvalidRequested };
  return { address: requested, preAllocated: pre !== undefined };
}

class Allocator {
  readonly failures: ClaimFailure[] = [];
  private readonly sequential: SequentialCursor;
  private readonly scatter: ScatterCursor;

  constructor(
    private readonly input: PlanInput,
    private readonly book: AddressBook,
    private readonly memory: Memory,
  ) {
    this.sequential = new SequentialCursor(input.ranges, book);
    this.scatter = new ScatterCursor(input.ranges, book);
  }

  run(waiting: readonly PoolClaim[]): void {
    const holdMessage = this.input.holdMessage;
    if (holdMessage !== undefined) {
      for (const claim of waiting) this.failures.push({ claim, message: holdMessage, generic: true });
      return;
    }
    // Claims that ask for one address go first, so a first-free claim never takes it from them.
    const targeted = waiting.filter((claim) => targetOf(claim, this.input.preAllocations) !== undefined);
    const rest = waiting.filter((claim) => targetOf(claim, this.input.preAllocations) === undefined);
    for (const claim of targeted) this.specific(claim);
    for (const claim of rest) this.firstFree(claim);
  }

  private specific(claim: PoolClaim): void {
    const target = targetOf(claim, this.input.preAllocations);
    if (target === undefined) return;
    if ('error' in target) {
      this.failures.push({ claim, message: target.error, generic: false });
      return;
    }
    const range = findRange(this.input.ranges, target.address);
    if (range === undefined) {
      const message = target.preAllocated ? ClaimError.PreAllocationOutOfBounds : ClaimError.RequestedNotAvailable;
      this.failures.push({ claim, message, generic: false });
    } else if (!this.book.isFreeFor(target.address, claim.name)) {
      const message = target.preAllocated ? ClaimError.PreAllocationInUse : ClaimError.RequestedNotAvailable;
      this.failures.push({ claim, message, generic: false });
    } else {
      this.book.take(target.address);
      this.grant(claim, { address: target.address, range });
    }
  }

  private firstFree(claim: PoolClaim): void {
    const allocation =
      this.input.strategy === 'random' ? this.scatter.take(unitInterval(`${this.input.poolUid}/${claim.kind}/${claim.name}`)) : this.sequential.take();
    if (allocation === undefined) this.failures.push({ claim, message: ClaimError.Exhausted, generic: true });
    else this.grant(claim, allocation);
  }

  private grant(claim: PoolClaim, allocation: Allocation): void {
    this.memory.holds.set(keyOf(claim), { claim, address: allocation.address, range: allocation.range });
  }
}

function countInside(input: PlanInput, holds: Iterable<Hold>): number {
  const keys = new Set<bigint>();
  const addresses = [...[...holds].map((hold) => hold.address), ...input.preAllocations.values()];
  for (const address of addresses) if (findRange(input.ranges, address) !== undefined) keys.add(addressKey(address));
  return keys.size;
}

/** The allocation for one pool sync. Deterministic: same input, same plan. */
export function planPool(input: PlanInput): Plan {
  const book = new AddressBook((address) => ipAddressName(input.namePrefix, address));
  for (const name of input.foreignNames) book.takeName(name);
  for (const [claimName, address] of input.preAllocations) book.reserve(address, claimName);
  const claims = new Map(input.claims.map((claim) => [keyOf(claim), claim]));
  const memory = new Memory(input, book, claims);
  memory.fromChildren();
  memory.fromStatus();
  memory.fromReported();
  const waiting = [...claims.values()].filter((claim) => !memory.holds.has(keyOf(claim)) && !claim.deleting && !claim.frozen).sort(compareClaims);
  const allocator = new Allocator(input, book, memory);
  allocator.run(waiting);
  return {
    holds: [...memory.holds.entries()].sort((a, b) => compareText(a[0], b[0])).map((entry) => entry[1]),
    failures: allocator.failures,
    released: memory.released,
    usedInRanges: countInside(input, memory.holds.values()),
  };
}
