// Hook contract of a CompositeController, pinned against the REAL Metacontroller v4.17.2 (the
// binary scripts/setup-test-binaries.sh builds, run with the chart's flags) and a real
// kube-apiserver, with hooks scripted by the test. Ironhook's hooks are written against exactly
// these behaviours: the v2 request shape; children created / updated in place / deleted with the
// controller-uid label, the controller ownerReference and the last-applied annotation; status
// written with observedGeneration; the finalizer and the finalize hook until `finalized`;
// resyncAfterSeconds; periodic resync under ignoreStatusChanges; HTTP 429 + Retry-After as a
// retry without an error; strict decoding of v2 responses (SyncError event, nothing applied) and
// zero values for missing fields (an empty answer deletes every child); and the refusal of a
// parent CRD without the status subresource. Everything is asserted by waiting for the state:
// Metacontroller coalesces events and is rate-limited like any client-go controller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metacontrollerMetric } from '../../devenv/metacontroller.js';
import { eventually, startHarness, testCRD } from '../support/hook-contract.js';
import type { Harness, Obj } from '../support/hook-contract.js';
import { waitFor } from '../../devenv/processes.js';

const CRDS = `${testCRD('Widget')}---\n${testCRD('Gadget', { statusSubresource: false })}`;

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
${extra}  parentResource:
    apiVersion: test.ironhook.dev/v1
    resource: widgets
    labelSelector: {matchLabels: {test: ${name}}}
  childResources:
    - {apiVersion: v1, resource: configmaps, updateStrategy: {method: InPlace}}
  hooks:
${hooks}`;
}

const hook = (name: string, path: string, extra = ''): string => `    ${name}: {version: v2, webhook: {url: "${h.hooks.url(path)}", timeout: 5s${extra}}}\n`;

async function widget(namespace: string, name: string, controller: string, spec: Record<string, unknown>): Promise<void> {
  await h.apply(JSON.stringify({ apiVersion: 'test.ironhook.dev/v1', kind: 'Widget', metadata: { name, namespace, labels: { test: controller } }, spec }));
}

async function widgetStatus(namespace: string, name: string): Promise<Record<string, unknown> | undefined> {
  return (await h.getJSON<Obj>('widget', name, '-n', namespace)).status;
}

describe('CompositeController hook contract (real Metacontroller)', () => {
  it('creates, updates in place and deletes a ConfigMap child and writes status with observedGeneration', async () => {
    const ns = await h.namespace('children');
    h.hooks.on('/children/sync', (body) => {
      const parent = body.parent as Obj;
      const children =
        parent.spec?.drop === true
          ? []
          : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-cm` }, data: { message: parent.spec?.message } }];
      const observed = (body.children as Record<string, Record<string, unknown>>)['ConfigMap.v1'] ?? {};
      return { body: { status: { observedChildren: Object.keys(observed) }, children } };
    });
    await h.apply(controllerYAML('children', hook('sync', '/children/sync')));
    await widget(ns, 'w1', 'children', { message: 'hello' });

    const cm = await eventually('child ConfigMap', async () => h.tryGet('configmap', 'w1-cm', '-n', ns));
    const parent = await h.getJSON<Obj>('widget', 'w1', '-n', ns);
    expect(cm.data).toEqual({ message: 'hello' });
    expect(cm.metadata.labels).toEqual({ 'controller-uid': parent.metadata.uid });
    expect(cm.metadata.ownerReferences).toEqual([
      { apiVersion: 'test.ironhook.dev/v1', kind: 'Widget', name: 'w1', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(JSON.parse(cm.metadata.annotations?.['metacontroller.k8s.io/last-applied-configuration'] ?? '{}')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'w1-cm', namespace: ns, labels: { 'controller-uid': parent.metadata.uid } },
      data: { message: 'hello' },
    });

    const status = await eventually('status confirming the child', async () => {
      const current = await widgetStatus(ns, 'w1');
      return (current?.observedChildren as string[] | undefined)?.length === 1 ? current : undefined;
    });
    expect(status).toEqual({ observedChildren: [`${ns}/w1-cm`], observedGeneration: 1 });
    // Every declared child type is in the request, also before any child exists.
    expect(h.hooks.callsTo('/children/sync')[0]!.children).toEqual({ 'ConfigMap.v1': {} });
    const request = h.hooks.callsTo('/children/sync').at(-1)!;
    expect(Object.keys(request).sort()).toEqual(['children', 'controller', 'finalizing', 'parent', 'related']);
    expect(request).toMatchObject({ finalizing: false, controller: { kind: 'CompositeController', spec: { hooks: { sync: { version: 'v2' } } } } });
    expect((request.children as Record<string, Record<string, Obj>>)['ConfigMap.v1']?.[`${ns}/w1-cm`]?.metadata.uid).toBe(cm.metadata.uid);

    await h.kubectl('patch', 'widget', 'w1', '-n', ns, '--type=merge', '-p', '{"spec":{"message":"bye"}}');
    const updated = await eventually('child updated in place', async () => {
      const current = await h.tryGet('configmap', 'w1-cm', '-n', ns);
      return current?.data?.message === 'bye' ? current : undefined;
    });
    expect(updated.metadata.uid).toBe(cm.metadata.uid);
    await eventually('observedGeneration 2', async () => ((await widgetStatus(ns, 'w1'))?.observedGeneration === 2 ? true : undefined));

    await h.kubectl('patch', 'widget', 'w1', '-n', ns, '--type=merge', '-p', '{"spec":{"drop":true}}');
    await eventually('child deleted when dropped', async () => ((await h.tryGet('configmap', 'w1-cm', '-n', ns)) === undefined ? true : undefined));
    expect(await h.warnings(ns, 'w1')).toEqual([]);
  });

  it('adds the finalizer and calls finalize on delete until it reports finalized', async () => {
    const ns = await h.namespace('finalize');
    h.hooks.on('/final/sync', () => ({ body: { status: { phase: 'Ready' }, children: [] } }));
    let finalizeCalls = 0;
    h.hooks.on('/final/finalize', () => {
      finalizeCalls += 1;
      return { body: { status: { phase: 'Terminating', attempt: finalizeCalls }, children: [], finalized: finalizeCalls >= 3, resyncAfterSeconds: 0.2 } };
    });
    await h.apply(controllerYAML('final', hook('sync', '/final/sync') + hook('finalize', '/final/finalize')));
    await widget(ns, 'w2', 'final', {});
    await eventually('finalizer added', async () =>
      (await h.getJSON<Obj>('widget', 'w2', '-n', ns)).metadata.finalizers?.includes('metacontroller.io/compositecontroller-final') === true ? true : undefined,
    );
    await eventually('status from sync', async () => ((await widgetStatus(ns, 'w2'))?.phase === 'Ready' ? true : undefined));
    expect(h.hooks.callsTo('/final/finalize')).toHaveLength(0);

    await h.kubectl('delete', 'widget', 'w2', '-n', ns, '--wait=false');
    await eventually('parent gone after finalized', async () => ((await h.tryGet('widget', 'w2', '-n', ns)) === undefined ? true : undefined));
    const calls = h.hooks.callsTo('/final/finalize');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((body) => body.finalizing === true && (body.parent as Obj).metadata.deletionTimestamp !== undefined)).toBe(true);
  });

  it('honours resyncAfterSeconds as a delayed re-sync while nothing changes', async () => {
    const ns = await h.namespace('resync');
    h.hooks.on('/resync/sync', () => ({ body: { status: { steady: true }, children: [], resyncAfterSeconds: 1 } }));
    await h.apply(controllerYAML('resync', hook('sync', '/resync/sync')));
    await widget(ns, 'w3', 'resync', {});
    await eventually('status written', async () => ((await widgetStatus(ns, 'w3'))?.steady === true ? true : undefined));
    // Once the status is steady no event reaches the parent: every further call is a resync.
    await eventually('six syncs', () => Promise.resolve(h.hooks.callsTo('/resync/sync').length >= 6 ? true : undefined), 30_000);
    const times = h.hooks.timedCallsTo('/resync/sync').map((call) => call.at);
    const gaps = times
      .slice(-4)
      .map((time, index, list) => time - (list[index - 1] ?? time))
      .slice(1);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(900);
      expect(gap).toBeLessThan(5000);
    }
  });

  it('keeps resyncing periodically with ignoreStatusChanges, and a spec change still reaches the hook', async () => {
    const ns = await h.namespace('ignore-status');
    h.hooks.on('/quiet/sync', (body) => ({ body: { status: { seen: (body.parent as Obj).spec?.value ?? null }, children: [] } }));
    await h.apply(
      controllerYAML('quiet', hook('sync', '/quiet/sync'), '  resyncPeriodSeconds: 1\n').replace(
        'labelSelector:',
        'ignoreStatusChanges: true\n    labelSelector:',
      ),
    );
    await widget(ns, 'w4', 'quiet', { value: 'a' });
    await eventually('status from the first sync', async () => ((await widgetStatus(ns, 'w4'))?.seen === 'a' ? true : undefined));
    const before = h.hooks.callsTo('/quiet/sync').length;
    await eventually('periodic resyncs', () => Promise.resolve(h.hooks.callsTo('/quiet/sync').length >= before + 3 ? true : undefined), 30_000);
    await h.kubectl('patch', 'widget', 'w4', '-n', ns, '--type=merge', '-p', '{"spec":{"value":"b"}}');
    await eventually('status after the spec change', async () => ((await widgetStatus(ns, 'w4'))?.seen === 'b' ? true : undefined));
  });

  it('retries after Retry-After on HTTP 429 without a SyncError event', async () => {
    const ns = await h.namespace('throttle');
    let calls = 0;
    h.hooks.on('/throttle/sync', () => {
      calls += 1;
      if (calls === 1) return { status: 429, headers: { 'retry-after': '2' }, body: { error: 'busy' } };
      return { body: { status: { served: true }, children: [] } };
    });
    await h.apply(controllerYAML('throttle', hook('sync', '/throttle/sync')));
    await widget(ns, 'w5', 'throttle', {});
    await eventually('status after the 429', async () => ((await widgetStatus(ns, 'w5'))?.served === true ? true : undefined));
    const [first, second] = h.hooks.timedCallsTo('/throttle/sync');
    // Nothing else enqueues the parent between the two calls: the retry waited for Retry-After.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1900);
    expect(await h.warnings(ns, 'w5')).toEqual([]);
    expect(await metacontrollerMetric(h.metacontroller.metricsPort, 'metacontroller_sync_requests_total', { controller_name: 'throttle', code: '429' })).toBe(
      1,
    );
  });

  it.each([
    [
      'an unknown field',
      { status: { x: 1 }, children: [], childern: [] },
      /^SyncError: Sync error: sync hook failed for Widget .*: sync hook failed \(version=v2\): strict validation failed for v2 webhookResponse \(type: sync, mode: strict\): unknown field "childern"$/u,
    ],
    ['a wrongly cased field', { Status: { x: 1 }, children: [] }, /strict validation failed .*: unknown field "Status"$/u],
    ['a duplicated field', '{"status":{"x":1},"children":[],"children":[]}', /strict validation failed .*: duplicate field "children"$/u],
    [
      'a child without kind',
      { status: { x: 1 }, children: [{ apiVersion: 'v1', metadata: { name: 'x' } }] },
      /can't unmarshal webhookResponse \(version: v2, type: sync\): Object 'Kind' is missing/u,
    ],
    ['a top-level array', '[]', /can't unmarshal webhookResponse \(version: v2, type: sync\)/u],
  ])('refuses a v2 response with %s: SyncError on the parent, status not written', async (what, body, error) => {
    const name = `strict-${what.replaceAll(' ', '-')}`;
    const ns = await h.namespace(name);
    h.hooks.on(`/${name}/sync`, () => ({ body }));
    await h.apply(controllerYAML(name, hook('sync', `/${name}/sync`)));
    await widget(ns, 'w', name, {});
    const found = await eventually('SyncError event', async () => {
      const list = await h.warnings(ns, 'w');
      return list.length > 0 ? list : undefined;
    });
    expect(found[0]).toMatch(error);
    expect(await widgetStatus(ns, 'w')).toBeUndefined();
  });

  it('takes an empty v2 response as zero values: no children (so they are deleted) and an empty status', async () => {
    const ns = await h.namespace('empty');
    h.hooks.on('/empty/sync', (body) => {
      const parent = body.parent as Obj;
      if (parent.spec?.empty === true) return { body: {} };
      return { body: { status: { full: true }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept-cm' }, data: { a: 'b' } }] } };
    });
    await h.apply(controllerYAML('empty', hook('sync', '/empty/sync')));
    await widget(ns, 'w', 'empty', {});
    await eventually('child', async () => h.tryGet('configmap', 'kept-cm', '-n', ns));
    await h.kubectl('patch', 'widget', 'w', '-n', ns, '--type=merge', '-p', '{"spec":{"empty":true}}');
    await eventually('child deleted by the empty response', async () => ((await h.tryGet('configmap', 'kept-cm', '-n', ns)) === undefined ? true : undefined));
    await eventually('status replaced', async () => {
      const status = await widgetStatus(ns, 'w');
      return status?.full === undefined && status?.observedGeneration === 2 ? true : undefined;
    });
    expect(await widgetStatus(ns, 'w')).toEqual({ observedGeneration: 2 });
    expect(await h.warnings(ns, 'w')).toEqual([]);
  });

  it('accepts the unknown field when the hook asks for loose decoding', async () => {
    const ns = await h.namespace('loose');
    h.hooks.on('/loose/sync', () => ({ body: { status: { loose: true }, children: [], childern: [] } }));
    await h.apply(controllerYAML('loose', hook('sync', '/loose/sync', ', responseUnMarshallMode: loose')));
    await widget(ns, 'w', 'loose', {});
    await eventually('status despite the unknown field', async () => ((await widgetStatus(ns, 'w'))?.loose === true ? true : undefined));
    expect(await h.warnings(ns, 'w')).toEqual([]);
  });

  it('refuses a CompositeController whose parent CRD has no status subresource, until it has one', async () => {
    const ns = await h.namespace('no-status');
    h.hooks.on('/no-status/sync', () => ({ body: { status: { seen: true }, children: [] } }));
    await h.apply(`apiVersion: test.ironhook.dev/v1
kind: Gadget
metadata: {name: g1, namespace: ${ns}}
spec: {}
`);
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata: {name: no-status}
spec:
  generateSelector: true
  parentResource: {apiVersion: test.ironhook.dev/v1, resource: gadgets}
  hooks:
${hook('sync', '/no-status/sync')}`);
    const found = await eventually('SyncError on the CompositeController', async () => {
      const list = await h.warnings('default', 'no-status');
      return list.length > 0 ? list : undefined;
    });
    expect(found).toEqual([
      "SyncError: [no-status] Sync error - ignoring, CRD [apiextensions.k8s.io/v1, Kind=CustomResourceDefinition] does not have subresource 'Status' enabled",
    ]);
    expect(h.log()).toMatch(/"Ignoring CompositeController".*"name":"no-status".*"reason":"subresource 'Status' not enabled"/u);
    // The reconcile that recorded the warning returned without starting a controller.
    expect((await h.events('default', 'no-status')).map((event) => event.reason)).not.toContain('Started');
    expect(h.hooks.callsTo('/no-status/sync')).toHaveLength(0);

    // With the subresource declared, the next reconcile of the CompositeController starts it. A
    // started controller keeps the discovery snapshot of its start (whether gadgets/status exists;
    // without it the status write goes to the main resource and is dropped), so each poke changes
    // the spec, which restarts the controller, until Metacontroller's discovery has caught up.
    await h.kubectl(
      'patch',
      'crd',
      'gadgets.test.ironhook.dev',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/spec/versions/0/subresources","value":{"status":{}}}]',
    );
    let poke = 0;
    await waitFor(
      'the controller started once the CRD has status',
      async () => {
        poke += 1;
        await h.kubectl('patch', 'compositecontroller', 'no-status', '--type=merge', '-p', JSON.stringify({ spec: { resyncPeriodSeconds: 3600 + poke } }));
        return (await h.getJSON<Obj>('gadget', 'g1', '-n', ns)).status?.seen === true;
      },
      60_000,
      1000,
    );
    expect((await h.events('default', 'no-status')).map((event) => event.reason)).toContain('Started');
  });
});
