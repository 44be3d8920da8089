// A running DecoratorController: informers on every target type of spec.resources[] and every
// attachment type; targets are selected by label and annotation selectors (rules of the same
// group+kind are alternatives); attachment events reach the target through the controller
// ownerReference.
import { typeKey as mapTypeKey } from '../core/object-map.js';
import { annotationMatcher, labelMatcher } from '../core/selector.js';
import type { DecoratorController, DecoratorTargetRule } from '../core/types.js';
import { DECORATOR_ANNOTATION, DECORATOR_FINALIZER_PREFIX } from '../core/types.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { annotationsOf, controllerOf, deepEqual, groupOf, hasFinalizer, labelsOf, nameOf, namespaceOf, objectKey } from '../kube/objects.js';
import type { ChildType } from './apply.js';
import { CustomizeManager } from './customize.js';
import { resolveHooks } from './hooks.js';
import type { ResolvedHooks } from './hooks.js';
import { Loop } from './loop.js';
import type { Runtime } from './runtime.js';
import { splitTargetKey, syncTarget, targetKey } from './decorator-sync.js';
import type { DecoratorState, TargetType } from './decorator-sync.js';

function ruleMatcher(rule: DecoratorTargetRule): (obj: KObject) => boolean {
  const labels = labelMatcher(rule.labelSelector);
  const annotations = annotationMatcher(rule.annotationSelector);
  return (obj) => labels(labelsOf(obj)) && annotations(annotationsOf(obj));
}

function statusOnly(old: KObject, cur: KObject): boolean {
  return (
    old.metadata.generation === cur.metadata.generation &&
    deepEqual(old.metadata.labels, cur.metadata.labels) &&
    deepEqual(old.metadata.annotations, cur.metadata.annotations) &&
    old.metadata.deletionTimestamp === cur.metadata.deletionTimestamp
  );
}

export class DecoratorLoop {
  private readonly releases: (() => void)[] = [];
  private loop: Loop | undefined;
  private hooks: ResolvedHooks = {};
  private customize: CustomizeManager | undefined;
  private readonly targets = new Map<string, TargetType & { ignoreStatus: boolean }>();
  private readonly attachmentTypes = new Map<string, ChildType & { informer: Informer }>();

  constructor(
    private readonly runtime: Runtime,
    readonly dc: DecoratorController,
  ) {}

  get label(): string {
    return `DecoratorController ${nameOf(this.dc)}`;
  }

  get finalizer(): string {
    return `${DECORATOR_FINALIZER_PREFIX}${nameOf(this.dc)}`;
  }

  private acquire(info: ResourceInfo): Informer {
    const acquired = this.runtime.informers.acquire(info);
    this.releases.push(acquired.release);
    return acquired.informer;
  }

  private addTarget(rule: DecoratorTargetRule): void {
    const info = this.runtime.discovery.get(rule.apiVersion, rule.resource);
    const key = `${info.apiVersion}|${info.resource}`;
    const existing = this.targets.get(key);
    const matcher = ruleMatcher(rule);
    if (existing === undefined) {
      this.targets.set(key, { info, informer: this.acquire(info), matches: matcher, ignoreStatus: rule.ignoreStatusChanges === true });
      return;
    }
    const previous = existing.matches;
    existing.matches = (obj) => previous(obj) || matcher(obj);
  }

  async start(): Promise<void> {
    const spec = this.dc.spec;
    if (spec.hooks === undefined) throw new Error('no hooks defined');
    for (const rule of spec.resources) this.addTarget(rule);
    for (const rule of spec.attachments ?? []) {
      const info = this.runtime.discovery.get(rule.apiVersion, rule.resource);
      this.attachmentTypes.set(mapTypeKey({ apiVersion: rule.apiVersion, kind: info.kind }), { rule, info, informer: this.acquire(info) });
    }
    this.hooks = await resolveHooks(this.runtime, spec.hooks, spec.endpointConfigs);
    const informers = [...this.targets.values(), ...this.attachmentTypes.values()].map((t) => t.informer);
    await Promise.all(informers.map(async (informer) => informer.waitForSync()));
    this.run();
  }

  /** Keys of cached targets we care about: selected, or still carrying our finalizer. */
  private interesting(): { key: string; obj: KObject }[] {
    return [...this.targets.values()].flatMap((type) =>
      type.informer
        .list()
        .filter((obj) => type.matches(obj) || hasFinalizer(obj, this.finalizer))
        .map((obj) => ({ key: targetKey(type.info, objectKey(obj)), obj })),
    );
  }

  private run(): void {
    const loop = new Loop({
      runtime: this.runtime,
      name: this.label,
      sync: async (key, report) => syncTarget(state, key, report),
      objectFor: (key) => {
        const { typeKey, objectKey: objKey } = splitTargetKey(key);
        return this.targets.get(typeKey)?.informer.get(objKey);
      },
      keys: () => this.interesting().map((entry) => entry.key),
      resyncPeriodSeconds: this.dc.spec.resyncPeriodSeconds,
    });
    this.loop = loop;
    const firstTarget = [...this.targets.values()][0];
    this.customize = new CustomizeManager({
      runtime: this.runtime,
      hook: this.hooks.customize,
      controller: this.dc,
      parentNamespaced: firstTarget?.info.namespaced ?? true,
      parents: () => this.interesting(),
      enqueue: (key) => { loop.queue.add(key); },
    });
    const state: DecoratorState = {
      runtime: this.runtime,
      dc: this.dc,
      label: this.label,
      targets: this.targets,
      attachmentTypes: this.attachmentTypes,
      hooks: this.hooks,
      customize: this.customize,
      finalizer: this.finalizer,
      queue: loop.queue,
    };
    for (const type of this.targets.values()) this.watchTargets(type, loop);
    for (const type of this.attachmentTypes.values()) this.watchAttachments(type.informer, loop);
    loop.start();
  }

  private watchTargets(type: TargetType & { ignoreStatus: boolean }, loop: Loop): void {
    const enqueue = (obj: KObject): void => {
      if (type.matches(obj) || hasFinalizer(obj, this.finalizer)) loop.queue.add(targetKey(type.info, objectKey(obj)));
    };
    this.releases.push(
      type.informer.addHandlers({
        add: enqueue,
        update: (old, cur) => {
          if (!(type.ignoreStatus && statusOnly(old, cur))) enqueue(cur);
        },
        delete: (obj) => {
          this.customize?.forget(obj.metadata.uid);
          enqueue(obj);
        },
      }),
    );
  }

  /** The target key an attachment event concerns (through its controller ownerReference). */
  private targetOf(obj: KObject): string | undefined {
    const ref = controllerOf(obj);
    if (ref === undefined || annotationsOf(obj)[DECORATOR_ANNOTATION] !== nameOf(this.dc)) return undefined;
    for (const type of this.targets.values()) {
      if (groupOf(ref.apiVersion) !== type.info.group || ref.kind !== type.info.kind) continue;
      const key = type.info.namespaced ? `${namespaceOf(obj)}/${ref.name}` : ref.name;
      if (type.informer.get(key)?.metadata.uid === ref.uid) return targetKey(type.info, key);
    }
    return undefined;
  }

  private watchAttachments(informer: Informer, loop: Loop): void {
    const enqueue = (objs: KObject[]): void => {
      for (const obj of objs) {
        const key = this.targetOf(obj);
        if (key !== undefined) loop.queue.add(key);
      }
    };
    this.releases.push(informer.onAnyChange(enqueue));
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.customize?.stop();
    for (const release of this.releases.splice(0)) release();
    await Promise.all(Object.values(this.hooks).map(async (hook) => hook.close()));
  }
}
