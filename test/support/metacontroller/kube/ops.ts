// Object operations on any resource, in the forms Metacontroller uses them: uncached GET, full
// PUT (object and /status), POST, DELETE with a UID precondition and background propagation,
// and GET+mutate+PUT with retries on conflict (client.AtomicUpdate).
import type { ResourceInfo } from './discovery.js';
import { resourcePath } from './discovery.js';
import type { KObject } from './objects.js';
import { nameOf, namespaceOf } from './objects.js';
import { isConflict, isNotFound } from './rest.js';
import type { RestClient } from './rest.js';

const CONFLICT_RETRIES = 5;

export class ObjectOps {
  constructor(private readonly client: RestClient) {}

  async get(info: ResourceInfo, namespace: string, name: string): Promise<KObject> {
    return this.client.request<KObject>({ method: 'GET', path: resourcePath(info, namespace, name) });
  }

  /** GET that answers undefined for 404. */
  async find(info: ResourceInfo, namespace: string, name: string): Promise<KObject | undefined> {
    try {
      return await this.get(info, namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(info: ResourceInfo, obj: KObject): Promise<KObject> {
    return this.client.request<KObject>({ method: 'POST', path: resourcePath(info, namespaceOf(obj)), body: obj });
  }

  async update(info: ResourceInfo, obj: KObject): Promise<KObject> {
    return this.client.request<KObject>({ method: 'PUT', path: resourcePath(info, namespaceOf(obj), nameOf(obj)), body: obj });
  }

  async updateStatus(info: ResourceInfo, obj: KObject): Promise<KObject> {
    return this.client.request<KObject>({ method: 'PUT', path: resourcePath(info, namespaceOf(obj), nameOf(obj), 'status'), body: obj });
  }

  /** DELETE with `preconditions.uid` and background propagation. */
  async deleteExact(info: ResourceInfo, obj: KObject): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } };
    await this.client.request({ method: 'DELETE', path: resourcePath(info, namespaceOf(obj), nameOf(obj)), body });
  }

  /**
   * GET, let `mutate` change the object (return false for "nothing to do"), PUT; on conflict
   * start over. Resolves to the written object, the unchanged one, or undefined when gone.
   */
  async atomicUpdate(info: ResourceInfo, namespace: string, name: string, mutate: (obj: KObject) => boolean): Promise<KObject | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      const current = await this.find(info, namespace, name);
      if (current === undefined) return undefined;
      if (!mutate(current)) return current;
      try {
        return await this.update(info, current);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!isConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
      }
    }
  }

  /** Data of a Secret (decoded) or ConfigMap, for webhook credentials and CA bundles. */
  async readRef(kind: 'secrets' | 'configmaps', namespace: string, name: string): Promise<Record<string, string>> {
    const obj = await this.client.request<{ data?: Record<string, string> }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/${kind}/${name}` });
    const data = obj.data ?? {};
    if (kind === 'configmaps') return data;
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
  }
}

/** Add (or, with `present` false, remove) a finalizer; returns whether the list changed. */
export function setFinalizer(obj: KObject, finalizer: string, present: boolean): boolean {
  const list = obj.metadata.finalizers ?? [];
  const has = list.includes(finalizer);
  if (has === present) return false;
  obj.metadata.finalizers = present ? [...list, finalizer] : list.filter((item) => item !== finalizer);
  return true;
}
