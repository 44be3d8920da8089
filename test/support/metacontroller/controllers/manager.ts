// Watches CompositeControllers and DecoratorControllers and keeps one running loop per object:
// started when it appears, stopped and rebuilt when its spec changes (all its objects resync),
// stopped when it is deleted. A loop that cannot start (parent resource not discovered yet,
// parent CRD without status subresource, unreadable webhook secret...) is retried with
// back-off and reported as a Warning event SyncError on the controller object.
import type { CompositeController, DecoratorController } from '../core/types.js';
import type { Informer } from '../kube/informer.js';
import type { KObject } from '../kube/objects.js';
import { deepEqual, nameOf } from '../kube/objects.js';
import { CompositeLoop } from './composite.js';
import { DecoratorLoop } from './decorator.js';
import { Loop } from './loop.js';
import type { Runtime, SyncReport } from './runtime.js';

type Running = CompositeLoop | DecoratorLoop;

const KINDS = { cc: 'compositecontrollers', dc: 'decoratorcontrollers' } as const;
type KindKey = keyof typeof KINDS;

export class Manager {
  private readonly running = new Map<string, Running>();
  private readonly informers = new Map<KindKey, Informer>();
  private readonly releases: (() => void)[] = [];
  private loop: Loop | undefined;

  constructor(
    private readonly runtime: Runtime,
    private readonly selects: (obj: KObject) => boolean = () => true,
  ) {}

  private objectFor(key: string): KObject | undefined {
    const [kind, name] = key.split('/') as [KindKey, string];
    return this.informers.get(kind)?.get(name);
  }

  async start(): Promise<void> {
    const loop = new Loop({
      runtime: { ...this.runtime, workers: 1 },
      name: 'controller-manager',
      sync: async (key, report) => this.reconcile(key, report),
      objectFor: (key) => this.objectFor(key),
      keys: () => [...this.informers].flatMap(([kind, informer]) => informer.list().map((obj) => `${kind}/${nameOf(obj)}`)),
    });
    this.loop = loop;
    for (const kind of Object.keys(KINDS) as KindKey[]) {
      const info = this.runtime.discovery.get('metacontroller.k8s.io/v1alpha1', KINDS[kind]);
      const acquired = this.runtime.informers.acquire(info);
      this.releases.push(acquired.release);
      this.informers.set(kind, acquired.informer);
      const enqueue = (obj: KObject): void => {
        loop.queue.add(`${kind}/${nameOf(obj)}`);
      };
      acquired.informer.addHandlers({ add: enqueue, update: (_old, cur) => { enqueue(cur); }, delete: enqueue });
      await acquired.informer.waitForSync();
    }
    loop.start();
    // A controller waiting for a resource (a CRD installed later) is retried as soon as discovery
    // sees new resources, instead of after its grown back-off.
    this.runtime.discovery.onRefresh(() => {
      for (const key of loop.queue.limiter.waitingKeys()) if (!this.running.has(key)) loop.queue.add(key);
    });
  }

  /** Bring the running loop for `key` in line with the controller object. */
  private async reconcile(key: string, report: SyncReport): Promise<void> {
    const wanted = this.objectFor(key);
    const current = this.running.get(key);
    const desired = wanted !== undefined && this.selects(wanted) ? wanted : undefined;
    if (current !== undefined && desired !== undefined && sameController(current, desired)) return;
    if (current !== undefined) await this.stopLoop(key, current, wanted);
    if (desired !== undefined) await this.startLoop(key, desired, report);
  }

  private async stopLoop(key: string, current: Running, wanted: KObject | undefined): Promise<void> {
    this.running.delete(key);
    await current.stop();
    this.runtime.log.info(0, `stopped ${current.label}`);
    if (wanted !== undefined) this.runtime.events.record(wanted, 'Normal', 'Stopped', `stopped ${current.label}`);
  }

  private async startLoop(key: string, desired: KObject, report: SyncReport): Promise<void> {
    const next = key.startsWith('cc/') ? new CompositeLoop(this.runtime, desired as CompositeController) : new DecoratorLoop(this.runtime, desired as DecoratorController);
    try {
      await next.start();
    } catch (error) {
      await next.stop();
      throw error;
    }
    this.running.set(key, next);
    report.detail.push('started');
    this.runtime.log.info(0, `started ${next.label}`);
    this.runtime.events.record(desired, 'Normal', 'Started', `started ${next.label}`);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    for (const running of this.running.values()) await running.stop();
    this.running.clear();
    for (const release of this.releases.splice(0)) release();
  }
}

function sameController(running: Running, obj: KObject): boolean {
  const current = running instanceof CompositeLoop ? running.cc : running.dc;
  return current.metadata.uid === obj.metadata.uid && deepEqual(current.spec, obj.spec);
}
