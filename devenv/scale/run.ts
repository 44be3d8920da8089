// One scale run (docs/dev/scale.md): the stack with N emulated hosts, the four phases one after
// the other, and a sample every few seconds of each process's CPU and memory and of
// Metacontroller's queue depths, for the report and its plots. Every process started is stopped by
// PID at the end, also when the run fails.
import { mkdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { kubectlOrThrow } from '../environment.js';
import type { ImageMode } from './hosts.js';
import { enrol, idle, NAMESPACE, provision, remove, type PhaseContext, type PhaseResult } from './phases.js';
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
    private readonly stack: ScaleStack,
    private readonly timeline: HostTimeline,
    private readonly scrapeMetacontroller: () => Promise<Record<string, number>>,
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
    const depths = await this.scrapeMetacontroller().catch(() => ({}));
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

async function phases(ctx: PhaseContext, settings: ScaleSettings, results: PhaseResult[]): Promise<void> {
  const say = (result: PhaseResult): void => {
    results.push(result);
    process.stdout.write(`bench:scale ${String(settings.hosts)} hosts: ${result.name} took ${result.seconds.toFixed(1)} s\n`);
  };
  say(await enrol(ctx));
  say(await provision(ctx, settings.image));
  say(await idle(ctx, settings.idleMinutes, async (ms) => delay(ms)));
  say(await remove(ctx));
}

/** The phases with their observers running; what was measured, and the failure if one phase did not finish. */
async function observed(stack: ScaleStack, settings: ScaleSettings, startedAt: string): Promise<ScaleReport> {
  const timeline = new HostTimeline(stack.env.kubeconfig, NAMESPACE);
  await timeline.start(settings.sampleSeconds * 1000);
  const sampler = new Sampler(stack, timeline, async () => queueDepths(stack));
  sampler.start(settings.sampleSeconds * 1000);
  const results: PhaseResult[] = [];
  let failure: string | undefined;
  try {
    const ctx = { stack, timeline, scrape: scraper(stack), hosts: settings.hosts, timeoutMs: settings.phaseTimeoutMinutes * 60_000 };
    await phases(ctx, settings, results);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    sampler.stop();
    await sampler.sample();
    await timeline.stop();
  }
  return {
    settings,
    startedAt,
    passed: failure === undefined,
    ...(failure === undefined ? {} : { failure }),
    phases: results,
    peakRssMiB: peaks(sampler.usage),
    maxQueueDepth: sampler.maxQueueDepth,
    states: timeline.samples,
    usage: sampler.usage,
  };
}

/** Runs the bench in `dir` and returns its report (failed runs too, with what was measured). */
export async function runScale(settings: ScaleSettings, dir: string): Promise<ScaleReport> {
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const stack = await startScaleStack({ dir, ...settings });
  try {
    await kubectlOrThrow(stack.env.kubeconfig, ['create', 'namespace', NAMESPACE]);
    return await observed(stack, settings, startedAt);
  } finally {
    await stack.stop();
  }
}
