// manifests/controllers/baremetalhost.yaml wires the CRDs to Metacontroller as
// docs/architecture.md ("Controllers") describes: which resources, which update strategies,
// which hooks. The live behaviour is exercised by the environment e2e tests.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, loadCrds, readManifests } from '../support/crds.js';

interface Hook {
  version?: string;
  webhook?: { url?: string; timeout?: string };
}

interface ResourceRule {
  apiVersion: string;
  resource: string;
  updateStrategy?: { method?: string };
}

interface ControllerSpec {
  generateSelector?: boolean;
  resyncPeriodSeconds?: number;
  parentResource?: ResourceRule & { ignoreStatusChanges?: boolean };
  childResources?: ResourceRule[];
  resources?: ResourceRule[];
  hooks: Record<string, Hook>;
}

const objects = readManifests(join(ROOT, 'manifests', 'controllers', 'baremetalhost.yaml')) as unknown as {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: ControllerSpec;
}[];
const composite = objects.find((o) => o.kind === 'CompositeController')!;
const decorator = objects.find((o) => o.kind === 'DecoratorController')!;
const crds = loadCrds();

/** The CRD serving `apiVersion` + `resource`, if this repository ships it. */
function crdFor(rule: ResourceRule) {
  const [group, version] = rule.apiVersion.split('/');
  return crds.find((c) => c.crd.spec.group === group && c.crd.spec.names.plural === rule.resource && c.version.name === version);
}

describe('Metacontroller objects for BareMetalHost', () => {
  it('are one CompositeController and one DecoratorController with the documented names', () => {
    expect(objects.map((o) => [o.apiVersion, o.kind, o.metadata.name])).toEqual([
      ['metacontroller.k8s.io/v1alpha1', 'CompositeController', 'ironhook-baremetalhost'],
      ['metacontroller.k8s.io/v1alpha1', 'DecoratorController', 'baremetalhost-annotations'],
    ]);
  });

  it('the composite parent is baremetalhosts, a CRD with the status subresource (Metacontroller requires it)', () => {
    const parent = composite.spec.parentResource!;
    expect(parent).toMatchObject({ apiVersion: 'metal3.io/v1alpha1', resource: 'baremetalhosts', ignoreStatusChanges: false });
    expect(crdFor(parent)?.version.subresources?.status).toEqual({});
    expect(composite.spec).toMatchObject({ generateSelector: true, resyncPeriodSeconds: 600 });
  });

  it.each([
    ['ironhook.dev/v1alpha1', 'hostoperations', 'OnDelete'],
    ['ironhook.dev/v1alpha1', 'bmcmonitors', 'InPlace'],
    ['metal3.io/v1alpha1', 'hardwaredata', 'InPlace'],
    ['metal3.io/v1alpha1', 'hostfirmwaresettings', 'OnDelete'],
  ])('child %s %s is updated %s and served by a CRD shipped here', (apiVersion, resource, method) => {
    const child = composite.spec.childResources?.find((c) => c.resource === resource);
    expect(child).toEqual({ apiVersion, resource, updateStrategy: { method } });
    expect(crdFor(child!)).toBeDefined();
  });

  it('has no other children', () => {
    expect(composite.spec.childResources).toHaveLength(4);
  });

  it('the decorator targets baremetalhosts and has only a sync hook', () => {
    expect(decorator.spec.resources).toEqual([{ apiVersion: 'metal3.io/v1alpha1', resource: 'baremetalhosts' }]);
    expect(Object.keys(decorator.spec.hooks)).toEqual(['sync']);
  });

  it.each([
    [composite, 'sync', 'baremetalhost'],
    [composite, 'finalize', 'baremetalhost'],
    [decorator, 'sync', 'baremetalhost-annotations'],
  ] as const)('%#: hook %s of /hooks/%s: version v2, local URL, 10 s timeout', (controller, hook, route) => {
    expect(controller.spec.hooks[hook]).toEqual({
      version: 'v2',
      webhook: { url: `http://127.0.0.1:8080/hooks/${route}/${hook}`, timeout: '10s' },
    });
  });

  it('the composite has exactly the sync and finalize hooks (no customize: no related objects)', () => {
    expect(Object.keys(composite.spec.hooks).sort()).toEqual(['finalize', 'sync']);
  });
});
