// Kubernetes Events on parents and controller objects (SyncError, Started, ...), reported as
// component "metacontroller". Like client-go's recorder: identical events are aggregated into
// one Event with a growing count, and each object has a token bucket (--events-qps/--events-burst
// defaults: 1 per 300 s, burst 25). Cluster-scoped objects get their events in "default".
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { TokenBucket } from '../core/backoff.js';
import type { KObject } from './objects.js';
import { nameOf, namespaceOf } from './objects.js';
import type { RestClient } from './rest.js';

const EVENTS_PER_SECOND = 1 / 300;
const EVENTS_BURST = 25;

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  private readonly seen = new Map<string, { name: string; namespace: string; count: number }>();
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly client: RestClient,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Fire and forget: failures to record are logged, never thrown. */
  record(obj: KObject, type: EventType, reason: string, message: string): void {
    this.log.info(type === 'Warning' ? 0 : 4, `event ${type} ${reason} on ${obj.kind} ${namespaceOf(obj) === '' ? '' : `${namespaceOf(obj)}/`}${nameOf(obj)}: ${message}`);
    this.write(obj, type, reason, message).catch((error: unknown) => {
      this.log.info(2, `could not record event ${reason}: ${String(error)}`);
    });
  }

  private allowed(uid: string): boolean {
    let bucket = this.buckets.get(uid);
    if (bucket === undefined) {
      bucket = new TokenBucket(EVENTS_PER_SECOND, EVENTS_BURST, this.now);
      this.buckets.set(uid, bucket);
    }
    return bucket.take();
  }

  private async write(obj: KObject, type: EventType, reason: string, message: string): Promise<void> {
    const uid = obj.metadata.uid ?? '';
    const key = `${uid}|${type}|${reason}|${message}`;
    const timestamp = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/u, 'Z');
    const previous = this.seen.get(key);
    if (!this.allowed(uid)) return;
    if (previous !== undefined) {
      previous.count += 1;
      const path = `/api/v1/namespaces/${previous.namespace}/events/${previous.name}`;
      await this.client.request({ method: 'PATCH', path, contentType: 'application/merge-patch+json', body: { count: previous.count, lastTimestamp: timestamp } });
      return;
    }
    const namespace = namespaceOf(obj) === '' ? 'default' : namespaceOf(obj);
    const name = `${nameOf(obj)}.${randomBytes(8).toString('hex')}`;
    const involvedObject = { apiVersion: obj.apiVersion, kind: obj.kind, name: nameOf(obj), namespace: namespaceOf(obj) || undefined, uid, resourceVersion: obj.metadata.resourceVersion };
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace }, involvedObject, type, reason, message, count: 1, firstTimestamp: timestamp, lastTimestamp: timestamp, source: { component: 'metacontroller' }, reportingComponent: 'metacontroller' };
    await this.client.request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/events`, body: event });
    this.seen.set(key, { name, namespace, count: 1 });
  }
}
