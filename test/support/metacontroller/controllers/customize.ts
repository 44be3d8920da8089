// Related objects (§5.5, §6.9): the customize hook is asked which objects a parent wants to
// see; answers are cached per (parent UID, generation) for 20 minutes. Informers for related
// types start lazily and watch the whole cluster; until one has synced the parent is quietly
// re-queued. A related event re-queues every parent whose rules select the old or new object.
import { decodeCustomizeResponse } from '../core/decode.js';
import type { RelatedRule } from '../core/decode.js';
import { buildObjectMap } from '../core/object-map.js';
import type { HookVersion, ObjectMap } from '../core/object-map.js';
import { ruleSelects, validateRule } from '../core/related.js';
import type { RuleContext } from '../core/related.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { labelsOf, namespaceOf, objectKey } from '../kube/objects.js';
import type { HookClient } from '../hooks/webhook.js';
import type { Runtime } from './runtime.js';
import { NotSynced, errorMessage } from './runtime.js';

const CACHE_TTL_MS = 20 * 60_000;

interface ResolvedRule {
  rule: RelatedRule;
  info: ResourceInfo;
}

interface CacheEntry {
  generation: number;
  expires: number;
  rules: ResolvedRule[];
}

export interface CustomizeOptions {
  runtime: Runtime;
  hook: HookClient | undefined;
  controller: KObject;
  parentNamespaced: boolean;
  /** Cached parents (targets) to scan on related events, with their queue keys. */
  parents: () => { key: string; obj: KObject }[];
  enqueue: (key: string) => void;
}

export class CustomizeManager {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<ResolvedRule[]>>();
  private readonly informers = new Map<string, { informer: Informer; release: () => void }>();
  private readonly namespaces: { informer: Informer; release: () => void } | undefined;

  constructor(private readonly options: CustomizeOptions) {
    const info = options.runtime.discovery.find('v1', 'namespaces');
    this.namespaces = info === undefined ? undefined : options.runtime.informers.acquire(info);
    this.namespaces?.informer.addHandlers({ add: () => { this.onNamespace(); }, update: () => { this.onNamespace(); } });
  }

  stop(): void {
    for (const entry of this.informers.values()) entry.release();
    this.namespaces?.release();
    this.informers.clear();
  }

  get version(): HookVersion {
    return this.options.hook?.endpoint.version ?? 'v1';
  }

  forget(uid: string | undefined): void {
    if (uid !== undefined) this.cache.delete(uid);
  }

  /** The `related` map for `parent`; throws NotSynced while a related informer is listing. */
  async related(parent: KObject): Promise<ObjectMap> {
    if (this.options.hook === undefined) return {};
    const rules = await this.rules(parent);
    const objects: KObject[] = [];
    for (const { rule, info } of rules) {
      const informer = this.informerFor(info);
      if (!informer.hasSynced) throw new NotSynced(informer.name);
      objects.push(...informer.list().filter((obj) => ruleSelects(rule, obj, this.context(parent, info))));
    }
    const types = rules.map(({ rule, info }) => ({ apiVersion: rule.apiVersion, kind: info.kind }));
    return buildObjectMap(types, objects, { version: this.version, parentNamespaced: this.options.parentNamespaced });
  }

  private context(parent: KObject, info: ResourceInfo): RuleContext {
    return {
      version: this.version,
      parentNamespaced: this.options.parentNamespaced,
      parentNamespace: namespaceOf(parent),
      relatedNamespaced: info.namespaced,
      namespaceLabels: (namespace) => {
        const ns = this.namespaces?.informer.get(namespace);
        return ns === undefined ? undefined : labelsOf(ns);
      },
    };
  }

  private cached(parent: KObject): ResolvedRule[] | undefined {
    const entry = this.cache.get(parent.metadata.uid ?? '');
    const fresh = entry !== undefined && entry.generation === (parent.metadata.generation ?? 0) && entry.expires > Date.now();
    return fresh ? entry.rules : undefined;
  }

  /** Customize rules for `parent`, from the cache or the hook (one call in flight per parent). */
  async rules(parent: KObject): Promise<ResolvedRule[]> {
    const hit = this.cached(parent);
    if (hit !== undefined || this.options.hook === undefined) return hit ?? [];
    const flightKey = `${parent.metadata.uid ?? ''}|${String(parent.metadata.generation ?? 0)}`;
    let flight = this.inFlight.get(flightKey);
    if (flight === undefined) {
      flight = this.callHook(this.options.hook, parent).finally(() => this.inFlight.delete(flightKey));
      this.inFlight.set(flightKey, flight);
    }
    return flight;
  }

  private async callHook(hook: HookClient, parent: KObject): Promise<ResolvedRule[]> {
    const text = await hook.call({ controller: this.options.controller, parent });
    const rules = decodeCustomizeResponse(text, hook.endpoint.strict).map((rule) => {
      const info = this.options.runtime.discovery.get(rule.apiVersion, rule.resource);
      validateRule(rule, this.context(parent, info));
      return { rule, info };
    });
    this.cache.set(parent.metadata.uid ?? '', { generation: parent.metadata.generation ?? 0, expires: Date.now() + CACHE_TTL_MS, rules });
    for (const { info } of rules) this.informerFor(info);
    return rules;
  }

  private informerFor(info: ResourceInfo): Informer {
    const key = `${info.apiVersion}|${info.resource}`;
    let entry = this.informers.get(key);
    if (entry === undefined) {
      entry = this.options.runtime.informers.acquire(info);
      this.informers.set(key, entry);
      const changed = (objs: KObject[]): void => {
        this.onRelated(info, objs);
      };
      entry.informer.onAnyChange(changed);
    }
    return entry.informer;
  }

  private selects(parent: KObject, rules: ResolvedRule[], info: ResourceInfo, objs: KObject[]): boolean {
    return rules.some((resolved) => {
      const sameType = resolved.info.group === info.group && resolved.info.resource === info.resource;
      return sameType && objs.some((obj) => ruleSelects(resolved.rule, obj, this.context(parent, info)));
    });
  }

  private onRelated(info: ResourceInfo, objs: KObject[]): void {
    for (const { key, obj: parent } of this.options.parents()) {
      const rules = this.cached(parent);
      if (rules !== undefined) {
        if (this.selects(parent, rules, info, objs)) this.options.enqueue(key);
        continue;
      }
      this.rules(parent)
        .then((fresh) => {
          if (this.selects(parent, fresh, info, objs)) this.options.enqueue(key);
        })
        .catch((error: unknown) => {
          this.options.runtime.log.info(2, `customize for ${objectKey(parent)} failed during a related scan: ${errorMessage(error)}`);
        });
    }
  }

  /** Namespace labels changed: parents selecting by namespaceSelector may see other objects. */
  private onNamespace(): void {
    for (const { key, obj } of this.options.parents()) {
      if ((this.cached(obj) ?? []).some(({ rule }) => rule.namespaceSelector !== undefined)) this.options.enqueue(key);
    }
  }
}
