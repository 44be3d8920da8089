// Metacontroller sets status.observedGeneration on every CompositeController parent it syncs
// (Metacontroller's status write: the hook's status plus observedGeneration, compared with the
// live status and PUT when different). A parent CRD whose status schema lacks it prunes the field
// with an "unknown field" warning, so every sync does a status GET and a PUT that changes nothing.
// Each parent CRD this repository ships declares it in every served version (integer, int64).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import { CRD_DIR, ROOT, closedSchema, loadCrds, readManifests } from '../support/crds.js';

const CONTROLLERS = join(ROOT, 'manifests', 'controllers');

interface ParentRule {
  apiVersion: string;
  resource: string;
}

const parents = readdirSync(CONTROLLERS)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) => readManifests(join(CONTROLLERS, file)))
  .filter((obj) => obj.kind === 'CompositeController')
  .map((obj) => ({ controller: obj.metadata.name ?? '', parent: (obj.spec as { parentResource: ParentRule }).parentResource }));

const crds = loadCrds();

function servedVersions(rule: ParentRule): { name: string; observedGeneration: unknown }[] {
  const group = rule.apiVersion.split('/')[0];
  return crds
    .filter((c) => c.crd.spec.group === group && c.crd.spec.names.plural === rule.resource && c.version.served)
    .map((c) => ({ name: c.version.name, observedGeneration: c.schema.properties?.status?.properties?.observedGeneration }));
}

describe('composite parents accept the observedGeneration Metacontroller writes', () => {
  it('every CompositeController parent is a CRD of manifests/crds', () => {
    expect(parents.length).toBeGreaterThan(0);
    for (const { controller, parent } of parents) expect(servedVersions(parent), `${controller}: ${parent.resource} in ${CRD_DIR}`).not.toEqual([]);
  });

  it.each(parents)('$controller: $parent.resource, every served version', ({ parent }) => {
    for (const version of servedVersions(parent)) {
      expect(version.observedGeneration, version.name).toMatchObject({ type: 'integer', format: 'int64' });
    }
  });
});

// And what the hooks answer fits: each golden composite answer, written as Metacontroller writes
// it (the hook's status plus observedGeneration), against the parent CRD's version with unknown
// fields rejected (closedSchema), so nothing the hooks say is pruned.

const FIXTURES = join(ROOT, 'test', 'fixtures');
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const validators = new Map<unknown, ValidateFunction>();

interface Written {
  name: string;
  parent: KObject;
}

function writtenParents(): Written[] {
  const out: Written[] = [];
  for (const route of readdirSync(FIXTURES, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const scenario of readdirSync(join(FIXTURES, route.name), { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const dir = join(FIXTURES, route.name, scenario.name);
      if (!existsSync(join(dir, 'response.json'))) continue;
      const request = JSON.parse(readFileSync(join(dir, 'request.json'), 'utf8')) as { parent?: KObject };
      const response = JSON.parse(readFileSync(join(dir, 'response.json'), 'utf8')) as { status?: Record<string, unknown>; children?: unknown };
      if (request.parent === undefined || response.status === undefined || response.children === undefined) continue;
      const status = { ...response.status, observedGeneration: request.parent.metadata.generation ?? 1 };
      out.push({ name: `${route.name}/${scenario.name}`, parent: { ...request.parent, status } });
    }
  }
  return out;
}

function crdOf(obj: KObject) {
  const [group, version] = obj.apiVersion.split('/');
  return crds.find((c) => c.crd.spec.group === group && c.crd.spec.names.kind === obj.kind && c.version.name === version);
}

describe('golden composite answers fit the parent CRD', () => {
  it.each(writtenParents())('$name', ({ parent }) => {
    const loaded = crdOf(parent);
    expect(loaded, `${parent.kind} ${parent.apiVersion}`).toBeDefined();
    if (loaded === undefined) return;
    const validate = validators.get(loaded) ?? ajv.compile(closedSchema(loaded.schema));
    validators.set(loaded, validate);
    // Only the status is the hook's; some fixtures' specs are invalid on purpose.
    const errors = validate(parent)
      ? []
      : (validate.errors ?? [])
          .filter((e) => e.instancePath.startsWith('/status'))
          .map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    expect(errors).toEqual([]);
  });
});
