// The host lifecycle state table: a named row for every (state × input class) pair.
import { describe, expect, it } from 'vitest';
import { ProvisioningState } from '../../domain/baremetalhost.js';
import type { ProvisionStatus } from '../../domain/baremetalhost.js';
import type { ProloguePatch } from '../../hooks/baremetalhost/outcome.js';
import { syncBareMetalHost } from '../../hooks/baremetalhost/sync.js';
import { HookInputError } from '../../hooks/kit/index.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { host } from '../../devenv/builders/host.js';
import { deletionRows } from './bmh/deletion.rows.js';
import { provisioningRows } from './bmh/provisioning.rows.js';
import { registrationRows } from './bmh/registration.rows.js';
import { check, run } from './bmh/table.js';
import type { Row } from './bmh/table.js';

const rows: Row[] = [...registrationRows, ...provisioningRows, ...deletionRows];

describe('BareMetalHost state table', () => {
  it.each(rows.map((row) => [`${row.from || '""'}: ${row.name}`, row] as const))('%s', (_name, row) => {
    check(row);
  });

  it.each(Object.values(ProvisioningState).map((state) => [state || '""', state] as const))('state %s has rows', (_label, state) => {
    expect(rows.filter((row) => row.from === state).length).toBeGreaterThan(0);
  });

  it('row names are unique', () => {
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
  });

  it.each(rows.map((row) => [row.name, row] as const))('deterministic: %s', (_name, row) => {
    expect(JSON.stringify(run(row))).toBe(JSON.stringify(run(row)));
  });

  it('a prologue patch cannot move the state (only a committed outcome does)', () => {
    const observed: ProvisionStatus = { state: ProvisioningState.Registering, ID: '', image: { url: '' } };
    const registered: ProloguePatch = { provisioning: { ID: 'f0e1d2c3' } };
    // @ts-expect-error provisioning.state is not the prologue's to set
    const named: ProloguePatch = { provisioning: { state: ProvisioningState.Available } };
    // @ts-expect-error nor through a copy of the observed block
    const copied: ProloguePatch = { provisioning: { ...observed, ID: 'f0e1d2c3' } };
    expect([registered, named, copied]).toHaveLength(3);
  });
});

/** Requests the hook refuses with a HookInputError (HTTP 400), whatever the server's shape check let through. */
// prettier-ignore
const malformed: [string, (request: Record<string, unknown>) => unknown, RegExp][] = [
  ['not an object', () => [], /request must be a JSON object/u],
  ['no parent', (request) => ({ ...request, parent: undefined }), /parent must be a Kubernetes object/u],
  ['parent of another kind', (request) => ({ ...request, parent: { ...(request.parent as object), kind: 'Metal3Machine' } }), /parent must be a BareMetalHost, got Metal3Machine/u],
  ['parent without spec', (request) => ({ ...request, parent: { ...(request.parent as object), spec: null } }), /parent\.spec must be an object/u],
  ['children not a map', (request) => ({ ...request, children: 'none' }), /children must be an object map/u],
];

describe('BareMetalHost malformed requests', () => {
  it.each(malformed)('%s', (_name, mangle, message) => {
    const body = mangle(host().request() as unknown as Record<string, unknown>);
    expect(() => syncBareMetalHost(body, { config: DEFAULT_HOOK_CONFIG })).toThrow(HookInputError);
    expect(() => syncBareMetalHost(body, { config: DEFAULT_HOOK_CONFIG })).toThrow(message);
  });
});
