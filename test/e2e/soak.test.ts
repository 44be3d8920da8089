// The chaos soak, short: ten emulated Redfish hosts live (inspection, a disk image or a live
// ISO, power off and on, a reboot, deprovisioning, deletion; some with their BMC password
// rotated) while the hook server, the driver pool's leader, Metacontroller, the kube-apiserver
// and the Redfish emulator are each SIGKILLed and restarted at least once, under seeded BMC
// faults. The harness is devenv/chaos/ (docs/dev/soak.md); `npm run soak` is the long run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summary } from '../../devenv/chaos/report.js';
import { runSoak } from '../../devenv/chaos/run.js';
import { KILL_KINDS, SMOKE } from '../../devenv/chaos/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'ironhook-soak-'));

afterAll(() => {
  if (process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the chaos soak, short', () => {
  it(
    'brings every host to its final state through kills and BMC faults, with no repeated side effect, leak or leftover',
    async () => {
      const report = await runSoak(SMOKE, dir);
      process.stdout.write(`${summary(report)}\n`);
      expect(report.problems).toEqual([]);
      expect(report.lives.complete).toBe(report.lives.total);
      expect(report.lives.total).toBeGreaterThanOrEqual(SMOKE.hosts);
      const killed = Object.fromEntries(KILL_KINDS.map((kind) => [kind, (report.kills.byKind[kind] ?? 0) >= 1]));
      expect(killed).toEqual(Object.fromEntries(KILL_KINDS.map((kind) => [kind, true])));
      expect(report.faults.dropped + report.faults.delayed + report.faults.serverErrors + report.faults.timedOut).toBeGreaterThan(0);
      expect(report.sideEffects.byAction.ImageWrite).toBeGreaterThanOrEqual(1);
      expect(report.duplicates).toEqual([]);
      expect(report.canaryLeaks).toEqual([]);
      expect(report.orphans).toEqual([]);
    },
    SMOKE.deadlineMs + 180_000,
  );
});
