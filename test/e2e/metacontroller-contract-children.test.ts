// How the REAL Metacontroller v4.17.2 applies the children a sync hook returns (its default
// client-side "dynamic-apply", the chart's choice): an InPlace child is updated by a 3-way merge
// of the observed object, the last applied desired object (annotation
// metacontroller.k8s.io/last-applied-configuration) and the new desired object, so fields that
// other writers own survive, fields the hook stops returning are removed, and drift in fields the
// hook owns is put back; an OnDelete child (Ironhook's request objects such as HostOperations)
// is never rewritten, only recreated with the new content after someone deletes it. Ironhook's
// hooks rely on both: they return only the fields they own, and treat an OnDelete child as an
// immutable request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, testCRD } from '../support/hook-contract.js';
import type { Harness, Obj } from '../support/hook-contract.js';

const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

let h: Harness;

beforeAll(async () => {
  h = await startHarness(`${testCRD('Widget')}---\n${testCRD('Part')}`);
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

function controllerYAML(name: string, method: string, resource = 'configmaps'): string {
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
    - {apiVersion: ${resource === 'configmaps' ? 'v1' : 'test.ironhook.dev/v1'}, resource: ${resource}, updateStrategy: {method: ${method}}}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url(`/${name}/sync`)}", timeout: 5s}}
`;
}

interface WidgetSpec {
  message: string;
  extra?: boolean;
  noAnnotations?: boolean;
}

/**
 * The hook's desired child: data.message always; data.extra and one annotation only with
 * spec.extra; the annotations map itself (empty without spec.extra) unless spec.noAnnotations.
 */
function desiredChild(parent: Obj): Record<string, unknown> {
  const spec = parent.spec as unknown as WidgetSpec;
  const annotations = spec.extra === true ? { 'hook.example/extra': 'yes' } : {};
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${parent.metadata.name}-cm`,
      labels: { 'hook.example/owned': 'yes' },
      ...(spec.noAnnotations === true ? {} : { annotations }),
    },
    data: { message: spec.message, ...(spec.extra === true ? { extra: 'yes' } : {}) },
  };
}

function serve(name: string): void {
  h.hooks.on(`/${name}/sync`, (body) => {
    const parent = body.parent as Obj;
    return { body: { status: { message: (parent.spec as unknown as WidgetSpec).message }, children: [desiredChild(parent)] } };
  });
}

async function widget(namespace: string, name: string, controller: string, spec: WidgetSpec): Promise<void> {
  await h.apply(JSON.stringify({ apiVersion: 'test.ironhook.dev/v1', kind: 'Widget', metadata: { name, namespace, labels: { test: controller } }, spec }));
}

async function patchSpec(namespace: string, name: string, spec: Partial<WidgetSpec>): Promise<void> {
  await h.kubectl('patch', 'widget', name, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec }));
}

/** Status written by the sync that saw `message`: that sync's child changes are already applied. */
async function syncedWith(namespace: string, name: string, message: string): Promise<void> {
  await eventually(`status.message ${message}`, async () => {
    const parent = await h.getJSON<Obj>('widget', name, '-n', namespace);
    return parent.status?.message === message && parent.status.observedGeneration === parent.metadata.generation ? true : undefined;
  });
}

async function childWith(namespace: string, name: string, message: string): Promise<Obj> {
  return eventually(`child with data.message ${message}`, async () => {
    const child = await h.tryGet('configmap', name, '-n', namespace);
    return child?.data?.message === message ? child : undefined;
  });
}

describe('child apply semantics (real Metacontroller)', () => {
  it('InPlace: the 3-way merge keeps what other writers set and removes what the hook stopped setting', async () => {
    const ns = await h.namespace('three-way');
    serve('merge');
    await h.apply(controllerYAML('merge', 'InPlace'));
    await widget(ns, 'w', 'merge', { message: 'one', extra: true });
    const created = await childWith(ns, 'w-cm', 'one');
    expect(created.data).toEqual({ message: 'one', extra: 'yes' });
    expect(created.metadata.annotations?.['hook.example/extra']).toBe('yes');

    // Another writer adds a label, an annotation and a data key the hook never sets.
    await h.kubectl('label', 'configmap', 'w-cm', '-n', ns, 'other.example/team=blue');
    await h.kubectl('annotate', 'configmap', 'w-cm', '-n', ns, 'other.example/keep=yes');
    await h.kubectl('patch', 'configmap', 'w-cm', '-n', ns, '--type=merge', '-p', '{"data":{"other":"theirs"}}');

    // The hook changes a field and stops returning data.extra and its annotation.
    await patchSpec(ns, 'w', { message: 'two', extra: false });
    const updated = await childWith(ns, 'w-cm', 'two');
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect(updated.data).toEqual({ message: 'two', other: 'theirs' });
    expect(updated.metadata.labels).toMatchObject({ 'hook.example/owned': 'yes', 'other.example/team': 'blue' });
    expect(updated.metadata.annotations?.['other.example/keep']).toBe('yes');
    expect(updated.metadata.annotations?.['hook.example/extra']).toBeUndefined();
    const lastApplied = JSON.parse(updated.metadata.annotations?.[LAST_APPLIED] ?? '{}') as Obj;
    expect(lastApplied.data).toEqual({ message: 'two' });
    expect(lastApplied.metadata.annotations).toEqual({});

    // Further syncs keep the other writer's fields.
    await patchSpec(ns, 'w', { message: 'three' });
    await syncedWith(ns, 'w', 'three');
    const later = await childWith(ns, 'w-cm', 'three');
    expect(later.data).toEqual({ message: 'three', other: 'theirs' });
    expect(later.metadata.labels?.['other.example/team']).toBe('blue');
    expect(later.metadata.annotations?.['other.example/keep']).toBe('yes');
  });

  it('InPlace: a map the hook stops returning altogether goes, with what others put in it', async () => {
    const ns = await h.namespace('dropped-map');
    serve('dropmap');
    await h.apply(controllerYAML('dropmap', 'InPlace'));
    await widget(ns, 'w', 'dropmap', { message: 'one', extra: true });
    await childWith(ns, 'w-cm', 'one');
    await h.kubectl('annotate', 'configmap', 'w-cm', '-n', ns, 'other.example/keep=yes');
    // The last applied object had metadata.annotations; the new desired object has none, so the
    // merge deletes the whole map (Metacontroller then adds back only its own annotation).
    await patchSpec(ns, 'w', { message: 'two', extra: false, noAnnotations: true });
    const updated = await childWith(ns, 'w-cm', 'two');
    expect(Object.keys(updated.metadata.annotations ?? {})).toEqual([LAST_APPLIED]);
  });

  it('InPlace: a field the hook owns is put back when someone else changes it', async () => {
    const ns = await h.namespace('drift');
    serve('drift');
    await h.apply(controllerYAML('drift', 'InPlace'));
    await widget(ns, 'w', 'drift', { message: 'mine' });
    const created = await childWith(ns, 'w-cm', 'mine');
    await h.kubectl('patch', 'configmap', 'w-cm', '-n', ns, '--type=merge', '-p', '{"data":{"message":"hacked","other":"theirs"}}');
    // The child's update event re-syncs the parent; the merge writes the desired value again.
    const restored = await childWith(ns, 'w-cm', 'mine');
    expect(restored.metadata.uid).toBe(created.metadata.uid);
    expect(restored.data).toEqual({ message: 'mine', other: 'theirs' });
  });

  it('OnDelete: a child is never rewritten, and is recreated with the new content once deleted', async () => {
    const ns = await h.namespace('on-delete');
    serve('ondelete');
    await h.apply(controllerYAML('ondelete', 'OnDelete'));
    await widget(ns, 'w', 'ondelete', { message: 'first', extra: true });
    const created = await childWith(ns, 'w-cm', 'first');
    await syncedWith(ns, 'w', 'first');

    await patchSpec(ns, 'w', { message: 'second', extra: false });
    // The sync that returned the new desired child has run its apply step (status comes after it).
    await syncedWith(ns, 'w', 'second');
    // A child event forces more syncs with the new desired child; still nothing is written.
    await h.kubectl('annotate', 'configmap', 'w-cm', '-n', ns, 'other.example/poke=1');
    await patchSpec(ns, 'w', { message: 'third' });
    await syncedWith(ns, 'w', 'third');
    const unchanged = await h.getJSON<Obj>('configmap', 'w-cm', '-n', ns);
    expect(unchanged.metadata.uid).toBe(created.metadata.uid);
    expect(unchanged.data).toEqual({ message: 'first', extra: 'yes' });
    expect(unchanged.metadata.annotations?.['hook.example/extra']).toBe('yes');
    expect(JSON.parse(unchanged.metadata.annotations?.[LAST_APPLIED] ?? '{}')).toMatchObject({ data: { message: 'first', extra: 'yes' } });

    await h.kubectl('delete', 'configmap', 'w-cm', '-n', ns);
    const recreated = await childWith(ns, 'w-cm', 'third');
    expect(recreated.metadata.uid).not.toBe(created.metadata.uid);
    expect(recreated.data).toEqual({ message: 'third' });
    expect(recreated.metadata.annotations?.['hook.example/extra']).toBeUndefined();
    expect(recreated.metadata.annotations?.['other.example/poke']).toBeUndefined();
  });

  it('InPlace: a child status is never written from the hook; what its owner wrote stays', async () => {
    const ns = await h.namespace('child-status');
    h.hooks.on('/partstatus/sync', (body) => {
      const parent = body.parent as Obj;
      const message = (parent.spec as unknown as WidgetSpec).message;
      const part = {
        apiVersion: 'test.ironhook.dev/v1',
        kind: 'Part',
        metadata: { name: `${parent.metadata.name}-part` },
        spec: { message },
        status: { fromHook: message },
      };
      return { body: { status: { message }, children: [part] } };
    });
    await h.apply(controllerYAML('partstatus', 'InPlace', 'parts'));
    await widget(ns, 'w', 'partstatus', { message: 'one' });
    const created = await eventually('Part child', async () => h.tryGet('part', 'w-part', '-n', ns));
    expect(created.spec).toEqual({ message: 'one' });
    expect(created.status).toBeUndefined();

    // The child's owner (for Ironhook: the driver pool) writes its status.
    await h.kubectl('patch', 'part', 'w-part', '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Done"}}');
    await patchSpec(ns, 'w', { message: 'two' });
    const updated = await eventually('Part spec updated', async () => {
      const part = await h.tryGet('part', 'w-part', '-n', ns);
      return part?.spec?.message === 'two' ? part : undefined;
    });
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect(updated.status).toEqual({ phase: 'Done' });
  });
});
