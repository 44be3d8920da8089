// Which object is a claim's address when cache lag left it two: the pool keeps one and deletes the
// others, and the claim reports one; both sides use this order, so they always pick the same one.
// The object the claim already reports comes first (so no consumer ever sees its address change),
// then the oldest, then the one the pool's status commits, then the name.
import { compareText } from '../kit/index.js';

export interface Candidate {
  readonly created: string;
  /** Group (or kind) and name: unique per object. */
  readonly id: string;
  /** The claim's status already names this object. */
  readonly reported: boolean;
  /** The pool's `status.indexes` gives the claim this object's address. */
  readonly committed: boolean;
}

export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.reported !== b.reported) return a.reported ? -1 : 1;
  const byAge = compareText(a.created, b.created);
  if (byAge !== 0) return byAge;
  if (a.committed !== b.committed) return a.committed ? -1 : 1;
  return compareText(a.id, b.id);
}
