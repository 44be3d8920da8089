// IPAM allocation: ip-address-manager v1.13.2's IPPoolManager (UpdateAddresses on a fake client)
// against Ironhook's IPPool hook request path, for random pools and random claim sequences. Each
// step's snapshot holds every claim's address (with prefix, gateway and DNS servers) or error,
// and the pool's status.indexes.
import { beforeAll, describe, expect, it } from 'vitest';

import { ClaimError, type IPPoolSpec } from '../../domain/ipam/types.js';
import { ipamCase } from './ipam-cases.js';
import { normalSnapshots, runIronhook, type IPAMCase, type Outcome, type Snapshot } from './ipam-ironhook.js';
import { askOracle, expectIdentical, runSweep, verdictOf, type OracleAnswer, type Verdict } from './oracle.js';

function ours(c: IPAMCase): Verdict {
  return { accepted: true, value: normalSnapshots(runIronhook(c)) };
}

function theirs(answer: OracleAnswer): Verdict {
  const verdict = verdictOf(answer);
  return verdict.accepted ? { accepted: true, value: normalSnapshots(verdict.value as Snapshot[]) } : verdict;
}

/** The `ipAddress` annotation of the claim `key` (`Kind/name`) as created last before step `upTo`. */
function annotationOf(c: IPAMCase, key: string, upTo: number): string | undefined {
  let found: string | undefined;
  c.steps.slice(0, upTo + 1).forEach((step) => {
    if (!('create' in step)) return;
    for (const claim of step.create) if (`${claim.kind ?? 'IPClaim'}/${claim.name}` === key) found = claim.ipAddress;
  });
  return found;
}

const SAYS_WHY = new Set<string>([ClaimError.RequestedNotAvailable, ClaimError.InvalidRequested]);

/** The pool spec in force at step `upTo` (the initial one, or the last update before it). */
function specAt(c: IPAMCase, upTo: number): IPPoolSpec {
  let spec = c.pool;
  for (const step of c.steps.slice(0, upTo + 1)) if ('updatePool' in step) spec = step.updatePool;
  return spec;
}

interface ClaimContext {
  readonly annotated: boolean;
  readonly preAllocated: boolean;
}

/**
 * Outcomes compared, with two documented deviations: "requested address outside the pool or not
 * an address" (upstream: `Exhausted IP Pools`, reason PoolExhausted; Ironhook says which, reason
 * AllocationFailed) and "pre-allocated address held by another claim" (upstream: no outcome, its
 * IPAddress create fails with AlreadyExists for ever; Ironhook: `Pre-allocated IP is in use by
 * another claim`).
 */
function sameOutcome(o: Outcome, t: Outcome, claim: ClaimContext): boolean {
  if (JSON.stringify(o) === JSON.stringify(t)) return true;
  if (claim.annotated && t.error === ClaimError.Exhausted && o.error !== undefined && SAYS_WHY.has(o.error)) return true;
  return claim.preAllocated && t.pending === true && o.error === ClaimError.PreAllocationInUse;
}

function contextOf(c: IPAMCase, key: string, step: number): ClaimContext {
  const name = key.slice(key.indexOf('/') + 1);
  return { annotated: annotationOf(c, key, step) !== undefined, preAllocated: specAt(c, step).preAllocations?.[name] !== undefined };
}

function same(o: Verdict, t: Verdict, c: IPAMCase): boolean {
  if (!o.accepted || !t.accepted) return false;
  const mine = o.value as Snapshot[];
  const upstream = t.value as Snapshot[];
  if (mine.length !== upstream.length) return false;
  return mine.every((snap, step) => {
    const theirsSnap = upstream[step]!;
    if (JSON.stringify(snap.indexes) !== JSON.stringify(theirsSnap.indexes)) return false;
    const keys = Object.keys(snap.claims);
    if (JSON.stringify(keys) !== JSON.stringify(Object.keys(theirsSnap.claims))) return false;
    return keys.every((key) => sameOutcome(snap.claims[key]!, theirsSnap.claims[key]!, contextOf(c, key, step)));
  });
}

describe('differential: IPAM allocation (ip-address-manager v1.13.2 IPPoolManager)', () => {
  it('gives random claim sequences in random pools the addresses and errors upstream gives', () => {
    expectIdentical(runSweep({ area: 'ipam', arbitrary: ipamCase, defaultCases: 500, ours, theirs, same }));
  });
});

// Each deviation: the same case through both sides, with upstream's answer and Ironhook's pinned.
// docs/compatibility.md says why each one is deliberate.
const V4: IPPoolSpec = { namePrefix: 'pool1', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] };
const at = (address: string, name = `pool1-${address.replaceAll('.', '-').replaceAll(':', '-')}`): Outcome => ({ name, address, prefix: 0 });

const PINS = {
  outside: { pool: V4, steps: [{ create: [{ name: 'c0', ipAddress: '10.0.0.9' }] }, { create: [{ name: 'c1', ipAddress: 'ten' }] }] },
  sticky: {
    pool: { namePrefix: 'pool1', pools: [{ start: '10.0.0.1', end: '10.0.0.1' }] },
    keepFailed: true,
    steps: [{ create: [{ name: 'c0' }] }, { create: [{ name: 'c1' }] }, { delete: 'c0' }],
  },
  nonCanonical: {
    pool: { namePrefix: 'pool1', pools: [{ start: '2001:db8::1', end: '2001:db8::3' }], preAllocations: { c1: '2001:DB8:0::1' } },
    steps: [{ create: [{ name: 'c0' }] }, { create: [{ name: 'c1' }] }],
  },
  samePreAllocation: {
    pool: { ...V4, preAllocations: { c0: '10.0.0.2', c1: '10.0.0.2' } },
    steps: [{ create: [{ name: 'c1' }] }, { create: [{ name: 'c0' }] }],
  },
  annotatedLater: { pool: V4, steps: [{ create: [{ name: 'c0' }, { name: 'c1', ipAddress: '10.0.0.1' }] }] },
  subnetEnd: {
    pool: { namePrefix: 'pool1', pools: [{ subnet: '10.0.0.0/29', end: '10.0.0.2' }] },
    steps: [{ create: [{ name: 'c0' }, { name: 'c1' }, { name: 'c2' }] }],
  },
  mixedFamilies: { pool: { namePrefix: 'pool1', pools: [{ start: '255.255.255.254', end: '2001:db8::1' }] }, steps: [{ create: [{ name: 'c0' }] }] },
  mappedRange: { pool: { namePrefix: 'pool1', pools: [{ start: '::ffff:a00:1', end: '::ffff:a00:2' }] }, steps: [{ create: [{ name: 'c0' }] }] },
  intoMappedBlock: { pool: { namePrefix: 'pool1', pools: [{ start: '::fffe:ffff:ffff' }] }, steps: [{ create: [{ name: 'c0' }, { name: 'c1' }] }] },
  sharedName: { pool: V4, steps: [{ create: [{ name: 'c0', kind: 'IPAddressClaim' }] }, { create: [{ name: 'c0' }] }] },
  nameCollision: {
    pool: {
      namePrefix: 'pool1',
      pools: [
        { start: '10:0:0:1::', end: '10:0:0:1::' },
        { start: '10.0.0.1', end: '10.0.0.2' },
      ],
    },
    steps: [{ create: [{ name: 'c0' }] }, { create: [{ name: 'c1' }] }],
  },
  kindsInOneBatch: { pool: V4, steps: [{ create: [{ name: 'k1' }, { name: 'k0', kind: 'IPAddressClaim' }] }] },
  poolDeleting: {
    pool: { ...V4, preAllocations: { c9: '10.0.0.2' } },
    steps: [{ create: [{ name: 'c0' }] }, { deletePool: true }, { create: [{ name: 'c1' }, { name: 'c2' }] }],
  },
  negativePrefix: {
    pool: { namePrefix: 'pool1', prefix: -1, pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] },
    steps: [{ create: [{ name: 'c0' }] }, { create: [{ name: 'k0', kind: 'IPAddressClaim' }] }],
  },
  randomStrategy: {
    pool: { namePrefix: 'pool1', allocationStrategy: 'random', pools: [{ start: '10.0.0.1', end: '10.0.0.40' }] },
    steps: [{ create: [{ name: 'c0' }] }],
  },
} satisfies Record<string, IPAMCase>;

type Pin = keyof typeof PINS;
const both = new Map<Pin, { upstream: Snapshot[]; ironhook: Snapshot[] }>();

describe('documented deviations (docs/compatibility.md)', () => {
  beforeAll(() => {
    const names = Object.keys(PINS) as Pin[];
    const answers = askOracle(
      'ipam',
      names.map((name) => PINS[name]),
    );
    names.forEach((name, i) => {
      const verdict = theirs(answers[i]!);
      if (!verdict.accepted) throw new Error(`${name}: ${verdict.error}`);
      both.set(name, { upstream: verdict.value as Snapshot[], ironhook: normalSnapshots(runIronhook(PINS[name])) });
    });
  });
  const claimAt = (pin: Pin, step: number, key: string): { upstream?: Outcome; ironhook?: Outcome } => {
    const r = both.get(pin)!;
    return { upstream: r.upstream[step]!.claims[key], ironhook: r.ironhook[step]!.claims[key] };
  };

  it('a requested address outside the pool or not an address: upstream says the pool is exhausted, Ironhook says which', () => {
    expect(claimAt('outside', 0, 'IPClaim/c0')).toEqual({ upstream: { error: 'Exhausted IP Pools' }, ironhook: { error: 'Requested IP not available' } });
    expect(claimAt('outside', 1, 'IPClaim/c1')).toEqual({
      upstream: { error: 'Exhausted IP Pools' },
      ironhook: { error: 'Requested IP address is not a valid IP address' },
    });
  });

  it('a failed claim stays failed upstream; Ironhook gives it the address released later', () => {
    expect(claimAt('sticky', 1, 'IPClaim/c1')).toEqual({ upstream: { error: 'Exhausted IP Pools' }, ironhook: { error: 'Exhausted IP Pools' } });
    expect(claimAt('sticky', 2, 'IPClaim/c1')).toEqual({ upstream: { error: 'Exhausted IP Pools' }, ironhook: at('10.0.0.1') });
  });

  it('a pre-allocation in non-canonical IPv6 text: upstream lets another claim take it and the owner waits for ever; Ironhook reserves it', () => {
    expect(claimAt('nonCanonical', 1, 'IPClaim/c0')).toEqual({ upstream: at('2001:db8::1'), ironhook: at('2001:db8::2') });
    expect(claimAt('nonCanonical', 1, 'IPClaim/c1')).toEqual({ upstream: { pending: true }, ironhook: at('2001:db8::1') });
  });

  it('one address pre-allocated to two claims: upstream gives it to the first created, the other waits for ever; Ironhook to the first name', () => {
    expect(claimAt('samePreAllocation', 0, 'IPClaim/c1')).toEqual({
      upstream: at('10.0.0.2'),
      ironhook: { error: 'Pre-allocated IP is in use by another claim' },
    });
    expect(claimAt('samePreAllocation', 1, 'IPClaim/c0')).toEqual({ upstream: { pending: true }, ironhook: at('10.0.0.2') });
  });

  it('a first-free claim and a claim asking for that address in one reconcile: upstream serves names in order, Ironhook the asking claim first', () => {
    expect(claimAt('annotatedLater', 0, 'IPClaim/c0')).toEqual({ upstream: at('10.0.0.1'), ironhook: at('10.0.0.2') });
    expect(claimAt('annotatedLater', 0, 'IPClaim/c1')).toEqual({ upstream: { error: 'Requested IP not available' }, ironhook: at('10.0.0.1') });
  });

  it('a subnet with an end but no start: upstream ignores the end, Ironhook stops there', () => {
    expect(claimAt('subnetEnd', 0, 'IPClaim/c2')).toEqual({ upstream: at('10.0.0.3'), ironhook: { error: 'Exhausted IP Pools' } });
  });

  it('ranges mixing IPv4 and IPv6, or written as IPv4-mapped IPv6 (rejected by Ironhook’s schema): upstream allocates, the hook does not', () => {
    expect(claimAt('mixedFamilies', 0, 'IPClaim/c0')).toEqual({ upstream: at('255.255.255.254'), ironhook: { error: 'Exhausted IP Pools' } });
    expect(claimAt('mappedRange', 0, 'IPClaim/c0')).toEqual({ upstream: at('10.0.0.1'), ironhook: at('::ffff:a00:1', 'pool1---ffff-a00-1') });
  });

  it('an IPv6 range running into ::ffff:0:0/96: upstream hands out dotted IPv4 text, Ironhook IPv6', () => {
    expect(claimAt('intoMappedBlock', 0, 'IPClaim/c1')).toEqual({ upstream: at('0.0.0.0'), ironhook: at('::ffff:0:0', 'pool1---ffff-0-0') });
  });

  it('an IPClaim named like an IPAddressClaim that holds an address: upstream points it at the other’s IPAddress, Ironhook refuses it', () => {
    expect(claimAt('sharedName', 1, 'IPAddressClaim/c0')).toEqual({
      upstream: { address: '10.0.0.1', prefix: 0 },
      ironhook: { address: '10.0.0.1', prefix: 0 },
    });
    expect(claimAt('sharedName', 1, 'IPClaim/c0')).toEqual({
      upstream: { pending: true },
      ironhook: { error: 'An IPAddressClaim with the same name already uses this pool' },
    });
  });

  it('two addresses whose IPAddress names collide (10:0:0:1:: and 10.0.0.1): upstream retries the create for ever, Ironhook skips the address', () => {
    expect(claimAt('nameCollision', 1, 'IPClaim/c1')).toEqual({ upstream: { pending: true }, ironhook: at('10.0.0.2') });
  });

  it('both claim kinds in one reconcile: upstream serves IPClaims first, Ironhook by creation time and name', () => {
    expect(claimAt('kindsInOneBatch', 0, 'IPAddressClaim/k0')).toEqual({
      upstream: { address: '10.0.0.2', prefix: 0 },
      ironhook: { address: '10.0.0.1', prefix: 0 },
    });
  });

  it('a pool being deleted: upstream still allocates (and stops reserving pre-allocations), Ironhook refuses new claims', () => {
    expect(claimAt('poolDeleting', 2, 'IPClaim/c1')).toEqual({ upstream: at('10.0.0.2'), ironhook: { error: 'IPPool pool1 is being deleted' } });
  });

  it('a negative prefix (rejected by Ironhook’s schema): upstream copies it to IPAddresses and refuses IPAddressClaims, the hook copies it', () => {
    expect(claimAt('negativePrefix', 1, 'IPClaim/c0')).toEqual({ upstream: { ...at('10.0.0.1'), prefix: -1 }, ironhook: { ...at('10.0.0.1'), prefix: -1 } });
    expect(claimAt('negativePrefix', 1, 'IPAddressClaim/k0')).toEqual({
      upstream: { error: 'Invalid prefix value, it must be between 0 and 128', reason: 'AllocationFailed' },
      ironhook: { address: '10.0.0.2', prefix: -1 },
    });
  });

  it('allocationStrategy random (Ironhook’s addition): upstream v1.13.2 ignores the field', () => {
    expect(claimAt('randomStrategy', 0, 'IPClaim/c0')).toEqual({ upstream: at('10.0.0.1'), ironhook: at('10.0.0.28') });
  });
});
