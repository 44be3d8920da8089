// An in-memory KubePort: objects in maps, watches delivered synchronously, JSON merge patches,
// resourceVersion preconditions. Backs the pool's and the request runner's unit tests
// (test/support/fake-driver.ts, test/unit/request-runner.test.ts) and lets a pool run without an
// apiserver. Not a general apiserver: only what the pool uses.
import type { KObject } from '../../domain/k8s.js';
import { KubeStatusError } from '../../drivers/kube/errors.js';
import { ADOPTED_RESOURCES, objectKey } from '../../drivers/kube/port.js';
import type {
  CoreEvent,
  KubePort,
  KubeWatch,
  Lease,
  Secret,
  SecretMetadataPatch,
  StatusResource,
  WatchEvent,
  WatchOptions,
  WatchedResource,
  AdoptedResource,
} from '../../drivers/kube/port.js';

type Listener = { options: WatchOptions; onEvent: (event: WatchEvent) => void; active: boolean };

export interface StoredEvent extends CoreEvent {
  metadata: { name: string; namespace: string };
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    return clone(patch);
  }
  const base: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  const merged = Object.entries(patch as Record<string, unknown>).map(
    ([key, value]) => [key, value === null ? undefined : mergePatch(base[key], value)] as const,
  );
  return Object.fromEntries([...Object.entries(base).filter(([key]) => !(key in patch)), ...merged.filter(([, value]) => value !== undefined)]);
}

function matchesSelector(object: KObject, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') {
    return true;
  }
  return selector.split(',').every((term) => {
    const [key = '', value] = term.split('=');
    return object.metadata.labels?.[key] === value;
  });
}

function notFound(what: string): KubeStatusError {
  return new KubeStatusError(404, 'NotFound', `${what} not found`);
}

/** What a watch hands on, as the real client's projection (WatchOptions.project) makes it. */
function projected(options: WatchOptions, object: KObject): KObject {
  return options.project === undefined ? object : options.project(object);
}

export class MemoryKube implements KubePort {
  private version = 1000;
  private readonly objects = new Map<WatchedResource, Map<string, KObject>>([
    ['hostoperations', new Map()],
    ['bmcmonitors', new Map()],
    ['objectpatches', new Map()],
    ['nodeoperations', new Map()],
    ['secrets', new Map()],
    ['baremetalhosts', new Map()],
    ...ADOPTED_RESOURCES.map((resource) => [resource, new Map<string, KObject>()] as const),
  ]);
  /** The request resources the apiserver serves (remove one to test a missing CRD). */
  readonly served = new Set<string>(['hostoperations', 'bmcmonitors', 'objectpatches', 'nodeoperations']);
  private readonly listeners = new Map<WatchedResource, Listener[]>();
  readonly events: StoredEvent[] = [];
  readonly leases = new Map<string, Lease>();
  /** Every status patch, in order (tests assert on what was written). */
  readonly statusPatches: { resource: StatusResource; key: string; status: Record<string, unknown> }[] = [];
  /** Requests the pool deleted (stale children), in order. */
  readonly deletedRequests: { resource: StatusResource; key: string }[] = [];
  /** Make the next call of a method fail (tests of error paths). */
  readonly failures = new Map<string, Error>();

  private nextVersion(): string {
    this.version += 1;
    return String(this.version);
  }

  private failIfAsked(method: string): void {
    const failure = this.failures.get(method);
    if (failure !== undefined) {
      this.failures.delete(method);
      throw failure;
    }
  }

  private table(resource: WatchedResource): Map<string, KObject> {
    return this.objects.get(resource) as Map<string, KObject>;
  }

  private notify(resource: WatchedResource, event: WatchEvent): void {
    for (const listener of this.listeners.get(resource) ?? []) {
      const { namespace, labelSelector } = listener.options;
      const inScope = namespace === undefined || event.object.metadata.namespace === namespace;
      if (listener.active && inScope && matchesSelector(event.object, labelSelector)) {
        listener.onEvent({ type: event.type, object: projected(listener.options, clone(event.object)) });
      }
    }
  }

  /** Create or replace an object (as a user or Metacontroller would); status is kept as given. */
  put<T extends KObject>(resource: WatchedResource, object: T): T {
    const table = this.table(resource);
    const key = objectKey(object);
    const existed = table.get(key);
    const stored = clone(object);
    stored.metadata.resourceVersion = this.nextVersion();
    stored.metadata.uid ??= existed?.metadata.uid ?? `uid-${key}`;
    table.set(key, stored);
    this.notify(resource, { type: existed ? 'modified' : 'added', object: stored });
    return clone(stored);
  }

  remove(resource: WatchedResource, namespace: string, name: string): void {
    const table = this.table(resource);
    const key = `${namespace}/${name}`;
    const existing = table.get(key);
    if (existing !== undefined) {
      table.delete(key);
      this.notify(resource, { type: 'deleted', object: existing });
    }
  }

  get(resource: WatchedResource, namespace: string, name: string): KObject | undefined {
    const found = this.table(resource).get(`${namespace}/${name}`);
    return found === undefined ? undefined : clone(found);
  }

  watch(resource: WatchedResource, options: WatchOptions, onEvent: (event: WatchEvent) => void): KubeWatch {
    const listener: Listener = { options, onEvent, active: false };
    const list = this.listeners.get(resource) ?? [];
    list.push(listener);
    this.listeners.set(resource, list);
    return {
      start: () => {
        listener.active = true;
        for (const object of this.table(resource).values()) {
          const inScope = options.namespace === undefined || object.metadata.namespace === options.namespace;
          if (inScope && matchesSelector(object, options.labelSelector)) {
            onEvent({ type: 'added', object: projected(options, clone(object)) });
          }
        }
        return Promise.resolve();
      },
      stop: () => {
        listener.active = false;
      },
    };
  }

  patchStatus(resource: StatusResource, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
    this.failIfAsked('patchStatus');
    const key = `${namespace}/${name}`;
    const existing = this.table(resource).get(key);
    if (existing === undefined) {
      return Promise.reject(notFound(`${resource} ${key}`));
    }
    this.statusPatches.push({ resource, key, status: clone(status) });
    const updated = { ...existing, status: mergePatch(existing.status, status) } as KObject;
    this.put(resource, updated);
    return Promise.resolve();
  }

  patchLabels(resource: AdoptedResource, namespace: string, name: string, labels: Record<string, string>): Promise<void> {
    this.failIfAsked('patchLabels');
    const existing = this.get(resource, namespace, name);
    if (existing === undefined) return Promise.reject(notFound(`${resource} ${namespace}/${name}`));
    this.put(resource, { ...existing, metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...labels } } });
    return Promise.resolve();
  }

  deleteRequest(resource: StatusResource, namespace: string, name: string, uid: string): Promise<void> {
    this.failIfAsked('deleteRequest');
    this.deletedRequests.push({ resource, key: `${namespace}/${name}` });
    if (this.get(resource, namespace, name)?.metadata.uid === uid) this.remove(resource, namespace, name);
    return Promise.resolve();
  }

  getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    this.failIfAsked('getSecret');
    return Promise.resolve(this.get('secrets', namespace, name));
  }

  patchSecretMetadata(namespace: string, name: string, patch: SecretMetadataPatch): Promise<Secret> {
    this.failIfAsked('patchSecretMetadata');
    const existing = this.get('secrets', namespace, name);
    if (existing === undefined) {
      return Promise.reject(notFound(`Secret ${namespace}/${name}`));
    }
    if (existing.metadata.resourceVersion !== patch.resourceVersion) {
      return Promise.reject(new KubeStatusError(409, 'Conflict', `Secret ${namespace}/${name} changed`));
    }
    const metadata: Partial<SecretMetadataPatch> = { ...patch };
    delete metadata.resourceVersion;
    const updated = { ...existing, metadata: mergePatch(existing.metadata, metadata) } as Secret;
    return Promise.resolve(this.put('secrets', updated));
  }

  createEvent(namespace: string, event: CoreEvent): Promise<string> {
    this.failIfAsked('createEvent');
    const name = event.metadata.name ?? `${event.metadata.generateName ?? 'event-'}${String(this.events.length + 1)}`;
    this.events.push({ ...clone(event), metadata: { name, namespace } });
    return Promise.resolve(name);
  }

  patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<void> {
    const event = this.events.find((candidate) => candidate.metadata.name === name && candidate.metadata.namespace === namespace);
    if (event === undefined) {
      return Promise.reject(notFound(`Event ${namespace}/${name}`));
    }
    Object.assign(event, patch);
    return Promise.resolve();
  }

  getLease(namespace: string, name: string): Promise<Lease | undefined> {
    this.failIfAsked('getLease');
    const lease = this.leases.get(`${namespace}/${name}`);
    return Promise.resolve(lease === undefined ? undefined : clone(lease));
  }

  createLease(lease: Lease): Promise<Lease> {
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    if (this.leases.has(key)) {
      return Promise.reject(new KubeStatusError(409, 'Conflict', `Lease ${key} already exists`));
    }
    const stored = { ...clone(lease), metadata: { ...lease.metadata, resourceVersion: this.nextVersion() } };
    this.leases.set(key, stored);
    return Promise.resolve(clone(stored));
  }

  replaceLease(lease: Lease): Promise<Lease> {
    this.failIfAsked('replaceLease');
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const existing = this.leases.get(key);
    if (existing?.metadata.resourceVersion !== lease.metadata.resourceVersion) {
      return Promise.reject(new KubeStatusError(409, 'Conflict', `Lease ${key} changed`));
    }
    const stored = { ...clone(lease), metadata: { ...lease.metadata, resourceVersion: this.nextVersion() } };
    this.leases.set(key, stored);
    return Promise.resolve(clone(stored));
  }

  deleteLease(lease: Lease): Promise<void> {
    this.failIfAsked('deleteLease');
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const existing = this.leases.get(key);
    if (existing === undefined) return Promise.reject(new KubeStatusError(404, 'NotFound', `Lease ${key} not found`));
    if (existing.metadata.resourceVersion !== lease.metadata.resourceVersion) {
      return Promise.reject(new KubeStatusError(409, 'Conflict', `Lease ${key} changed`));
    }
    this.leases.delete(key);
    return Promise.resolve();
  }

  servedRequestResources(): Promise<string[]> {
    return Promise.resolve([...this.served]);
  }
}
