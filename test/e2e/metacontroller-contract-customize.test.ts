// The customize hook against the REAL Metacontroller v4.17.2: related objects selected by
// namespace + names and by label selector (cluster-scoped Namespaces included under v2) are
// delivered in `related` with v2 keys (`namespace/name`, or `name` for cluster-scoped objects),
// the customize request carries only controller and parent, a change to a related object
// re-syncs the parent, the customize answer is cached per parent generation, and a customize
// answer that v2's strict decoding refuses (a misspelled selector field would otherwise select
// everything) fails the sync before the sync hook is called. Ironhook's IPAM and Metal3Data
// hooks read their pools, templates and claims this way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, testCRD } from '../support/hook-contract.js';
import type { Harness } from '../support/hook-contract.js';

type ObjectMap = Record<string, Record<string, { metadata: { name: string }; data?: Record<string, string> }>>;

let h: Harness;

beforeAll(async () => {
  h = await startHarness(testCRD('Widget'));
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

/** A CompositeController of Widgets labelled test=<name>, with sync and customize hooks under /<name>/. */
function customizeController(name: string): string {
  return `apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata: {name: ${name}}
spec:
  generateSelector: true
  parentResource: {apiVersion: test.ironhook.dev/v1, resource: widgets, labelSelector: {matchLabels: {test: ${name}}}}
  hooks:
    sync: {version: v2, webhook: {url: "${h.hooks.url(`/${name}/sync`)}"}}
    customize: {version: v2, webhook: {url: "${h.hooks.url(`/${name}/customize`)}"}}
`;
}

describe('customize hook contract (real Metacontroller)', () => {
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
    await h.apply(customizeController('rel'));
    await h.apply(`apiVersion: test.ironhook.dev/v1
kind: Widget
metadata: {name: w, namespace: app, labels: {test: rel}}
spec: {from: shared}
`);
    await eventually('status from the related ConfigMap', async () =>
      (await h.getJSON<{ status?: { colour?: string } }>('widget', 'w', '-n', 'app')).status?.colour === 'red' ? true : undefined,
    );
    const request = h.hooks.callsTo('/rel/sync').at(-1)!;
    const related = request.related as ObjectMap;
    expect(Object.keys(related).sort()).toEqual(['ConfigMap.v1', 'Namespace.v1']);
    expect(Object.keys(related['ConfigMap.v1'] ?? {})).toEqual(['shared/defaults']);
    expect(Object.keys(related['Namespace.v1'] ?? {})).toEqual(['shared']);
    const customize = h.hooks.callsTo('/rel/customize')[0]!;
    expect(Object.keys(customize).sort()).toEqual(['controller', 'parent']);

    await h.kubectl('patch', 'configmap', 'defaults', '-n', 'shared', '--type=merge', '-p', '{"data":{"colour":"blue"}}');
    await eventually('re-sync on the related change', async () =>
      (await h.getJSON<{ status?: { colour?: string } }>('widget', 'w', '-n', 'app')).status?.colour === 'blue' ? true : undefined,
    );
    // One customize call per parent generation: the related change did not ask again.
    expect(new Set(h.hooks.callsTo('/rel/customize').map((body) => (body.parent as { metadata: { generation: number } }).metadata.generation))).toEqual(
      new Set([1]),
    );
  });

  it.each([
    [
      'a misspelled selector field',
      { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', labelSelector: { matchLabel: { a: 'b' } } }] },
      /^SyncError: Sync error: strict validation failed for v2 webhookResponse \(type: customize, mode: strict\): unknown field "relatedResources\[0\]\.labelSelector\.matchLabel"$/u,
    ],
    [
      'a bare array of rules',
      [{ apiVersion: 'v1', resource: 'secrets' }],
      /^SyncError: Sync error: can't unmarshal webhookResponse \(version: v2, type: customize\)/u,
    ],
  ])('refuses a v2 customize response with %s: SyncError, no sync call', async (what, answer, error) => {
    const name = `customize-${what.replaceAll(' ', '-')}`;
    await h.kubectl('create', 'namespace', name);
    h.hooks.on(`/${name}/customize`, () => ({ body: answer }));
    h.hooks.on(`/${name}/sync`, () => ({ body: { status: { synced: true }, children: [] } }));
    await h.apply(customizeController(name));
    await h.apply(`apiVersion: test.ironhook.dev/v1
kind: Widget
metadata: {name: w, namespace: ${name}, labels: {test: ${name}}}
spec: {}
`);
    const found = await eventually('SyncError event', async () => {
      const list = await h.warnings(name, 'w');
      return list.length > 0 ? list : undefined;
    });
    expect(found[0]).toMatch(error);
    expect(h.hooks.callsTo(`/${name}/sync`)).toHaveLength(0);
  });
});
