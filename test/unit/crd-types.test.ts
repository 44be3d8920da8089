// The TypeScript types in domain/ and the CRD schemas agree on field names: fully populated
// fixtures (typed with the domain types, so tsc checks them) validate against the schemas with
// unknown fields rejected, and together they touch every field the schemas declare.
import { describe, expect, it } from 'vitest';
import {
  crdByKind,
  fullFirmwareSettings,
  fullHardwareData,
  fullHost,
  fullMonitor,
  fullOperations,
  loadCrds,
  schemaErrors,
  softwareRaidHost,
  walkSchema,
} from '../support/crds.js';

const crds = loadCrds();

const FIXTURES: [string, string, object[]][] = [
  ['BareMetalHost', 'fullHost + softwareRaidHost', [fullHost, softwareRaidHost]],
  ['HostOperation', 'one per action block', fullOperations],
  ['BMCMonitor', 'fullMonitor', [fullMonitor]],
  ['HardwareData', 'fullHardwareData', [fullHardwareData]],
  ['HostFirmwareSettings', 'fullFirmwareSettings', [fullFirmwareSettings]],
];

/**
 * Fields the CRDs declare that the domain types do not model (so no typed fixture can set them).
 * Each is either deprecated upstream, written only by Metacontroller, or a feature Ironhook does
 * not act on yet.
 */
const CRD_ONLY: Record<string, string[]> = {
  BareMetalHost: [
    '.spec.firmware', // deprecated upstream and rejected by a CEL rule
    '.spec.taints', // deprecated upstream, never implemented
    '.spec.networkInterfaces', // upstream 0.14 switch networking, not acted on by Ironhook
    '*softwareRAIDVolumes[].rootVolume', // upstream 0.14; missing from domain SoftwareRAIDVolume
    '.status.observedGeneration', // written by Metacontroller
  ],
  HostOperation: ['*softwareRAIDVolumes[].rootVolume', '.spec.hostStatus.status'], // the latter holds a whole BareMetalHost status
  BMCMonitor: [],
  HardwareData: [],
  HostFirmwareSettings: [],
};

/** Every property path an object sets: ".spec.raid.hardwareRAIDVolumes[].level", ... */
function objectPaths(value: unknown, path = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    value.forEach((item) => {
      into.add(`${path}[]`);
      objectPaths(item, `${path}[]`, into);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      into.add(`${path}.${key}`);
      objectPaths(child, `${path}.${key}`, into);
    }
  }
  return into;
}

/** Every declared property path under spec and status (not inside free-form maps). */
function schemaPaths(kind: string): string[] {
  const paths: string[] = [];
  walkSchema(crdByKind(crds, kind).schema, (_node, path) => {
    if (/^\.(spec|status)\./u.test(path) && !path.includes('{}')) {
      paths.push(path);
    }
  });
  return paths;
}

/** An exemption is a path prefix (".spec.taints" covers everything below it) or "*suffix". */
const exempts = (exemption: string, path: string) =>
  exemption.startsWith('*')
    ? path.endsWith(exemption.slice(1))
    : path === exemption || path.startsWith(`${exemption}.`) || path.startsWith(`${exemption}[]`);

const isCovered = (path: string, set: Set<string>, exempt: string[]) => set.has(path) || exempt.some((e) => exempts(e, path));

describe('domain types and CRD schemas agree', () => {
  it.each(FIXTURES)('%s: %s validate with unknown fields rejected', (kind, _what, objects) => {
    for (const object of objects) {
      expect(schemaErrors(crdByKind(crds, kind), object)).toEqual([]);
    }
  });

  it.each(FIXTURES)('%s: %s set every field the schema declares', (kind, _what, objects) => {
    const set = new Set<string>();
    objects.forEach((object) => objectPaths(object, '', set));
    const missing = schemaPaths(kind).filter((path) => !isCovered(path, set, CRD_ONLY[kind] ?? []));
    expect(missing).toEqual([]);
  });

  it.each(Object.entries(CRD_ONLY).flatMap(([kind, paths]) => paths.map((path) => [kind, path] as const)))(
    '%s: the CRD-only field %s exists in the schema',
    (kind, exemption) => {
      expect(schemaPaths(kind).some((path) => exempts(exemption, path))).toBe(true);
    },
  );
});

describe('the closed-schema check has teeth', () => {
  const host = crdByKind(crds, 'BareMetalHost');

  it.each([
    ['a misspelt spec field', { ...fullHost, spec: { ...fullHost.spec, bootMacAddress: '00:11:22:33:44:55' } }],
    ['a misspelt nested field', { ...fullHost, spec: { ...fullHost.spec, bmc: { address: 'ipmi://10.0.0.1', credentialName: 'x' } } }],
    ['the lower-case provisioning id', { ...fullHost, status: { ...fullHost.status, provisioning: { state: 'available', id: 'x' } } }],
  ])('rejects %s', (_what, object) => {
    expect(schemaErrors(host, object)).not.toEqual([]);
  });

  it('accepts the same object when unknown fields are only pruned (what the API server does)', () => {
    const object = { ...fullHost, spec: { ...fullHost.spec, bootMacAddress: '00:11:22:33:44:55' } };
    expect(schemaErrors(host, object, false)).toEqual([]);
  });
});
