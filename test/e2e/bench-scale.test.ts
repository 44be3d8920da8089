// The scale bench's smoke run (`npm run bench:scale` at N = 10), so its harness cannot rot: the
// whole stack, two emulator + fake agent process pairs, hosts enrolled, provisioned with a disk
// image through the fake agents, left idle across two power-sync rounds, and deleted; then the
// report and its pictures. Numbers are not asserted (benchmarks measure, tests check), except the
// ones that are correctness: every host arrives, and idle hosts keep a byte-stable status.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdown, pictures } from '../../devenv/scale/report.js';
import { runScale, type ScaleReport } from '../../devenv/scale/run.js';

const HOSTS = 10;
let dir = '';
let report: ScaleReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-bench-scale-'));
  report = await runScale(
    {
      hosts: HOSTS,
      hostsPerEmulator: 5,
      powerDelayMs: 200,
      image: 'disk',
      // Two rounds of the BMC monitor's power sync (every 5 s here) while nothing changes.
      idleMinutes: 0.25,
      hookEnv: { BMC_MONITOR_INTERVAL_SECONDS: '5' },
      phaseTimeoutMinutes: 5,
      sampleSeconds: 2,
    },
    dir,
  );
}, 600_000);

afterAll(() => {
  if (dir !== '' && process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench:scale, smoke run with 10 hosts', () => {
  it('takes every host through enrol, provision, idle and delete', () => {
    expect(report.failure).toBeUndefined();
    expect(report.phases.map((phase) => phase.name)).toEqual(['enrol', 'provision', 'idle', 'delete']);
    expect(report.phases[0]?.reached?.hosts).toBe(HOSTS);
    expect(report.phases[1]?.reached?.hosts).toBe(HOSTS);
    expect(report.phases[0]?.perMinute.reduce((sum, count) => sum + count, 0)).toBe(HOSTS);
  });

  it('idle hosts keep a byte-stable status through power sync', () => {
    const idle = report.phases.find((phase) => phase.name === 'idle');
    expect(idle?.hostsChanged).toBe(0);
    expect(idle?.metrics.hostStatusWrites).toBe(0);
  });

  it('measures every process, the apiserver, the hooks and Metacontroller', () => {
    const enrol = report.phases[0];
    for (const role of ['apiserver', 'etcd', 'metacontroller', 'hooks', 'pool', 'emulators', 'fake agents']) {
      expect(report.peakRssMiB[role], role).toBeGreaterThan(0);
      expect(enrol?.cpuSeconds[role], role).toBeGreaterThan(0);
    }
    // The hosts are enrolled by one server-side apply, as an SRE would.
    expect(enrol?.metrics.apiRequests['APPLY baremetalhosts']).toBe(HOSTS);
    expect(enrol?.metrics.hostStatusWrites).toBeGreaterThanOrEqual(HOSTS);
    expect(enrol?.metrics.hookCalls).toBeGreaterThan(0);
    expect(enrol?.metrics.hookP99Ms).toBeDefined();
    expect(enrol?.metrics.syncP99Ms).toBeDefined();
    expect(report.usage.length).toBeGreaterThan(2);
  });

  it('writes the Markdown block and pictures from what it measured', () => {
    const seen = new Set(report.states.flatMap((sample) => Object.keys(sample.hostsByState)));
    expect([...seen]).toEqual(expect.arrayContaining(['available', 'provisioned']));
    const drawn = pictures(report);
    expect(drawn.states).toContain('>provisioned</text>');
    expect(drawn.cpu).toContain('>pool</text>');
    expect(drawn.memory).toContain('>apiserver</text>');
    expect(markdown(report, 'images/x')).toContain(`### ${String(HOSTS)} hosts (disk, 5 systems per emulator process`);
  });
});
