// The state-change listener API: in-process listeners, plus an optional HTTP notifier that POSTs
// each power-on and power-off as JSON (the way sushy-tools' fake driver tells Metal3's fake IPA
// that a machine booted). Notifications go out in order; failures are counted, never thrown.
import { request } from 'undici';
import type { EmulatedSystem } from './system.js';
import type { StateChangeEvent } from './types.js';

export type StateChangeListener = (system: EmulatedSystem, event: StateChangeEvent) => void;

const NOTIFIED: ReadonlySet<StateChangeEvent['type']> = new Set(['power-on', 'power-off']);

export class StateChangeHub {
  private readonly listeners = new Set<StateChangeListener>();
  private queue: Promise<void> = Promise.resolve();
  /** Notifications the HTTP notifier could not deliver. */
  failedNotifications = 0;
  deliveredNotifications = 0;

  constructor(private readonly notifyURL: string | undefined) {}

  /** Registers a listener; the returned function removes it. */
  on(listener: StateChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(system: EmulatedSystem, event: StateChangeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(system, event);
      } catch {
        // A listener's failure must not break the BMC it listens to.
      }
    }
    const url = this.notifyURL;
    if (url !== undefined && NOTIFIED.has(event.type)) {
      this.queue = this.queue.then(async () => this.post(url, event));
    }
  }

  /** Resolves once every notification queued so far was sent (or failed). */
  async flush(): Promise<void> {
    await this.queue;
  }

  private async post(url: string, event: StateChangeEvent): Promise<void> {
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: event.type, ...event }),
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      });
      await response.body.dump();
      if (response.statusCode >= 300) {
        this.failedNotifications += 1;
        return;
      }
      this.deliveredNotifications += 1;
    } catch {
      this.failedNotifications += 1;
    }
  }
}
