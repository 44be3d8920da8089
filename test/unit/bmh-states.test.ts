// The host lifecycle state table: a named row for every (state × input class) pair.
import { describe, expect, it } from 'vitest';
import { ProvisioningState } from '../../domain/baremetalhost.js';
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
});
