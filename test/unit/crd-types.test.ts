// The fixtures in test/support/crds.ts (typed with the domain types, which are generated from the
// CRDs: docs/adr/0007-crds-are-the-api-source.md) validate against the schemas with unknown fields
// rejected. Generation already guarantees field names, required fields and enums; this checks what
// it drops (formats, patterns, bounds), so test/e2e/validation.test.ts can apply the same fixtures.
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
} from '../support/crds.js';

const crds = loadCrds();

const FIXTURES: [string, string, object[]][] = [
  ['BareMetalHost', 'fullHost + softwareRaidHost', [fullHost, softwareRaidHost]],
  ['HostOperation', 'one per action block', fullOperations],
  ['BMCMonitor', 'fullMonitor', [fullMonitor]],
  ['HardwareData', 'fullHardwareData', [fullHardwareData]],
  ['HostFirmwareSettings', 'fullFirmwareSettings', [fullFirmwareSettings]],
];

describe('the typed fixtures are valid objects', () => {
  it.each(FIXTURES)('%s: %s validate with unknown fields rejected', (kind, _what, objects) => {
    for (const object of objects) {
      expect(schemaErrors(crdByKind(crds, kind), object)).toEqual([]);
    }
  });
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
