// Index allocation of a Metal3DataTemplate: every claim gets the lowest
// non-negative index no Metal3Data uses, and keeps it for as long as the claim lives. The
// template's observed Metal3Data children are the memory; the committed status.indexes covers
// children Metacontroller's cache does not show yet.
import type { IndexEntry } from './types.js';
import { compareText } from '../metacontroller.js';

export interface ClaimInfo {
  name: string;
  uid?: string;
  created: string;
  deleting: boolean;
  /** The claim's Metal3Machine, host and Machine are known, so its data can be created. */
  ready: boolean;
}

export interface DataInfo {
  name: string;
  index: number;
  claimName: string;
  /** UID of the claim in the data's owner references, when recorded. */
  claimUid?: string;
  created: string;
  deleting: boolean;
}

export interface Assignment {
  claim: string;
  index: number;
  /** The observed Metal3Data, when it exists. */
  data?: DataInfo;
}

export interface IndexPlan {
  /** One per claim that keeps or gets data, sorted by index. */
  assignments: Assignment[];
}

function servesClaim(data: DataInfo, claim: ClaimInfo | undefined): claim is ClaimInfo {
  if (claim === undefined || claim.deleting) return false;
  return data.claimUid === undefined || claim.uid === undefined || data.claimUid === claim.uid;
}

/**
 * Of several data for one claim (possible only after cache lag) keep the committed one, else one
 * not being deleted, else the oldest, else the lowest index. A data being deleted while its claim
 * lives is still the claim's: its finalizer holds it, as upstream's does (#1356).
 */
function better(a: DataInfo, b: DataInfo, committed: number | undefined): DataInfo {
  if ((a.index === committed) !== (b.index === committed)) return a.index === committed ? a : b;
  if (a.deleting !== b.deleting) return a.deleting ? b : a;
  const byAge = compareText(a.created, b.created);
  if (byAge !== 0) return byAge < 0 ? a : b;
  return a.index <= b.index ? a : b;
}

function keptData(claims: Map<string, ClaimInfo>, datas: readonly DataInfo[], committed: Map<string, number>): Map<string, DataInfo> {
  const kept = new Map<string, DataInfo>();
  for (const data of datas) {
    if (!servesClaim(data, claims.get(data.claimName))) continue;
    const seen = kept.get(data.claimName);
    kept.set(data.claimName, seen === undefined ? data : better(seen, data, committed.get(data.claimName)));
  }
  return kept;
}

function lowestFree(taken: Set<number>, from: number): number {
  let index = from;
  while (taken.has(index)) index++;
  return index;
}

/** New claims first by creation time, then by name. */
function newcomers(claims: readonly ClaimInfo[], assigned: Set<string>): ClaimInfo[] {
  return claims.filter((c) => !c.deleting && c.ready && !assigned.has(c.name)).sort((a, b) => compareText(a.created, b.created) || compareText(a.name, b.name));
}

/**
 * Committed entries whose data the cache does not show yet keep their index, but only for a claim
 * that already existed when the entry was committed (created no later than the committed
 * lastUpdated): a claim deleted and created again under the same name starts afresh.
 */
function reserveCommitted(claims: readonly ClaimInfo[], committed: Committed, taken: Set<number>, assignments: Assignment[]): void {
  const live = new Set(claims.filter((c) => !c.deleting && (committed.lastUpdated === undefined || c.created <= committed.lastUpdated)).map((c) => c.name));
  const assigned = new Set(assignments.map((a) => a.claim));
  for (const entry of [...committed.entries].sort((a, b) => a.index - b.index)) {
    if (!live.has(entry.name) || assigned.has(entry.name) || taken.has(entry.index) || entry.index < 0) continue;
    taken.add(entry.index);
    assigned.add(entry.name);
    assignments.push({ claim: entry.name, index: entry.index });
  }
}

/** What the template's status said: its indexes and the lastUpdated written with them. */
export interface Committed {
  entries: readonly IndexEntry[];
  lastUpdated?: string;
}

export function planIndexes(claims: readonly ClaimInfo[], datas: readonly DataInfo[], committed: Committed = { entries: [] }): IndexPlan {
  const byName = new Map(claims.map((c) => [c.name, c]));
  const committedByClaim = new Map(committed.entries.map((e) => [e.name, e.index]));
  const kept = keptData(byName, datas, committedByClaim);
  const taken = new Set(datas.map((d) => d.index));
  const assignments: Assignment[] = [...kept.values()].map((data) => ({ claim: data.claimName, index: data.index, data }));
  reserveCommitted(claims, committed, taken, assignments);
  let next = 0;
  for (const claim of newcomers(claims, new Set(assignments.map((a) => a.claim)))) {
    next = lowestFree(taken, next);
    taken.add(next);
    assignments.push({ claim: claim.name, index: next });
  }
  return { assignments: assignments.sort((a, b) => a.index - b.index) };
}

export function indexEntries(plan: IndexPlan): IndexEntry[] {
  return plan.assignments.map((a) => ({ index: a.index, name: a.claim }));
}
