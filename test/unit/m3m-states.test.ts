// The Metal3Machine state table: named rows for every state, and the host choice table.
import { describe, expect, it } from 'vitest';
import { chooseHost, rankHosts } from '../../hooks/metal3machine/choose.js';
import { readContext } from '../../hooks/metal3machine/context.js';
import { MachineState } from '../../hooks/metal3machine/names.js';
import { parseComposite } from '../../hooks/kit/index.js';
import { machine, type MachineBuilder } from '../support/machine-builder.js';
import { associationRows } from './m3m/association.rows.js';
import { choiceRows } from './m3m/choice.rows.js';
import { deletionRows } from './m3m/deletion.rows.js';
import { labelSyncRows } from './m3m/label-sync.rows.js';
import { moveRows } from './m3m/move.rows.js';
import { prerequisiteRows } from './m3m/prerequisites.rows.js';
import { provisioningRows } from './m3m/provisioning.rows.js';
import { check, run } from './m3m/table.js';
import type { Row } from './m3m/table.js';

const rows: Row[] = [...prerequisiteRows, ...associationRows, ...provisioningRows, ...labelSyncRows, ...moveRows, ...deletionRows];

function choose(given: MachineBuilder) {
  return chooseHost(readContext(parseComposite(given.request(), 'Metal3Machine')));
}

describe('Metal3Machine state table', () => {
  it.each(rows.map((row) => [`${row.state}: ${row.name}`, row] as const))('%s', (_name, row) => {
    check(row);
  });

  it.each(Object.values(MachineState).map((state) => [state, state] as const))('state %s has rows', (_label, state) => {
    expect(rows.filter((row) => row.state === state).length).toBeGreaterThan(0);
  });

  it('row names are unique', () => {
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
  });

  it.each(rows.map((row) => [row.name, row] as const))('deterministic: %s', (_name, row) => {
    expect(JSON.stringify(run(row))).toBe(JSON.stringify(run(row)));
  });
});

describe('host choice', () => {
  it.each(choiceRows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const choice = choose(row.given);
    expect(choice.kind).toBe(row.expect.kind);
    if (row.expect.host !== undefined) expect(choice.kind === 'host' ? choice.host.metadata.name : choice.kind).toBe(row.expect.host);
    if (row.expect.oneOf !== undefined) expect(row.expect.oneOf).toContain(choice.kind === 'host' ? choice.host.metadata.name : '');
    if (row.expect.message !== undefined) expect(JSON.stringify(choice)).toMatch(row.expect.message);
  });

  it('picks the lowest-ranked of equal candidates, whatever order the hosts arrive in', () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    const forward = hosts.reduce((b, h) => b.host(h), machineWith('uid-a'));
    const backward = [...hosts].reverse().reduce((b, h) => b.host(h), machineWith('uid-a'));
    const ranked = rankHosts('uid-a', Object.values(forward.request().related['BareMetalHost.metal3.io/v1alpha1'] ?? {}));
    const a = choose(forward);
    const b = choose(backward);
    expect(a.kind === 'host' && a.host.metadata.name).toBe(ranked[0]?.metadata.name);
    expect(b.kind === 'host' && b.host.metadata.name).toBe(ranked[0]?.metadata.name);
  });

  it('machines with different UIDs spread over the hosts', () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8'];
    const picks = ['uid-a', 'uid-b', 'uid-c', 'uid-d'].map((uid) => {
      const choice = choose(hosts.reduce((b, h) => b.host(h), machineWith(uid)));
      return choice.kind === 'host' ? choice.host.metadata.name : '';
    });
    expect(new Set(picks).size).toBeGreaterThan(1);
  });
});

function machineWith(uid: string): MachineBuilder {
  return machine().uid(uid);
}
