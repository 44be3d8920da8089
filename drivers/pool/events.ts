// Kubernetes Events on the BareMetalHost with upstream's reasons, and on the objects whose hooks
// asked for Cluster API requests (drivers/cluster/events.ts): core/v1 Events, type Normal like BMO
// (Warning for Ironhook's own warnings), generateName "<Reason>-", reportingComponent
// ironhook.dev/driver-pool. The same (host, reason, message) within the de-duplication window
// bumps the existing Event's count instead of creating another one, so a flapping host does
// not spam "PowerOn" every few seconds. Recording never throws: an Event is not worth failing
// a request for.
import type { Clock } from './clock.js';
import type { KubePort } from '../kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';

const REPORTING_CONTROLLER = 'ironhook.dev/driver-pool';
const SOURCE_COMPONENT = 'ironhook-driver-pool';

type EventType = 'Normal' | 'Warning';

interface EventBody {
  reason: string;
  message: string;
  type: EventType;
}

export interface EventTarget {
  namespace: string;
  name: string;
  uid: string;
  /** The involved object's kind and apiVersion; a BareMetalHost when not given. */
  kind?: string;
  apiVersion?: string;
}

interface Seen {
  name: string;
  count: number;
  firstTimestamp: string;
  last: number;
}

export interface EventRecorderOptions {
  kube: KubePort;
  clock: Clock;
  windowMs: number;
  instance: string;
  logger: Logger;
}

function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly options: EventRecorderOptions) {}

  async record(host: EventTarget, reason: string, message: string, type: EventType = 'Normal'): Promise<void> {
    const now = this.options.clock.now();
    this.prune(now);
    const key = `${host.kind ?? 'BareMetalHost'}/${host.namespace}/${host.name}/${reason}/${message}`;
    const previous = this.seen.get(key);
    try {
      if (previous !== undefined && (await this.bump(host.namespace, previous, now, message))) {
        return;
      }
      const name = await this.create(host, { reason, message, type }, now);
      this.seen.set(key, { name, count: 1, firstTimestamp: timestamp(now), last: now });
    } catch (error) {
      this.options.logger.warn({ namespace: host.namespace, host: host.name, reason, err: errorFields(error) }, 'could not record an event');
    }
  }

  /** Entries remembered for de-duplication (tests). */
  size(): number {
    return this.seen.size;
  }

  private async bump(namespace: string, previous: Seen, now: number, message: string): Promise<boolean> {
    try {
      await this.options.kube.patchEvent(namespace, previous.name, { count: previous.count + 1, lastTimestamp: timestamp(now), message });
      previous.count += 1;
      previous.last = now;
      return true;
    } catch {
      // The Event expired or was deleted: create a fresh one.
      return false;
    }
  }

  private async create(host: EventTarget, { reason, message, type }: EventBody, now: number): Promise<string> {
    const time = timestamp(now);
    return this.options.kube.createEvent(host.namespace, {
      metadata: { generateName: `${reason}-`, namespace: host.namespace },
      involvedObject: {
        apiVersion: host.apiVersion ?? 'metal3.io/v1alpha1',
        kind: host.kind ?? 'BareMetalHost',
        namespace: host.namespace,
        name: host.name,
        uid: host.uid,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: SOURCE_COMPONENT },
      reportingComponent: REPORTING_CONTROLLER,
      reportingInstance: this.options.instance,
    });
  }

  private prune(now: number): void {
    for (const [key, entry] of this.seen) {
      if (now - entry.last > this.options.windowMs) {
        this.seen.delete(key);
      }
    }
  }
}
