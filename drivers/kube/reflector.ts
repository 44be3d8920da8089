// List + watch with a liveness check. client-node's informers are known to stop silently
// (kubernetes-client/javascript#596, #958, #1933), so this reflector owns the loop: it lists,
// watches from the list's resourceVersion with bookmarks, and relists when the watch errors,
// expires (410), or has been silent (no event and no bookmark) for longer than `livenessMs`.
import type { KObject } from '../../domain/k8s.js';
import type { Clock, Timer } from '../pool/clock.js';
import { objectKey } from './port.js';
import type { WatchEvent } from './port.js';

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
}

export interface WatchStream {
  abort(): void;
}

/** The two calls a reflector needs; the real one wraps client-node, tests pass a fake. */
export interface ReflectorTransport {
  list(): Promise<ListResult>;
  watch(resourceVersion: string, onEvent: (type: string, object: KObject) => void, onDone: (error?: unknown) => void): Promise<WatchStream>;
}

export type RestartReason = 'closed' | 'error' | 'expired' | 'stale';

export interface ReflectorOptions {
  clock: Clock;
  /** Relist when nothing (not even a bookmark) arrived for this long. */
  livenessMs: number;
  onRestart?: (reason: RestartReason, error?: unknown) => void;
  maxBackoffMs?: number;
}

function isGone(error: unknown): boolean {
  return (error as { statusCode?: number } | null | undefined)?.statusCode === 410;
}

export class Reflector {
  private store = new Map<string, KObject>();
  private resourceVersion = '';
  private generation = 0;
  private stream: WatchStream | undefined;
  private liveness: Timer | undefined;
  private retry: Timer | undefined;
  private stopped = true;
  private failures = 0;
  private synced: { resolve: () => void; promise: Promise<void> } | undefined;

  constructor(
    private readonly transport: ReflectorTransport,
    private readonly handler: (event: WatchEvent) => void,
    private readonly options: ReflectorOptions,
  ) {}

  /** Resolves after the first successful list (retrying with back-off until then). */
  start(): Promise<void> {
    this.stopped = false;
    let resolve: () => void = () => undefined;
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    this.synced = { resolve, promise };
    this.relistSoon(0);
    return promise;
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    this.stream?.abort();
    this.stream = undefined;
    this.liveness?.cancel();
    this.retry?.cancel();
  }

  get(key: string): KObject | undefined {
    return this.store.get(key);
  }

  list(): KObject[] {
    return [...this.store.values()];
  }

  private relistSoon(delayMs: number): void {
    this.retry?.cancel();
    this.retry = this.options.clock.setTimer(delayMs, () => {
      void this.relist();
    });
  }

  private backoffMs(): number {
    const max = this.options.maxBackoffMs ?? 30_000;
    return Math.min(max, 500 * 2 ** Math.min(this.failures, 10));
  }

  private async relist(): Promise<void> {
    const generation = ++this.generation;
    this.stream?.abort();
    this.stream = undefined;
    try {
      const list = await this.transport.list();
      if (generation !== this.generation || this.stopped) {
        return;
      }
      this.replace(list.items);
      this.resourceVersion = list.resourceVersion;
      this.synced?.resolve();
      await this.startWatch(generation);
    } catch (error) {
      this.failed(generation, error);
    }
  }

  private failed(generation: number, error: unknown): void {
    if (generation !== this.generation || this.stopped) {
      return;
    }
    this.failures += 1;
    this.options.onRestart?.('error', error);
    this.relistSoon(this.backoffMs());
  }

  private async startWatch(generation: number): Promise<void> {
    this.armLiveness(generation);
    const stream = await this.transport.watch(
      this.resourceVersion,
      (type, object) => {
        this.onEvent(generation, type, object);
      },
      (error) => {
        this.onDone(generation, error);
      },
    );
    if (generation !== this.generation || this.stopped) {
      stream.abort();
      return;
    }
    this.stream = stream;
  }

  private armLiveness(generation: number): void {
    this.liveness?.cancel();
    this.liveness = this.options.clock.setTimer(this.options.livenessMs, () => {
      if (generation === this.generation && !this.stopped) {
        this.options.onRestart?.('stale');
        void this.relist();
      }
    });
  }

  private onEvent(generation: number, type: string, object: KObject): void {
    if (generation !== this.generation || this.stopped) {
      return;
    }
    this.armLiveness(generation);
    this.failures = 0;
    if (type === 'ERROR') {
      if ((object as { code?: number }).code === 410) {
        this.resourceVersion = '';
      }
      return;
    }
    this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
    if (type === 'BOOKMARK') {
      return;
    }
    this.apply(type, object);
  }

  private apply(type: string, object: KObject): void {
    const key = objectKey(object);
    if (type === 'DELETED') {
      this.store.delete(key);
      this.handler({ type: 'deleted', object });
      return;
    }
    const known = this.store.has(key);
    this.store.set(key, object);
    this.handler({ type: known ? 'modified' : 'added', object });
  }

  private onDone(generation: number, error: unknown): void {
    if (generation !== this.generation || this.stopped) {
      return;
    }
    this.generation += 1;
    this.stream = undefined;
    this.liveness?.cancel();
    const expired = this.resourceVersion === '' || isGone(error);
    if (error != null && !expired) {
      this.failed(this.generation, error);
      return;
    }
    if (expired) {
      this.resourceVersion = '';
      this.options.onRestart?.('expired');
      this.relistSoon(0);
      return;
    }
    this.options.onRestart?.('closed');
    const next = this.generation;
    void this.startWatch(next).catch((watchError: unknown) => {
      this.failed(next, watchError);
    });
  }

  /** Applies a fresh list: deletions for what vanished, adds and changes for the rest. */
  private replace(items: KObject[]): void {
    const fresh = new Map(items.map((item) => [objectKey(item), item]));
    for (const [key, old] of this.store) {
      if (!fresh.has(key)) {
        this.handler({ type: 'deleted', object: old });
      }
    }
    const previous = this.store;
    this.store = fresh;
    for (const [key, item] of fresh) {
      const old = previous.get(key);
      if (old === undefined) {
        this.handler({ type: 'added', object: item });
      } else if (old.metadata.resourceVersion !== item.metadata.resourceVersion) {
        this.handler({ type: 'modified', object: item });
      }
    }
  }
}
