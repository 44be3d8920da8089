// The customize hook through the stand-in: related objects selected by namespace + names and by
// label selector (cluster-scoped Namespaces included under v2), delivered in `related` with v2
// keys, and a change to a related object triggering a new sync of the parent.
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
`;

type ObjectMap = Record<string, Record<string, { metadata: { name: string }; data?: Record<string, string> }>>;

let h: Harness;

beforeAll(async () => {
  h = await startHarness(CRDS);
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

describe('customize hook through the stand-in', () => {
  it('delivers the related objects the customize hook selects and re-syncs when one changes', async () => {
    await h.apply(`apiVersion: v1
kind: Namespace
metadata: {name: shared, labels: {team: blue}}
---
apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: defaults, namespace: shared}
data: {colour: red}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated, namespace: shared}
data: {colour: green}
`);
    h.hooks.on('/rel/customize', (body) => {
      const parent = body.parent as { spec: { from: string } };
      return {
        body: {
          relatedResources: [
            { apiVersion: 'v1', resource: 'configmaps', namespace: parent.spec.from, names: ['defaults'] },
            { apiVersion: 'v1', resource: 'namespaces', labelSelector: { matchLabels: { team: 'blue' } } },
          ],
        },
      };
    });
    h.hooks.on('/rel/sync', (body) => {
      const related = body.related as ObjectMap;
      return { body: { status: { colour: related['ConfigMap.v1']?.['shared/defaults']?.data?.colour ?? 'none' }, children: [] } };
    });
    await h.apply(`apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata: {name: rel}
spec:
  generateSelector: true
  parentResource: {apiVersion: test.ironhook.dev/v1, resource: widgets}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url('/rel/sync')}"}}
    customize: {version: v2, webhook: {url: "${h.hooks.url('/rel/customize')}"}}
`);
    await h.apply(`apiVersion: test.ironhook.dev/v1
kind: Widget
metadata: {name: w, namespace: app}
spec: {from: shared}
`);
    await eventually('status from the related ConfigMap', async () => ((await h.getJSON<{ status?: { colour?: string } }>('widget', 'w', '-n', 'app')).status?.colour === 'red' ? true : undefined));
    const request = h.hooks.callsTo('/rel/sync').at(-1)!;
    const related = request.related as ObjectMap;
    expect(Object.keys(related).sort()).toEqual(['ConfigMap.v1', 'Namespace.v1']);
    expect(Object.keys(related['ConfigMap.v1'] ?? {})).toEqual(['shared/defaults']);
    expect(Object.keys(related['Namespace.v1'] ?? {})).toEqual(['shared']);
    const customize = h.hooks.callsTo('/rel/customize')[0]!;
    expect(Object.keys(customize).sort()).toEqual(['controller', 'parent']);

    await h.kubectl('patch', 'configmap', 'defaults', '-n', 'shared', '--type=merge', '-p', '{"data":{"colour":"blue"}}');
    await eventually('re-sync on the related change', async () => ((await h.getJSON<{ status?: { colour?: string } }>('widget', 'w', '-n', 'app')).status?.colour === 'blue' ? true : undefined));
    // One customize call per parent generation: the related change did not ask again.
    expect(new Set(h.hooks.callsTo('/rel/customize').map((body) => (body.parent as { metadata: { generation: number } }).metadata.generation))).toEqual(new Set([1]));
  });
});
