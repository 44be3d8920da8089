// Power commands a cancelled request left in flight. A BMC accepts "On" and keeps reporting Off
// for seconds; if the request that sent it is cancelled (its HostOperation deleted because the
// host is being deleted) the next request would read Off, send nothing, and the host would come
// on behind it. Ironic avoids this by holding the node lock until the state settles. The pool
// remembers the command per host instead, and the next power step first waits (bounded by the
// same settle timeout) for it to land before it reads the state and decides.
import type { PowerState } from '../../bmc/types.js';
import type { Clock } from '../clock.js';

interface Pending {
  target: PowerState;
  /** Clock time after which the command is no longer waited for. */
  until: number;
}

export class PowerTransitions {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: Clock) {}

  /** A command to reach `target` was sent for `host`; it lands within `timeoutMs` or not at all. */
  sent(host: string, target: PowerState, timeoutMs: number): void {
    this.pending.set(host, { target, until: this.clock.now() + timeoutMs });
  }

  /** The host's state was seen settled (at the target, or read before any new command). */
  settled(host: string): void {
    this.pending.delete(host);
  }

  /** The command still in flight for `host`, with the time left to wait for it. */
  inFlight(host: string): { target: PowerState; remainingMs: number } | undefined {
    const pending = this.pending.get(host);
    if (pending === undefined) return undefined;
    const remainingMs = pending.until - this.clock.now();
    if (remainingMs <= 0) {
      this.pending.delete(host);
      return undefined;
    }
    return { target: pending.target, remainingMs };
  }
}
