// The one outcome vocabulary of every state handler. A handler only proposes
// an Outcome; its controller's commit.ts turns it into the hook response in one place.
//
//   continue   this state is satisfied: go on to `to` in the same sync (a controller that takes
//              one step per sync, like Metal3Remediation, enters `to` at commit instead)
//   wait       nothing to decide until something changes (a request runs, a watched object moves)
//   done       the object is where it should be
//   transient  something failed that may pass: record it, retry after back-off or a resync
//   permanent  something failed that only a user can fix: record it, retry nothing
//   finalized  deletion is complete: the finalizer can go
//
// Each controller adds its own fields per kind through `Extra` (a BareMetalHost failure, a
// Metal3Machine condition reason, a remediation restart) and its own State and Intent types.

type OutcomeKind = 'continue' | 'wait' | 'done' | 'transient' | 'permanent' | 'finalized';

/** Fields every controller's outcome of that kind carries. */
interface CommonFields<State, Intent> {
  continue: { to: State; reason: string; requests?: readonly Intent[] };
  wait: { reason: string; requests?: readonly Intent[]; resyncAfterSeconds?: number };
  done: { reason: string; resyncAfterSeconds?: number };
  transient: { reason: string; requests?: readonly Intent[]; resyncAfterSeconds?: number };
  permanent: { reason: string };
  finalized: { reason: string };
}

/** A controller's additions, by kind; kinds it leaves out get only the common fields. */
type OutcomeExtras = { [K in OutcomeKind]?: object };

type ExtraOf<Extra extends OutcomeExtras, K extends OutcomeKind> = Extra[K] extends object ? Extra[K] : unknown;

export type Outcome<State, Intent, Extra extends OutcomeExtras = { [K in OutcomeKind]?: never }, Kinds extends OutcomeKind = OutcomeKind> = {
  [K in Kinds]: { kind: K } & CommonFields<State, Intent>[K] & ExtraOf<Extra, K>;
}[Kinds];

/** The outcome of one kind, for handlers and commit functions that take only that kind. */
export type OutcomeOf<O extends { kind: OutcomeKind }, K extends OutcomeKind> = Extract<O, { kind: K }>;

/** Outcomes that end a sync (everything but `continue`), what a commit function receives. */
export type Settled<O extends { kind: OutcomeKind }> = Exclude<O, { kind: 'continue' }>;
