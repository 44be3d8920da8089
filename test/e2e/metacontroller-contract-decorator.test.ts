// DecoratorController hook contract against the REAL Metacontroller v4.17.2: targets chosen by
// label or annotation selector; labels and annotations from the hook merged into the target (a
// null value deletes the key, keys the hook does not mention are left alone); an attachment
// created with the decorator-controller annotation and the controller ownerReference, offered
// back in `attachments` with v2 keys, and deleted when no longer returned; the finalizer kept
// on a target until the finalize hook reports finalized; strict decoding of v2 answers.
// Ironhook's baremetalhost-annotations decorator removes consumed one-shot annotations exactly
// this way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness } from '../support/hook-contract.js';
import type { Harness, Obj } from '../support/hook-contract.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('');
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

describe('DecoratorController hook contract (real Metacontroller)', () => {
  it('adds and removes an annotation and manages an attachment', async () => {
    const ns = 'decorate';
    await h.kubectl('create', 'namespace', ns);
    h.hooks.on('/dec/sync', (body) => {
      const target = body.object as Obj;
      const done = target.data?.done === 'true';
      const attachments = done
        ? []
        : [
            {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: `${target.metadata.name}-att` },
              data: { from: Buffer.from(target.metadata.name).toString('base64') },
            },
          ];
      return {
        body: { labels: { 'decorated.example/seen': 'true' }, annotations: { 'decorated.example/by': done ? null : 'decorator' }, status: null, attachments },
      };
    });
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: DecoratorController
metadata: {name: dec}
spec:
  resources:
    - apiVersion: v1
      resource: configmaps
      labelSelector: {matchLabels: {decorate: "yes"}}
  attachments:
    - {apiVersion: v1, resource: secrets, updateStrategy: {method: InPlace}}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url('/dec/sync')}"}}
`);
    await h.apply(`apiVersion: v1
kind: ConfigMap
metadata: {name: target, namespace: ${ns}, labels: {decorate: "yes"}}
data: {done: "false"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored, namespace: ${ns}}
data: {done: "false"}
`);
    const decorated = await eventually('annotation added', async () => {
      const cm = await h.getJSON<Obj>('configmap', 'target', '-n', ns);
      return cm.metadata.annotations?.['decorated.example/by'] === 'decorator' ? cm : undefined;
    });
    expect(decorated.metadata.labels).toEqual({ decorate: 'yes', 'decorated.example/seen': 'true' });
    const attachment = await eventually('attachment created', async () => h.tryGet('secret', 'target-att', '-n', ns));
    expect(attachment.metadata.annotations?.['metacontroller.k8s.io/decorator-controller']).toBe('dec');
    expect(attachment.metadata.ownerReferences).toMatchObject([{ kind: 'ConfigMap', name: 'target', uid: decorated.metadata.uid, controller: true }]);
    await eventually('attachment observed by the hook', () => {
      const last = h.hooks.callsTo('/dec/sync').at(-1);
      const seen = (last?.attachments as Record<string, Record<string, unknown>> | undefined)?.['Secret.v1'];
      return Promise.resolve(seen?.[`${ns}/target-att`] === undefined ? undefined : true);
    });
    expect(h.hooks.callsTo('/dec/sync').every((body) => (body.object as Obj).metadata.name === 'target')).toBe(true);

    // Keys the hook does not mention are not the decorator's: another writer's annotation stays.
    await h.kubectl('annotate', 'configmap', 'target', '-n', ns, 'other.example/keep=yes');
    await h.kubectl('patch', 'configmap', 'target', '-n', ns, '--type=merge', '-p', '{"data":{"done":"true"}}');
    const undecorated = await eventually('annotation removed by a null value', async () => {
      const cm = await h.getJSON<Obj>('configmap', 'target', '-n', ns);
      return cm.metadata.annotations?.['decorated.example/by'] === undefined ? cm : undefined;
    });
    expect(undecorated.metadata.annotations?.['other.example/keep']).toBe('yes');
    expect(undecorated.metadata.labels).toEqual({ decorate: 'yes', 'decorated.example/seen': 'true' });
    await eventually('attachment deleted', async () => ((await h.tryGet('secret', 'target-att', '-n', ns)) === undefined ? true : undefined));
    const ignored = await h.getJSON<Obj>('configmap', 'ignored', '-n', ns);
    expect(ignored.metadata.annotations?.['decorated.example/by']).toBeUndefined();
    expect(ignored.metadata.labels).toBeUndefined();
  });

  it('keeps its finalizer on targets until the finalize hook reports finalized', async () => {
    const ns = 'decorate-final';
    await h.kubectl('create', 'namespace', ns);
    h.hooks.on('/decf/sync', () => ({ body: { attachments: [] } }));
    let finalizeCalls = 0;
    h.hooks.on('/decf/finalize', () => {
      finalizeCalls += 1;
      return { body: { attachments: [], finalized: finalizeCalls >= 2, resyncAfterSeconds: 0.2 } };
    });
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: DecoratorController
metadata: {name: decf}
spec:
  resources:
    - apiVersion: v1
      resource: configmaps
      annotationSelector: {matchAnnotations: {finalize.example/me: "yes"}}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url('/decf/sync')}"}}
    finalize: {version: v2, webhook: {url: "${h.hooks.url('/decf/finalize')}"}}
`);
    await h.apply(`apiVersion: v1
kind: ConfigMap
metadata: {name: guarded, namespace: ${ns}, annotations: {finalize.example/me: "yes"}}
`);
    await eventually('decorator finalizer', async () =>
      (await h.getJSON<Obj>('configmap', 'guarded', '-n', ns)).metadata.finalizers?.includes('metacontroller.io/decoratorcontroller-decf') === true
        ? true
        : undefined,
    );
    await h.kubectl('delete', 'configmap', 'guarded', '-n', ns, '--wait=false');
    await eventually('target gone', async () => ((await h.tryGet('configmap', 'guarded', '-n', ns)) === undefined ? true : undefined));
    expect(finalizeCalls).toBeGreaterThanOrEqual(2);
    expect(h.hooks.callsTo('/decf/finalize').every((body) => body.finalizing === true)).toBe(true);
  });

  it('refuses a v2 decorator response with an unknown field: SyncError on the target, nothing changed', async () => {
    const ns = 'decorate-strict';
    await h.kubectl('create', 'namespace', ns);
    h.hooks.on('/decs/sync', () => ({ body: { annotations: { 'decorated.example/strict': 'yes' }, attachments: [], children: [] } }));
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: DecoratorController
metadata: {name: decs}
spec:
  resources:
    - {apiVersion: v1, resource: configmaps, labelSelector: {matchLabels: {strict: "yes"}}}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url('/decs/sync')}"}}
`);
    await h.apply(`apiVersion: v1
kind: ConfigMap
metadata: {name: strict, namespace: ${ns}, labels: {strict: "yes"}}
`);
    const found = await eventually('SyncError event', async () => {
      const list = await h.warnings(ns, 'strict');
      return list.length > 0 ? list : undefined;
    });
    expect(found[0]).toMatch(
      /^SyncError: Sync error: sync hook failed \(version=v2\): strict validation failed for v2 webhookResponse \(type: sync, mode: strict\): unknown field "children"$/u,
    );
    expect((await h.getJSON<Obj>('configmap', 'strict', '-n', ns)).metadata.annotations?.['decorated.example/strict']).toBeUndefined();
  });
});
