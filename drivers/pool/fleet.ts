// Hosts per provisioning state, from a watch of the BareMetalHosts in the pool's namespaces, for
// the ironhook_hosts* gauges (metrics.ts). Upstream exports no per-state gauge, and an alert on
// a stuck host needs more than a count: how long the oldest host has been in its state.
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import type { WatchEvent } from '../kube/port.js';
import { identityOf } from '../../domain/k8s.js';
import type { KObject } from '../../domain/k8s.js';

interface HostView {
  state: string;
  errorType: string;
  /** When the host entered `state`, in epoch milliseconds. */
  since: number;
}

/** What the gauges show: counts and ages by label value. */
export interface FleetSnapshot {
  hostsByState: Map<string, number>;
  oldestSecondsByState: Map<string, number>;
  errorsByType: Map<string, number>;
}

// The long states whose start upstream's operationHistory records: a pool that starts (or takes
// over the lease) while a host is in one of them dates the state from there, not from its own start.
const OPERATION_OF_STATE: Readonly<Record<string, 'register' | 'inspect' | 'provision' | 'deprovision'>> = {
  registering: 'register',
  inspecting: 'inspect',
  provisioning: 'provision',
  deprovisioning: 'deprovision',
};

/** The label for upstream's empty state (a host no controller has reconciled yet). */
const NO_STATE = 'none';

function stateOf(host: BareMetalHost): string {
  const state = host.status?.provisioning?.state;
  return typeof state === 'string' && state !== '' ? state : NO_STATE;
}

function operationStart(host: BareMetalHost, state: string): number | undefined {
  const operation = OPERATION_OF_STATE[state];
  const entry = operation === undefined ? undefined : host.status?.operationHistory?.[operation];
  // An entry with an end belongs to an earlier pass through the state.
  if (typeof entry?.start !== 'string' || typeof entry.end === 'string') {
    return undefined;
  }
  const start = Date.parse(entry.start);
  return Number.isNaN(start) ? undefined : start;
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** What the fleet reads of a host (its watch keeps only this: pool.ts). */
export function fleetView(object: KObject): KObject {
  const host = object as BareMetalHost;
  const status = host.status;
  return {
    ...identityOf(host),
    status: {
      provisioning: { state: status?.provisioning?.state ?? '' },
      errorType: status?.errorType ?? '',
      operationHistory: status?.operationHistory ?? {},
    },
  };
}

export class HostFleet {
  private readonly hosts = new Map<string, HostView>();

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.hosts.size;
  }

  onEvent(event: WatchEvent): void {
    const host = event.object as BareMetalHost;
    const key = `${host.metadata.namespace ?? ''}/${host.metadata.name ?? ''}`;
    if (event.type === 'deleted') {
      this.hosts.delete(key);
      return;
    }
    const state = stateOf(host);
    const previous = this.hosts.get(key);
    const since = previous?.state === state ? previous.since : (operationStart(host, state) ?? this.now());
    this.hosts.set(key, { state, errorType: host.status?.errorType ?? '', since });
  }

  clear(): void {
    this.hosts.clear();
  }

  snapshot(): FleetSnapshot {
    const now = this.now();
    const snapshot: FleetSnapshot = { hostsByState: new Map(), oldestSecondsByState: new Map(), errorsByType: new Map() };
    for (const host of this.hosts.values()) {
      increment(snapshot.hostsByState, host.state);
      const age = Math.max(0, (now - host.since) / 1000);
      snapshot.oldestSecondsByState.set(host.state, Math.max(age, snapshot.oldestSecondsByState.get(host.state) ?? 0));
      if (host.errorType !== '') {
        increment(snapshot.errorsByType, host.errorType);
      }
    }
    return snapshot;
  }
}
