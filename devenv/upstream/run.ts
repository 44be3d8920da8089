// The upstream half of a side-by-side scale run: the same N hosts enrolled through
// baremetal-operator + Ironic (stack.ts), then left idle, measured the way Ironhook's run is
// (devenv/scale/run.ts). Provisioning is not part of it: upstream needs fake-ipa for that.
import { mkdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { kubectlOrThrow } from '../environment.js';
import { enrol, idle, NAMESPACE } from '../scale/phases.js';
import { observed, type ScaleReport, type ScaleSettings } from '../scale/run.js';
import { startUpstreamStack } from './stack.js';

/** The power-sync interval both sides use: Ironic's default, and Ironhook's BMCMonitor default. */
const POWER_SYNC_SECONDS = 60;

export async function runUpstream(settings: ScaleSettings, dir: string): Promise<ScaleReport> {
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const stack = await startUpstreamStack({ dir, ...settings, powerSyncSeconds: POWER_SYNC_SECONDS });
  try {
    await kubectlOrThrow(stack.kubeconfig, ['create', 'namespace', NAMESPACE]);
    const report = await observed(stack, settings, async (ctx, say) => {
      say(await enrol(ctx));
      say(await idle(ctx, settings.idleMinutes, async (ms) => delay(ms), 'available'));
    });
    return { stack: 'upstream', startedAt, ...report };
  } finally {
    await stack.stop();
  }
}
