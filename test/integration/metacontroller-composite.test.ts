// The Metacontroller stand-in against a real kube-apiserver, with hooks served by the test:
// children created / updated in place / deleted, status with observedGeneration, finalizer and
// finalize hook, resyncAfterSeconds, HTTP 429, strict v2 decoding errors as SyncError events,
// and the parent-CRD status subresource check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness } from '../support/metacontroller/testing/harness.js';
import type { Harness } from '../support/metacontroller/testing/harness.js';

const CRDS = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.test.ironhook.dev}
spec:
  group: test.ironhook.dev
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
            status: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.ironhook.dev}
spec:
  group: test.ironhook.dev
  scope: Namespaced
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
            status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

interface Obj {
  metadata: {
    name: string;
    uid: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness(CRDS);
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

function controllerYAML(name: string, hooks: string, extra = ''): string {
  return `apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata: {name: ${name}}
spec:
  generateSelector: true
  parentResource:
    apiVersion: test.ironhook.dev/v1
    resource: widgets
    labelSelector: {matchLabels: {test: ${name}}}
  childResources:
    - {apiVersion: v1, resource: configmaps, updateStrategy: {method: InPlace}}
${extra}  hooks:
${hooks}`;
}

const hook = (name: string, path: string): string => `    ${name}: {version: v2, webhook: {url: "${h.hooks.url(path)}", timeout: 5s}}\n`;

async function widget(namespace: string, name: string, controller: string, spec: Record<string, unknown>): Promise<void> {
  await h.apply(JSON.stringify({ apiVersion: 'test.ironhook.dev/v1', kind: 'Widget', metadata: { name, namespace, labels: { test: controller } }, spec }));
}

async function tryGet(...args: string[]): Promise<Obj | undefined> {
  try {
    return await h.getJSON<Obj>(...args);
  } catch {
    return undefined;
  }
}

async function namespace(name: string): Promise<string> {
  await h.kubectl('create', 'namespace', name);
  return name;
}

async function warnings(ns: string, name: string): Promise<string[]> {
  const list = await h.getJSON<{ items: { reason: string; message: string; type: string }[] }>('events', '-n', ns, '--field-selector', `involvedObject.name=${name}`);
  return list.items.filter((event) => event.type === 'Warning').map((event) => `${event.reason}: ${event.message}`);
}

describe('CompositeController through the stand-in', () => {
  it('creates, updates in place and deletes a ConfigMap child and writes status with observedGeneration', async () => {
    const ns = await namespace('children');
    h.hooks.on('/children/sync', (body) => {
      const parent = body.parent as Obj;
      const children = parent.spec?.drop === true ? [] : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-cm` }, data: { message: parent.spec?.message } }];
      const observed = (body.children as Record<string, Record<string, unknown>>)['ConfigMap.v1'] ?? {};
      return { body: { status: { observedChildren: Object.keys(observed) }, children } };
    });
    await h.apply(controllerYAML('children', hook('sync', '/children/sync')));
    await widget(ns, 'w1', 'children', { message: 'hello' });

    const cm = await eventually('child ConfigMap', async () => tryGet('configmap', 'w1-cm', '-n', ns));
    const parent = await h.getJSON<Obj>('widget', 'w1', '-n', ns);
    expect(cm.data).toEqual({ message: 'hello' });
    expect(cm.metadata.labels).toEqual({ 'controller-uid': parent.metadata.uid });
    expect(cm.metadata.ownerReferences).toEqual([{ apiVersion: 'test.ironhook.dev/v1', kind: 'Widget', name: 'w1', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(JSON.parse(cm.metadata.annotations?.['metacontroller.k8s.io/last-applied-configuration'] ?? '{}')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'w1-cm', namespace: ns, labels: { 'controller-uid': parent.metadata.uid } },
      data: { message: 'hello' },
    });

    const withStatus = await eventually('status confirming the child', async () => {
      const current = await h.getJSON<Obj>('widget', 'w1', '-n', ns);
      return (current.status?.observedChildren as string[] | undefined)?.length === 1 ? current : undefined;
    });
    expect(withStatus.status).toEqual({ observedChildren: [`${ns}/w1-cm`], observedGeneration: 1 });
    const request = h.hooks.callsTo('/children/sync').at(-1)!;
    expect(Object.keys(request).sort()).toEqual(['children', 'controller', 'finalizing', 'parent', 'related']);
    expect(request).toMatchObject({ finalizing: false, related: {}, controller: { kind: 'CompositeController', spec: { hooks: { sync: { version: 'v2' } } } } });
    expect((request.children as Record<string, Record<string, Obj>>)['ConfigMap.v1']?.[`${ns}/w1-cm`]?.metadata.uid).toBe(cm.metadata.uid);

    // Someone else's annotation survives the 3-way merge; the hook's change is applied in place.
    await h.kubectl('annotate', 'configmap', 'w1-cm', '-n', ns, 'other.example/keep=yes');
    await h.kubectl('patch', 'widget', 'w1', '-n', ns, '--type=merge', '-p', '{"spec":{"message":"bye"}}');
    const updated = await eventually('child updated in place', async () => {
      const current = await tryGet('configmap', 'w1-cm', '-n', ns);
      return current?.data?.message === 'bye' ? current : undefined;
    });
    expect(updated.metadata.uid).toBe(cm.metadata.uid);
    expect(updated.metadata.annotations?.['other.example/keep']).toBe('yes');
    await eventually('observedGeneration 2', async () => ((await h.getJSON<Obj>('widget', 'w1', '-n', ns)).status?.observedGeneration === 2 ? true : undefined));

    await h.kubectl('patch', 'widget', 'w1', '-n', ns, '--type=merge', '-p', '{"spec":{"drop":true}}');
    await eventually('child deleted when dropped', async () => ((await tryGet('configmap', 'w1-cm', '-n', ns)) === undefined ? true : undefined));
  });

  it('adds the finalizer and calls finalize on delete until it reports finalized', async () => {
    const ns = await namespace('finalize');
    h.hooks.on('/final/sync', () => ({ body: { status: { phase: 'Ready' }, children: [] } }));
    let finalizeCalls = 0;
    h.hooks.on('/final/finalize', () => {
      finalizeCalls += 1;
      return { body: { status: { phase: 'Terminating', attempt: finalizeCalls }, children: [], finalized: finalizeCalls >= 3, resyncAfterSeconds: 0.2 } };
    });
    await h.apply(controllerYAML('final', hook('sync', '/final/sync') + hook('finalize', '/final/finalize')));
    await widget(ns, 'w2', 'final', {});
    await eventually('finalizer added', async () => ((await h.getJSON<Obj>('widget', 'w2', '-n', ns)).metadata.finalizers?.includes('metacontroller.io/compositecontroller-final') === true ? true : undefined));
    expect(h.hooks.callsTo('/final/finalize')).toHaveLength(0);

    await h.kubectl('delete', 'widget', 'w2', '-n', ns, '--wait=false');
    await eventually('parent gone after finalized', async () => ((await tryGet('widget', 'w2', '-n', ns)) === undefined ? true : undefined));
    const calls = h.hooks.callsTo('/final/finalize');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((body) => body.finalizing === true)).toBe(true);
  });

  it('honours resyncAfterSeconds as a one-shot delayed re-sync', async () => {
    const ns = await namespace('resync');
    const times: number[] = [];
    h.hooks.on('/resync/sync', () => {
      times.push(Date.now());
      return { body: { status: { steady: true }, children: [], resyncAfterSeconds: 1 } };
    });
    await h.apply(controllerYAML('resync', hook('sync', '/resync/sync')));
    await widget(ns, 'w3', 'resync', {});
    await eventually('five syncs', () => Promise.resolve(times.length >= 5 ? true : undefined), 20_000);
    const gaps = times.slice(-3).map((time, index, list) => (index === 0 ? 0 : time - (list[index - 1] ?? 0))).slice(1);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(900);
      expect(gap).toBeLessThan(3000);
    }
  });

  it('retries after Retry-After on HTTP 429 without a SyncError event', async () => {
    const ns = await namespace('throttle');
    let calls = 0;
    h.hooks.on('/throttle/sync', () => {
      calls += 1;
      if (calls === 1) return { status: 429, headers: { 'retry-after': '1' }, body: { error: 'busy' } };
      return { body: { status: { served: true }, children: [] } };
    });
    await h.apply(controllerYAML('throttle', hook('sync', '/throttle/sync')));
    await widget(ns, 'w4', 'throttle', {});
    await eventually('status after the 429', async () => ((await h.getJSON<Obj>('widget', 'w4', '-n', ns)).status?.served === true ? true : undefined));
    expect(await warnings(ns, 'w4')).toEqual([]);
  });

  it('refuses a v2 response with an unknown field and records SyncError on the parent', async () => {
    const ns = await namespace('strict');
    h.hooks.on('/strict/sync', () => ({ body: { status: {}, children: [], childern: [] } }));
    await h.apply(controllerYAML('strict', hook('sync', '/strict/sync')));
    await widget(ns, 'w5', 'strict', {});
    const found = await eventually('SyncError event', async () => {
      const list = await warnings(ns, 'w5');
      return list.length > 0 ? list : undefined;
    });
    expect(found[0]).toMatch(/^SyncError: .*unknown field "childern"/u);
    expect((await h.getJSON<Obj>('widget', 'w5', '-n', ns)).status).toBeUndefined();
  });

  it('does not start a CompositeController whose parent CRD has no status subresource', async () => {
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata: {name: no-status}
spec:
  parentResource: {apiVersion: test.ironhook.dev/v1, resource: gadgets}
  hooks:
${hook('sync', '/no-status/sync')}`);
    const found = await eventually('SyncError on the CompositeController', async () => {
      const list = await warnings('default', 'no-status');
      return list.length > 0 ? list : undefined;
    });
    expect(found[0]).toMatch(/^SyncError: .*no status subresource/u);
  });
});
