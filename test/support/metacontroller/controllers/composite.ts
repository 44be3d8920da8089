// A running CompositeController: informers on the parent and child types, the triggers of §6.2
// (parent events, child events through the controller ownerReference or, for orphans, the
// parents whose selector matches, related events, resyncs) and the work loop.
import { labelMatcher, parentSelector } from '../core/selector.js';
import type { CompositeController } from '../core/types.js';
import { COMPOSITE_FINALIZER_PREFIX } from '../core/types.js';
import { typeKey } from '../core/object-map.js';
import type { ResourceInfo } from '../kube/discovery.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { controllerOf, deepEqual, groupOf, labelsOf, nameOf, namespaceOf, objectKey } from '../kube/objects.js';
import type { ChildType } from './apply.js';
import { CustomizeManager } from './customize.js';
import { resolveHooks } from './hooks.js';
import type { ResolvedHooks } from './hooks.js';
import { Loop } from './loop.js';
import type { Runtime } from './runtime.js';
import { syncParent } from './composite-sync.js';
import type { CompositeState } from './composite-sync.js';

/** The parent CRD must declare the status subresource on the version used (§1). */
export async function checkStatusSubresource(runtime: Runtime, info: ResourceInfo): Promise<void> {
  const name = `${info.resource}.${info.group}`;
  const crd = await runtime.client.request<{ spec: { versions: { name: string; subresources?: { status?: unknown } }[] } }>({
    method: 'GET',
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
  });
  const version = crd.spec.versions.find((item) => item.name === info.version);
  if (version?.subresources?.status === undefined) {
    throw new StatusSubresourceMissing(`CRD ${name} version ${info.version} has no status subresource; CompositeController parents need one`);
  }
}

export class StatusSubresourceMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatusSubresourceMissing';
  }
}

/** Only status (or nothing we watch) changed: ignored with ignoreStatusChanges. */
function onlyStatusChanged(old: KObject, cur: KObject): boolean {
  return (
    old.metadata.generation === cur.metadata.generation &&
    deepEqual(old.metadata.labels, cur.metadata.labels) &&
    deepEqual(old.metadata.annotations, cur.metadata.annotations) &&
    old.metadata.deletionTimestamp === cur.metadata.deletionTimestamp
  );
}

export class CompositeLoop {
  private readonly releases: (() => void)[] = [];
  private loop: Loop | undefined;
  private hooks: ResolvedHooks | undefined;
  private customize: CustomizeManager | undefined;

  constructor(
    private readonly runtime: Runtime,
    readonly cc: CompositeController,
  ) {}

  get label(): string {
    return `CompositeController ${nameOf(this.cc)}`;
  }

  async start(): Promise<void> {
    const spec = this.cc.spec;
    if (spec.hooks === undefined) throw new Error('no hooks defined');
    const { discovery, informers } = this.runtime;
    const parentInfo = discovery.get(spec.parentResource.apiVersion, spec.parentResource.resource);
    await checkStatusSubresource(this.runtime, parentInfo);
    this.hooks = await resolveHooks(this.runtime, spec.hooks, spec.endpointConfigs);
    const parent = informers.acquire(parentInfo);
    this.releases.push(parent.release);
    const childTypes = new Map<string, ChildType & { informer: Informer }>();
    for (const rule of spec.childResources ?? []) {
      const info = discovery.get(rule.apiVersion, rule.resource);
      const acquired = informers.acquire(info);
      this.releases.push(acquired.release);
      childTypes.set(typeKey({ apiVersion: rule.apiVersion, kind: info.kind }), { rule, info, informer: acquired.informer });
    }
    await Promise.all([parent.informer, ...[...childTypes.values()].map((t) => t.informer)].map(async (informer) => informer.waitForSync()));
    this.run(parentInfo, parent.informer, childTypes);
  }

  private run(parentInfo: ResourceInfo, parentInformer: Informer, childTypes: CompositeState['childTypes']): void {
    const hooks = this.hooks ?? {};
    const keys = (): { key: string; obj: KObject }[] => parentInformer.list().map((obj) => ({ key: objectKey(obj), obj }));
    const loop = new Loop({
      runtime: this.runtime,
      name: this.label,
      sync: async (key, report) => syncParent(state, key, report),
      objectFor: (key) => parentInformer.get(key),
      keys: () => keys().map((entry) => entry.key),
      resyncPeriodSeconds: this.cc.spec.resyncPeriodSeconds,
    });
    this.loop = loop;
    this.customize = new CustomizeManager({ runtime: this.runtime, hook: hooks.customize, controller: this.cc, parentNamespaced: parentInfo.namespaced, parents: keys, enqueue: (key) => { loop.queue.add(key); } });
    const state: CompositeState = {
      runtime: this.runtime,
      cc: this.cc,
      label: this.label,
      parentInfo,
      parentInformer,
      childTypes,
      hooks,
      customize: this.customize,
      parentMatcher: labelMatcher(this.cc.spec.parentResource.labelSelector),
      finalizer: `${COMPOSITE_FINALIZER_PREFIX}${nameOf(this.cc)}`,
      queue: loop.queue,
    };
    this.watchParents(parentInformer, loop);
    for (const type of childTypes.values()) this.watchChildren(type.informer, parentInfo, parentInformer, loop);
    loop.start();
  }

  private watchParents(informer: Informer, loop: Loop): void {
    const ignoreStatus = this.cc.spec.parentResource.ignoreStatusChanges === true;
    const enqueue = (obj: KObject): void => {
      loop.queue.add(objectKey(obj));
    };
    this.releases.push(
      informer.addHandlers({
        add: enqueue,
        update: (old, cur) => {
          if (!(ignoreStatus && onlyStatusChanged(old, cur))) enqueue(cur);
        },
        delete: (obj) => {
          this.customize?.forget(obj.metadata.uid);
          enqueue(obj);
        },
      }),
    );
  }

  /** The parent key a child event concerns: its controller if that is one of our parents, else matching parents for orphans. */
  private parentsOf(child: KObject, parentInfo: ResourceInfo, parents: Informer): string[] {
    const ref = controllerOf(child);
    if (ref !== undefined) {
      if (groupOf(ref.apiVersion) !== parentInfo.group || ref.kind !== parentInfo.kind) return [];
      const key = parentInfo.namespaced ? `${namespaceOf(child)}/${ref.name}` : ref.name;
      return parents.get(key)?.metadata.uid === ref.uid ? [key] : [];
    }
    const generate = this.cc.spec.generateSelector === true;
    const candidates = parentInfo.namespaced ? parents.list(namespaceOf(child)) : parents.list();
    return candidates.filter((parent) => orphanMatches(parent, child, generate)).map((parent) => objectKey(parent));
  }

  private watchChildren(informer: Informer, parentInfo: ResourceInfo, parents: Informer, loop: Loop): void {
    const enqueue = (objs: KObject[]): void => {
      for (const key of new Set(objs.flatMap((obj) => this.parentsOf(obj, parentInfo, parents)))) loop.queue.add(key);
    };
    this.releases.push(informer.onAnyChange(enqueue));
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.customize?.stop();
    for (const release of this.releases.splice(0)) release();
    await Promise.all(Object.values(this.hooks ?? {}).map(async (hook) => hook.close()));
  }
}

function orphanMatches(parent: KObject, child: KObject, generateSelector: boolean): boolean {
  try {
    return labelMatcher(parentSelector(parent, generateSelector))(labelsOf(child));
  } catch {
    return false;
  }
}
