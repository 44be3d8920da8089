// A list+watch cache of one resource (client-go's shared informer, reduced): list, then watch
// from the list's resourceVersion with bookmarks; re-watch when the server ends the stream,
// re-list on 410 Gone or errors. Handlers see add/update/delete; a re-list reports differences.
import type { Logger } from '../log.js';
import type { ResourceInfo } from './discovery.js';
import { resourcePath } from './discovery.js';
import type { KObject } from './objects.js';
import { isObject, namespaceOf, objectKey } from './objects.js';
import { ApiError } from './rest.js';
import type { RestClient, WatchHandle } from './rest.js';

export interface Handlers {
  add?: (obj: KObject) => void;
  update?: (old: KObject, cur: KObject) => void;
  delete?: (obj: KObject) => void;
}

const RETRY_MS = 1000;
const delay = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export class Informer {
  private readonly store = new Map<string, KObject>();
  private readonly handlers = new Set<Handlers>();
  private stopped = false;
  private watch: WatchHandle | undefined;
  private resourceVersion = '';
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];

  constructor(
    private readonly client: RestClient,
    readonly info: ResourceInfo,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.run().catch((error: unknown) => {
      this.log.error(`informer ${this.name} stopped: ${String(error)}`);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private isStopped(): boolean {
    return this.stopped;
  }

  get name(): string {
    return `${this.info.resource}.${this.info.apiVersion}`;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  async waitForSync(): Promise<void> {
    if (this.synced) return;
    await new Promise<void>((resolve) => this.syncWaiters.push(resolve));
  }

  addHandlers(handlers: Handlers): () => void {
    this.handlers.add(handlers);
    return () => this.handlers.delete(handlers);
  }

  /** Call `changed` with the objects involved in every add, update (old and new) and delete. */
  onAnyChange(changed: (objects: KObject[]) => void): () => void {
    return this.addHandlers({
      add: (obj) => { changed([obj]); },
      update: (old, cur) => { changed([old, cur]); },
      delete: (obj) => { changed([obj]); },
    });
  }

  get(key: string): KObject | undefined {
    return this.store.get(key);
  }

  /** Cached objects, optionally only those of one namespace. */
  list(namespace?: string): KObject[] {
    const all = [...this.store.values()];
    return namespace === undefined || namespace === '' ? all : all.filter((obj) => namespaceOf(obj) === namespace);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.relist();
        await this.watchUntilGone();
      } catch (error) {
        if (!this.isStopped()) this.log.info(2, `informer ${this.name}: ${String(error)}; re-listing`);
        await delay(RETRY_MS);
      }
    }
  }

  private async relist(): Promise<void> {
    const list = await this.client.request<{ metadata: { resourceVersion: string }; items: KObject[] }>({ method: 'GET', path: resourcePath(this.info) });
    const fresh = new Map<string, KObject>();
    for (const item of list.items) {
      // List items of built-in types come without apiVersion/kind.
      const obj = { ...item, apiVersion: this.info.apiVersion, kind: this.info.kind };
      fresh.set(objectKey(obj), obj);
    }
    for (const [key, old] of [...this.store]) {
      if (!fresh.has(key)) this.remove(old);
    }
    for (const obj of fresh.values()) this.upsert(obj);
    this.resourceVersion = list.metadata.resourceVersion;
    this.markSynced();
  }

  private markSynced(): void {
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  private async watchUntilGone(): Promise<void> {
    while (!this.stopped) {
      const query = { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: this.resourceVersion, timeoutSeconds: String(240 + Math.floor(Math.random() * 120)) };
      let gone: ApiError | undefined;
      this.watch = this.client.watch({ path: resourcePath(this.info), query }, (event) => {
        gone = this.onEvent(event.type, event.object) ?? gone;
        if (gone !== undefined) this.watch?.stop();
      });
      await this.watch.done;
      if (gone !== undefined) throw gone;
    }
  }

  /** Applies one watch event; returns an error when the watch must be restarted from a list. */
  private onEvent(type: string, object: unknown): ApiError | undefined {
    if (!isObject(object)) return undefined;
    if (type === 'ERROR') {
      return new ApiError(typeof object.code === 'number' ? object.code : 500, String(object.reason), String(object.message));
    }
    const obj = object as KObject;
    this.resourceVersion = obj.metadata.resourceVersion ?? this.resourceVersion;
    if (type === 'ADDED' || type === 'MODIFIED') this.upsert(obj);
    if (type === 'DELETED') this.remove(obj);
    return undefined;
  }

  private upsert(obj: KObject): void {
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (old?.metadata.resourceVersion === obj.metadata.resourceVersion && old !== undefined) return;
    this.store.set(key, obj);
    this.notify((h) => (old === undefined ? h.add?.(obj) : h.update?.(old, obj)));
  }

  private remove(obj: KObject): void {
    const key = objectKey(obj);
    const old = this.store.get(key) ?? obj;
    this.store.delete(key);
    this.notify((h) => h.delete?.(old));
  }

  private notify(call: (handlers: Handlers) => void): void {
    for (const handlers of this.handlers) {
      try {
        call(handlers);
      } catch (error) {
        this.log.error(`informer ${this.name} handler: ${String(error)}`);
      }
    }
  }
}

/** Shares one informer per resource among all controllers, stopped when the last user leaves. */
export class InformerFactory {
  private readonly informers = new Map<string, { informer: Informer; users: number }>();

  constructor(
    private readonly client: RestClient,
    private readonly log: Logger,
  ) {}

  acquire(info: ResourceInfo): { informer: Informer; release: () => void } {
    const key = `${info.apiVersion}|${info.resource}`;
    let entry = this.informers.get(key);
    if (entry === undefined) {
      entry = { informer: new Informer(this.client, info, this.log), users: 0 };
      this.informers.set(key, entry);
      entry.informer.start();
    }
    entry.users += 1;
    const shared = entry;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      shared.users -= 1;
      if (shared.users === 0) {
        shared.informer.stop();
        this.informers.delete(key);
      }
    };
    return { informer: shared.informer, release };
  }

  stopAll(): void {
    for (const { informer } of this.informers.values()) informer.stop();
    this.informers.clear();
  }
}
