// A real peer missing under the test command fails the file; only an ad-hoc run skips. And no
// test skips on anything but a peer, through missingPeer: a bare skipIf would hide a broken
// install in CI.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/chart-sync.js';
import { missingPeer } from '../support/peers.js';

const PEER = { name: 'sushy-tools', install: 'scripts/setup-system-deps.sh' };

describe('missingPeer', () => {
  it.each([
    { name: 'present peer under the test command: run', present: true, env: { IRONHOOK_REQUIRE_PEERS: '1' }, outcome: 'run' },
    { name: 'present peer in an ad-hoc run: run', present: true, env: {}, outcome: 'run' },
    { name: 'missing peer under the test command: fail', present: false, env: { IRONHOOK_REQUIRE_PEERS: '1' }, outcome: 'fail' },
    { name: 'missing peer in an ad-hoc run: skip', present: false, env: {}, outcome: 'skip' },
  ])('$name', ({ present, env, outcome }) => {
    const decide = (): string => (missingPeer({ ...PEER, present }, env) ? 'skip' : 'run');
    if (outcome === 'fail') expect(decide).toThrow(/sushy-tools is missing \(scripts\/setup-system-deps\.sh\).*broken install/u);
    else expect(decide()).toBe(outcome);
  });

  it('is what scripts/test.sh turns on', () => {
    expect(readFileSync(join(ROOT, 'scripts', 'test.sh'), 'utf8')).toMatch(/^export IRONHOOK_REQUIRE_PEERS=1$/mu);
  });
});

/** Every .ts file under test/, relative to the repository root. */
const testFiles = (): string[] =>
  readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join('test', file));

describe('skips in the test tree', () => {
  it('every conditional skip asks missingPeer, and nothing is skipped outright', () => {
    const offenders = testFiles().flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, index) => ({ line, at: `${file}:${String(index + 1)}` }))
        .filter(({ line }) => /\b(?:it|describe|test)\.(?:skip|todo)\b|\.skipIf\((?!missingPeer\()|\.runIf\(|\bctx\.skip\(/u.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
