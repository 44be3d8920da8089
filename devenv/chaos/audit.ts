// What the soak asserts after the load: BMC side effects counted from the emulators' own logs
// (Redfish Reset and InsertMedia actions, the fake agent's image writes) and attributed to the
// HostOperation that was running on that host, so a repeated one inside one request shows up;
// the canary password nowhere outside Secrets; nothing left behind by deleted hosts.
import type { RequestRecord } from './observer.js';

export interface TimedAction {
  /** ms since the epoch */
  time: number;
  /** Reset, InsertMedia, EjectMedia, ImageWrite, PowerOnEvent, PowerOffEvent */
  action: string;
  detail: string;
}

interface Duplicate {
  system: string;
  request: string;
  action: string;
  detail: string;
  times: string[];
}

export interface Attribution {
  /** Side effects (Reset, InsertMedia, ImageWrite) attributed to a request. */
  attributed: number;
  /** Side effects no recorded request of the host was running for. */
  unattributed: { system: string; action: string; detail: string; time: string }[];
  duplicates: Duplicate[];
  byAction: Record<string, number>;
}

const ON = new Set(['On', 'ForceOn']);
const OFF = new Set(['ForceOff', 'GracefulShutdown']);

/** Requests of these hosts that started, by start time (second precision, as the pool writes it). */
function started(requests: readonly RequestRecord[]): (RequestRecord & { start: number })[] {
  return requests
    .filter((request) => request.startTime !== undefined)
    .map((request) => ({ ...request, start: Date.parse(request.startTime ?? '') }))
    .sort((a, b) => a.start - b.start || a.sequence - b.sequence);
}

/** The request that had started last when `time` came (start times are cut to the second). */
function owner(requests: readonly (RequestRecord & { start: number })[], time: number): RequestRecord | undefined {
  let found: RequestRecord | undefined;
  for (const request of requests) {
    if (request.start <= time) found = request;
  }
  return found;
}

/**
 * A side effect repeated with nothing in between that undoes it: a Reset of the same type with no
 * power change the other way since, the same image inserted again with no eject since, a second
 * write of the same image (restart-class resets: any second one). Only repetitions inside one
 * request count.
 */
class RepeatTracker {
  private readonly last = new Map<string, { request: string; time: number }>();

  constructor(
    private readonly system: string,
    private readonly duplicates: Duplicate[],
  ) {}

  see(entry: TimedAction, request: string | undefined): void {
    // A Reset On again after the host went off is a new power action, not a repeat (and so on).
    if (entry.action === 'PowerOffEvent') this.forget((key) => key.startsWith('Reset ') && ON.has(key.slice(6)));
    if (entry.action === 'PowerOnEvent') this.forget((key) => key.startsWith('Reset ') && OFF.has(key.slice(6)));
    if (entry.action === 'EjectMedia') this.forget((key) => key.startsWith('InsertMedia'));
    const key = this.keyOf(entry);
    if (key === undefined || request === undefined) return;
    const earlier = this.last.get(key);
    if (earlier?.request === request) {
      const detail = key.split(' ').slice(1).join(' ');
      this.duplicates.push({
        system: this.system,
        request,
        action: entry.action,
        detail,
        times: [earlier.time, entry.time].map((t) => new Date(t).toISOString()),
      });
    }
    this.last.set(key, { request, time: entry.time });
  }

  private keyOf(entry: TimedAction): string | undefined {
    if (entry.action === 'Reset') return ON.has(entry.detail) || OFF.has(entry.detail) ? `Reset ${entry.detail}` : `Restart ${entry.detail}`;
    if (entry.action === 'InsertMedia' || entry.action === 'ImageWrite') return `${entry.action} ${entry.detail}`;
    return undefined;
  }

  private forget(match: (key: string) => boolean): void {
    for (const key of [...this.last.keys()]) if (match(key)) this.last.delete(key);
  }
}

const SIDE_EFFECTS = new Set(['Reset', 'InsertMedia', 'ImageWrite']);

/** Attributes one system's timeline to the requests of the hosts that used it. */
export function attribute(system: string, timeline: readonly TimedAction[], requests: readonly RequestRecord[], into: Attribution): void {
  const ordered = started(requests);
  const tracker = new RepeatTracker(system, into.duplicates);
  for (const entry of [...timeline].sort((a, b) => a.time - b.time)) {
    // Start times are cut to the second: an action in the same second as a start belongs to it.
    const request = owner(ordered, Math.floor(entry.time / 1000) * 1000);
    tracker.see(entry, request?.name);
    if (!SIDE_EFFECTS.has(entry.action)) continue;
    into.byAction[entry.action] = (into.byAction[entry.action] ?? 0) + 1;
    if (request === undefined) into.unattributed.push({ system, action: entry.action, detail: entry.detail, time: new Date(entry.time).toISOString() });
    else into.attributed += 1;
  }
}
