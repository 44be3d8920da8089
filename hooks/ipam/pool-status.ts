// The IPPool status a sync commits: upstream's `indexes` and `lastUpdated`, upstream main's
// capacity counts, a Ready condition (Cluster API IPAM contract) and Ironhook's block with the
// allocated count, per-claim errors (read by the claim controllers) and pool-level problems.
import { formatAddress } from '../../domain/ipam/address.js';
import { newestTimestamp } from '../../domain/ipam/json.js';
import { totalSize, type AddressRange } from '../../domain/ipam/ranges.js';
import { CLAIM_ERROR_LIMIT, ClaimError, Kind, type IPPoolIronhookStatus } from '../../domain/ipam/types.js';
import type { Condition } from '../../domain/k8s.js';
import type { ClaimFailure, Plan } from './plan.js';

export interface PoolStatusInput {
  readonly plan: Plan;
  readonly ranges: readonly AddressRange[];
  /** Pool-level problems (unsorted, may repeat). */
  readonly problems: readonly string[];
  /** The message every unlisted waiting claim reads (pool held, or exhaustion overflow). */
  readonly holdMessage?: string;
  /** Timestamps observed in this request; lastUpdated is the newest of them. */
  readonly timestamps: readonly (string | undefined)[];
  readonly oldConditions: readonly Condition[];
  /** Reason for Ready=False when problems exist. */
  readonly notReadyReason: string;
}

/** JSON numbers are exact up to 2^53 − 1; larger capacities are capped (upstream caps at int64). */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

function indexes(plan: Plan): Record<string, string> {
  const pairs = plan.holds.map((hold): [string, string] => [hold.claim.name, formatAddress(hold.address)]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, string> = {};
  for (const [name, address] of pairs) out[name] = address;
  return out;
}

interface ErrorLists {
  claimErrors: Record<string, string>;
  addressClaimErrors: Record<string, string>;
  unlisted: number;
}

/** Specific errors first, then the generic ones, at most CLAIM_ERROR_LIMIT names in all. */
function errorLists(failures: readonly ClaimFailure[]): ErrorLists {
  const lists: ErrorLists = { claimErrors: {}, addressClaimErrors: {}, unlisted: 0 };
  const ordered = [...failures.filter((f) => !f.generic), ...failures.filter((f) => f.generic)];
  ordered.forEach((failure, index) => {
    if (index >= CLAIM_ERROR_LIMIT) {
      lists.unlisted++;
      return;
    }
    const target = failure.claim.kind === Kind.IPClaim ? lists.claimErrors : lists.addressClaimErrors;
    target[failure.claim.name] = failure.message;
  });
  return lists;
}

function nonEmpty(record: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(record).length === 0 ? undefined : record;
}

function ironhookBlock(input: PoolStatusInput, problems: readonly string[]): IPPoolIronhookStatus {
  const lists = errorLists(input.plan.failures);
  const claimErrors = nonEmpty(lists.claimErrors);
  const addressClaimErrors = nonEmpty(lists.addressClaimErrors);
  return {
    ...(addressClaimErrors && { addressClaimErrors }),
    allocatedIPCount: input.plan.holds.length,
    ...(claimErrors && { claimErrors }),
    ...(problems.length > 0 && { errors: [...problems] }),
    ...(lists.unlisted > 0 && { unlistedClaimErrors: lists.unlisted }),
    ...(lists.unlisted > 0 && { unlistedClaimMessage: input.holdMessage ?? ClaimError.Exhausted }),
  };
}

function capacityFields(input: PoolStatusInput): Record<string, unknown> {
  const size = totalSize(input.ranges);
  if (size > MAX_EXACT) return { capacity: Number.MAX_SAFE_INTEGER, capacityCapped: true };
  const capacity = Number(size);
  return { availableIPCount: Math.max(0, capacity - input.plan.usedInRanges), capacity, capacityCapped: false };
}

function readyCondition(input: PoolStatusInput, problems: readonly string[], lastUpdated: string): Condition {
  const ready = problems.length === 0;
  const old = input.oldConditions.find((condition) => condition.type === 'Ready');
  const status = ready ? 'True' : 'False';
  const since = old?.status === status ? old.lastTransitionTime : lastUpdated;
  return {
    lastTransitionTime: since,
    message: ready ? '' : (problems[0] ?? ''),
    reason: ready ? 'Ready' : input.notReadyReason,
    status,
    type: 'Ready',
  };
}

export function poolStatus(input: PoolStatusInput): Record<string, unknown> {
  const problems = [...new Set(input.problems)].sort();
  const lastUpdated = newestTimestamp(input.timestamps) ?? '1970-01-01T00:00:00Z';
  const index = indexes(input.plan);
  return {
    ...capacityFields(input),
    conditions: [readyCondition(input, problems, lastUpdated)],
    ...(Object.keys(index).length > 0 && { indexes: index }),
    ironhook: ironhookBlock(input, problems),
    lastUpdated,
  };
}
