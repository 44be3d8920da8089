// DecoratorController through the stand-in against a real kube-apiserver: targets chosen by
// label selector, annotations added and removed (null deletes), an attachment created with the
// decorator annotation and controller ownerReference and deleted when no longer returned, and
// the finalize hook on delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness } from '../support/metacontroller/testing/harness.js';
import type { Harness } from '../support/metacontroller/testing/harness.js';

interface Obj {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness('');
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

async function tryGet(...args: string[]): Promise<Obj | undefined> {
  try {
    return await h.getJSON<Obj>(...args);
  } catch {
    return undefined;
  }
}

describe('DecoratorController through the stand-in', () => {
  it('adds and removes an annotation and manages an attachment', async () => {
    const ns = 'decorate';
    await h.kubectl('create', 'namespace', ns);
    h.hooks.on('/dec/sync', (body) => {
      const target = body.object as Obj;
      const done = target.data?.done === 'true';
      const attachments = done ? [] : [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${target.metadata.name}-att` }, stringData: { from: target.metadata.name } }];
      return { body: { labels: { 'decorated.example/seen': 'true' }, annotations: { 'decorated.example/by': done ? null : 'stand-in' }, status: null, attachments } };
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
      return cm.metadata.annotations?.['decorated.example/by'] === 'stand-in' ? cm : undefined;
    });
    expect(decorated.metadata.labels).toEqual({ decorate: 'yes', 'decorated.example/seen': 'true' });
    const attachment = await eventually('attachment created', async () => tryGet('secret', 'target-att', '-n', ns));
    expect(attachment.metadata.annotations?.['metacontroller.k8s.io/decorator-controller']).toBe('dec');
    expect(attachment.metadata.ownerReferences).toMatchObject([{ kind: 'ConfigMap', name: 'target', uid: decorated.metadata.uid, controller: true }]);
    await eventually('attachment observed by the hook', () => {
      const last = h.hooks.callsTo('/dec/sync').at(-1);
      const seen = (last?.attachments as Record<string, Record<string, unknown>> | undefined)?.['Secret.v1'];
      return Promise.resolve(seen?.[`${ns}/target-att`] === undefined ? undefined : true);
    });
    expect(h.hooks.callsTo('/dec/sync').every((body) => (body.object as Obj).metadata.name === 'target')).toBe(true);

    await h.kubectl('patch', 'configmap', 'target', '-n', ns, '--type=merge', '-p', '{"data":{"done":"true"}}');
    await eventually('annotation removed', async () => ((await h.getJSON<Obj>('configmap', 'target', '-n', ns)).metadata.annotations?.['decorated.example/by'] === undefined ? true : undefined));
    await eventually('attachment deleted', async () => ((await tryGet('secret', 'target-att', '-n', ns)) === undefined ? true : undefined));
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
    await eventually('decorator finalizer', async () => ((await h.getJSON<Obj>('configmap', 'guarded', '-n', ns)).metadata.finalizers?.includes('metacontroller.io/decoratorcontroller-decf') === true ? true : undefined));
    await h.kubectl('delete', 'configmap', 'guarded', '-n', ns, '--wait=false');
    await eventually('target gone', async () => ((await tryGet('configmap', 'guarded', '-n', ns)) === undefined ? true : undefined));
    expect(finalizeCalls).toBeGreaterThanOrEqual(2);
    expect(h.hooks.callsTo('/decf/finalize').every((body) => body.finalizing === true)).toBe(true);
  });
});
