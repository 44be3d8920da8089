// scripts/chart-deps.sh, run in a scratch copy of the repository layout (scripts/chart-deps.sh
// and charts/ironhook without its charts/ folder), so the real charts/ironhook/charts is never
// touched: the upstream chart packaged from the source tarball after its sha256 is checked, a
// tarball that does not match refused, exit 3 naming what was looked for when there is no
// source, an existing tgz kept, a METACONTROLLER_CHART_DIR that is not the chart rejected. The
// real tarball must exist (../shared/vendor next to the checkout, or
// METACONTROLLER_SOURCE_TARBALL): without it this file fails.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR, ensureHelm, HELM } from '../support/helm.js';
import { ROOT } from '../../scripts/chart-sync.js';

const SCRIPT = join(ROOT, 'scripts', 'chart-deps.sh');
const TARBALL = process.env.METACONTROLLER_SOURCE_TARBALL ?? join(ROOT, '..', 'shared', 'vendor', 'metacontroller-4.17.2.tar.gz');
const SHA256 = '71242194978649546c50f6970bc117b883699a46c66f4eb16298bcdbb8b722a3';

let scratch = '';
let tgz = '';

interface Run {
  status: number | null;
  stderr: string;
}

/** The script in the scratch layout, with no METACONTROLLER_* from the caller's environment. */
function chartDeps(env: Record<string, string> = {}): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METACONTROLLER_')));
  const res = spawnSync('bash', [join(scratch, 'scripts', 'chart-deps.sh')], { encoding: 'utf8', env: { ...clean, HELM, ...env }, timeout: 300_000 });
  return { status: res.status, stderr: res.stderr };
}

beforeAll(() => {
  ensureHelm();
  scratch = mkdtempSync(join(tmpdir(), 'ironhook-chart-deps-'));
  mkdirSync(join(scratch, 'scripts'));
  cpSync(SCRIPT, join(scratch, 'scripts', 'chart-deps.sh'));
  const skip = join(CHART_DIR, 'charts');
  cpSync(CHART_DIR, join(scratch, 'charts', 'ironhook'), { recursive: true, filter: (src) => src !== skip && !src.startsWith(skip + sep) });
  tgz = join(scratch, 'charts', 'ironhook', 'charts', 'metacontroller-helm-4.17.2.tgz');
}, 600_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe('scripts/chart-deps.sh', () => {
  it('pins the checksum shared/vendor/README.md gives, and has no Go module route', () => {
    const text = readFileSync(SCRIPT, 'utf8');
    expect(text).toContain(`PINNED_SHA256=${SHA256}`);
    expect(text).toContain('PINNED_VERSION=4.17.2');
    expect(text).not.toMatch(/go mod|tools\/metacontroller/);
  });

  it('exits 3 and names every source it looked for when there is none, without touching the network', () => {
    const missing = join(scratch, 'no-such.tar.gz');
    const res = chartDeps({ METACONTROLLER_SOURCE_TARBALL: missing });
    expect(res.status, res.stderr).toBe(3);
    expect(res.stderr).toMatch(/UNAVAILABLE: /);
    expect(res.stderr).toContain(missing);
    expect(res.stderr).toMatch(/METACONTROLLER_CHART_DIR unset/);
    expect(res.stderr).toMatch(/METACONTROLLER_GIT_CLONE=1 not set/);
    expect(res.stderr).not.toMatch(/\[chart-deps\] cloning/);
    expect(existsSync(tgz)).toBe(false);
  });

  it('refuses a tarball whose sha256 does not match (exit 4), before extracting anything', () => {
    const bad = join(scratch, 'metacontroller-4.17.2.tar.gz');
    writeFileSync(bad, Buffer.concat([readFileSync(TARBALL), Buffer.from('x')]));
    const res = chartDeps({ METACONTROLLER_SOURCE_TARBALL: bad });
    expect(res.status, res.stderr).toBe(4);
    expect(res.stderr).toMatch(new RegExp(`REFUSED: .*expected ${SHA256}`));
    expect(existsSync(tgz)).toBe(false);
  });

  it('packages deploy/helm/metacontroller of the source tarball as metacontroller-helm 4.17.2', () => {
    expect(existsSync(TARBALL), `the Metacontroller source tarball is required at ${TARBALL}`).toBe(true);
    const res = chartDeps({ METACONTROLLER_SOURCE_TARBALL: TARBALL });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toContain(`sha256 ok: ${TARBALL}`);
    const files = spawnSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).stdout.split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'metacontroller-helm/Chart.yaml',
        'metacontroller-helm/crds/metacontroller-crds-v1.yaml',
        'metacontroller-helm/templates/statefulset.yaml',
      ]),
    );
    const meta = spawnSync(HELM, ['show', 'chart', tgz], { encoding: 'utf8' }).stdout;
    expect(meta).toMatch(/^name: metacontroller-helm$/m);
    expect(meta).toMatch(/^version: 4\.17\.2$/m);
  });

  it('keeps the tgz on the next run, with no source needed', () => {
    const res = chartDeps({ METACONTROLLER_SOURCE_TARBALL: join(scratch, 'no-such.tar.gz') });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/ok: charts\/ironhook\/charts\/metacontroller-helm-4\.17\.2\.tgz \(kept\)/);
  });

  it('rejects a METACONTROLLER_CHART_DIR that is not metacontroller-helm 4.17.2 (exit 3)', () => {
    rmSync(tgz);
    const res = chartDeps({ METACONTROLLER_CHART_DIR: join(scratch, 'charts', 'ironhook') });
    expect(res.status, res.stderr).toBe(3);
    expect(res.stderr).toMatch(/is ironhook \S+, not metacontroller-helm 4\.17\.2/);
    expect(existsSync(tgz)).toBe(false);
  });
});
