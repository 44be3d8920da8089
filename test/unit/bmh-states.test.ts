// The host lifecycle state table: a named row for every (state × input class) pair.
import { describe, expect, it } from 'vitest';
import { ProvisioningState } from '../../domain/baremetalhost.js';
import type { ProvisionStatus } from '../../domain/baremetalhost.js';
import type { ProloguePatch } from '../../hooks/baremetalhost/outcome.js';
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
