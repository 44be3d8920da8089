// One scale run (docs/dev/scale.md): the stack with N emulated hosts, the four phases one after
// the other, and a sample every few seconds of each process's CPU and memory and of
// Metacontroller's queue depths, for the report and its plots. Every process started is stopped by
// PID at the end, also when the run fails.
import { mkdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { kubectlOrThrow } from '../environment.js';
import type { ImageMode } from './hosts.js';
import { hostsManifest } from './hosts.js';
import { enrol, idle, NAMESPACE, provision, remove, type MeasuredStack, type PhaseContext, type PhaseResult } from './phases.js';
import { queueDepths, scraper } from './scrape.js';
import { startScaleStack, type ScaleStack } from './stack.js';
import { HostTimeline, type StateSample } from './timeline.js';
import { usageByRole, type RoleUsage } from './usage.js';

export interface ScaleSettings {
  hosts: number;
  hostsPerEmulator: number;
  powerDelayMs: number;
  image: ImageMode;
  idleMinutes: number;
  /** The longest any one phase may take. */
  phaseTimeoutMinutes: number;
  /** Seconds between samples of CPU, memory, queue depth and host states. */
  sampleSeconds: number;
  poolEnv?: NodeJS.ProcessEnv;
  hookEnv?: NodeJS.ProcessEnv;
  /** Metacontroller flags replacing the chart's. */
  metacontrollerFlags?: readonly string[];
  /** How the hooks and the pool ran: compiled (dist, as the image) or from the sources through tsx. */
  runFrom?: 'dist' | 'tsx';
}

export interface UsageSample {
  /** Seconds since the run's first apply. */
  t: number;
  usage: RoleUsage;
  /** Metacontroller work queue depth, summed over its controllers. */
  queueDepth: number;
}

export interface ScaleReport {
  /** Which stack ran: Ironhook's, or upstream's baremetal-operator + Ironic (devenv/upstream). */
  stack?: 'ironhook' | 'upstream';
  settings: ScaleSettings;
  /** ISO time the run started. */
  startedAt: string;
  passed: boolean;
  failure?: string;
  phases: PhaseResult[];
  /** The largest resident set each role reached (VmHWM, summed over its processes). */
  peakRssMiB: Record<string, number>;
  /** The deepest Metacontroller work queue seen, by controller. */
  maxQueueDepth: Record<string, number>;
  states: StateSample[];
  usage: UsageSample[];
}

class Sampler {
  readonly usage: UsageSample[] = [];
  readonly maxQueueDepth: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stack: MeasuredStack,
    private readonly timeline: HostTimeline,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => void this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sample(): Promise<void> {
    const t = Math.round(this.timeline.seconds());
    const usage = usageByRole(this.stack.roles());
    const depths: Record<string, number> = (await this.stack.queueDepths?.().catch(() => ({}))) ?? {};
    for (const [name, depth] of Object.entries(depths)) this.maxQueueDepth[name] = Math.max(this.maxQueueDepth[name] ?? 0, depth);
    this.usage.push({ t, usage, queueDepth: Object.values(depths).reduce((sum, depth) => sum + depth, 0) });
  }
}

function peaks(samples: readonly UsageSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const sample of samples) {
    for (const [role, usage] of Object.entries(sample.usage)) out[role] = Math.max(out[role] ?? 0, usage.peakRssMiB);
  }
  return out;
}

/** Runs phases one after the other; `say` records and prints each result. */
export type PhasePlan = (ctx: PhaseContext, say: (result: PhaseResult) => void) => Promise<void>;

/** Ironhook's four phases. */
const ironhookPhases =
  (settings: ScaleSettings): PhasePlan =>
  async (ctx, say) => {
    say(await enrol(ctx));
    say(await provision(ctx, settings.image));
    say(await idle(ctx, settings.idleMinutes, async (ms) => delay(ms)));
    say(await remove(ctx));
  };

/** The phases with their observers running; what was measured, and the failure if one phase did not finish. */
export async function observed(stack: MeasuredStack, settings: ScaleSettings, plan: PhasePlan): Promise<Omit<ScaleReport, 'startedAt'>> {
  const timeline = new HostTimeline(stack.kubeconfig, NAMESPACE);
  await timeline.start(settings.sampleSeconds * 1000);
  const sampler = new Sampler(stack, timeline);
  sampler.start(settings.sampleSeconds * 1000);
  const results: PhaseResult[] = [];
  let failure: string | undefined;
  const say = (result: PhaseResult): void => {
    results.push(result);
    process.stdout.write(`bench:scale ${String(settings.hosts)} hosts: ${result.name} took ${result.seconds.toFixed(1)} s\n`);
  };
  try {
    await plan({ stack, timeline, hosts: settings.hosts, timeoutMs: settings.phaseTimeoutMinutes * 60_000 }, say);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    sampler.stop();
    await sampler.sample();
    await timeline.stop();
  }
  return {
    settings,
    passed: failure === undefined,
    ...(failure === undefined ? {} : { failure }),
    phases: results,
    peakRssMiB: peaks(sampler.usage),
    maxQueueDepth: sampler.maxQueueDepth,
    states: timeline.samples,
    usage: sampler.usage,
  };
}

/** What the phases see of Ironhook's stack. */
function measuredIronhook(stack: ScaleStack): MeasuredStack {
  const { fleet, password, files } = stack;
  return {
    kubeconfig: stack.env.kubeconfig,
    roles: () => stack.roles(),
    manifest: (image) => hostsManifest({ fleet, password, files, ...(image === undefined ? {} : { image }) }),
    scrape: scraper(stack),
    queueDepths: async () => queueDepths(stack),
  };
}

/** Runs the bench in `dir` and returns its report (failed runs too, with what was measured). */
export async function runScale(settings: ScaleSettings, dir: string): Promise<ScaleReport> {
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const stack = await startScaleStack({ dir, ...settings });
  try {
    await kubectlOrThrow(stack.env.kubeconfig, ['create', 'namespace', NAMESPACE]);
    return { stack: 'ironhook', startedAt, ...(await observed(measuredIronhook(stack), settings, ironhookPhases(settings))) };
  } finally {
    await stack.stop();
  }
}
