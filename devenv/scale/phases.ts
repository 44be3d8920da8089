// The phases of one scale run, each measured the same way: a scrape of every component's metrics
// and a /proc reading of every process before and after, and the host timeline in between.
//   enrol      apply N Secrets + hosts                → all `available` (register, inspect)
//   provision  apply the image (live ISO or disk)     → all `provisioned`
//   idle       nothing changes for M minutes          → power sync cost, writes, byte-stable status
//   delete     delete every host                      → all gone (deprovision, power off, release)
import { apiReader } from '../chaos/api.js';
import { kubectlOrThrow } from '../environment.js';
import { waitFor } from '../processes.js';
import type { ImageMode } from './hosts.js';
import { phaseMetrics, type PhaseMetrics, type Scrape } from './scrape.js';
import type { HostTimeline, Reached } from './timeline.js';
import { cpuBetween, usageByRole } from './usage.js';

export const NAMESPACE = 'bench';

export interface PhaseResult {
  name: 'enrol' | 'provision' | 'idle' | 'delete';
  /** Wall time from the phase's first action until its target held for every host. */
  seconds: number;
  /** When hosts reached the phase's target state. */
  reached?: Reached;
  /** Hosts that reached the target in each minute of the phase. */
  perMinute: number[];
  cpuSeconds: Record<string, number>;
  metrics: PhaseMetrics;
  /**
   * After the target held for every host: seconds until Metacontroller's work queues stayed
   * empty (the status writes still queued behind the last arrivals); the phase's measurements
   * include them.
   */
  settledSeconds?: number;
  /** idle: hosts whose resourceVersion changed while nothing changed. */
  hostsChanged?: number;
  /** idle: what changed, for up to five of them (the paths that differ, with before → after of the first three). */
  changes?: { host: string; paths: string[]; values?: string[] }[];
}

/** What the phases drive and measure: Ironhook's stack (stack.ts) or upstream's (devenv/upstream). */
export interface MeasuredStack {
  kubeconfig: string;
  /** The processes measured, by the role the report groups them under. */
  roles(): { role: string; pid: number }[];
  /** The hosts' manifest: Secrets and hosts without an image (enrol), the hosts with one (provision). */
  manifest(image?: ImageMode): string;
  scrape(): Promise<Scrape>;
  /** Work queue depth per controller, when the stack's controllers publish it (Metacontroller's). */
  queueDepths?: () => Promise<Record<string, number>>;
}

export interface PhaseContext {
  stack: MeasuredStack;
  timeline: HostTimeline;
  hosts: number;
  timeoutMs: number;
}

interface PhasePlan {
  name: PhaseResult['name'];
  /** A provisioning state, or "gone". */
  target: string;
  act: () => Promise<void>;
}

function done(ctx: PhaseContext, target: string): boolean {
  return target === 'gone' ? ctx.timeline.hostCount() === 0 : ctx.timeline.inState(target) === ctx.hosts;
}

function stuck(ctx: PhaseContext, target: string): string {
  const errors = ctx.timeline.errorsNow();
  return `not every host reached ${target}: ${JSON.stringify(ctx.timeline.counts())}${errors.length > 0 ? `; errors: ${errors.join('; ')}` : ''}`;
}

async function measure(ctx: PhaseContext, plan: PhasePlan): Promise<PhaseResult> {
  const since = ctx.timeline.seconds();
  const [before, usage] = [await ctx.stack.scrape(), usageByRole(ctx.stack.roles())];
  await plan.act();
  try {
    await waitFor(`all hosts ${plan.target}`, async () => Promise.resolve(done(ctx, plan.target)), ctx.timeoutMs, 1_000);
  } catch (error) {
    throw new Error(`${plan.name}: ${stuck(ctx, plan.target)}`, { cause: error });
  }
  const seconds = ctx.timeline.seconds() - since;
  const settledSeconds = plan.target === 'gone' ? undefined : await quiet(ctx);
  const [after, usageAfter] = [await ctx.stack.scrape(), usageByRole(ctx.stack.roles())];
  const reached = plan.target === 'gone' ? undefined : ctx.timeline.reached(plan.target, since);
  return {
    name: plan.name,
    seconds,
    ...(reached === undefined ? {} : { reached }),
    ...(settledSeconds === undefined ? {} : { settledSeconds }),
    perMinute: plan.target === 'gone' ? [] : ctx.timeline.perMinute(plan.target, since),
    cpuSeconds: cpuBetween(usage, usageAfter),
    metrics: phaseMetrics(before, after),
  };
}

/** Waits until Metacontroller's queues have been empty for five readings a second apart; the seconds that took. */
async function quiet(ctx: PhaseContext): Promise<number | undefined> {
  const depths = ctx.stack.queueDepths;
  if (depths === undefined) return undefined;
  const started = ctx.timeline.seconds();
  let empty = 0;
  await waitFor(
    "Metacontroller's work queues to empty",
    async () => {
      const depth = Object.values(await depths()).reduce((sum, value) => sum + value, 0);
      empty = depth === 0 ? empty + 1 : 0;
      return empty >= 5;
    },
    ctx.timeoutMs,
    1_000,
  );
  return ctx.timeline.seconds() - started;
}

async function apply(ctx: PhaseContext, manifest: string): Promise<void> {
  await kubectlOrThrow(ctx.stack.kubeconfig, ['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], manifest);
}

export async function enrol(ctx: PhaseContext): Promise<PhaseResult> {
  return measure(ctx, { name: 'enrol', target: 'available', act: async () => apply(ctx, ctx.stack.manifest()) });
}

export async function provision(ctx: PhaseContext, image: ImageMode): Promise<PhaseResult> {
  return measure(ctx, { name: 'provision', target: 'provisioned', act: async () => apply(ctx, ctx.stack.manifest(image)) });
}

export async function remove(ctx: PhaseContext): Promise<PhaseResult> {
  const act = async (): Promise<void> => {
    await kubectlOrThrow(ctx.stack.kubeconfig, ['delete', 'bmh', '--all', '-n', NAMESPACE, '--wait=false']);
  };
  return measure(ctx, { name: 'delete', target: 'gone', act });
}

interface HostItem {
  metadata: { name: string; resourceVersion: string };
  spec?: unknown;
  status?: unknown;
}

async function hostItems(ctx: PhaseContext): Promise<Map<string, HostItem>> {
  const list = await apiReader(ctx.stack.kubeconfig, 60_000)<{ items: HostItem[] }>(`/apis/metal3.io/v1alpha1/namespaces/${NAMESPACE}/baremetalhosts`);
  return new Map(list.items.map((item) => [item.metadata.name, item]));
}

/** The paths (a.b.c) at which two JSON values differ, sorted. */
export function differingPaths(a: unknown, b: unknown, path = ''): string[] {
  const objects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!objects) return JSON.stringify(a) === JSON.stringify(b) ? [] : [path === '' ? '.' : path];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  return keys.flatMap((key) => differingPaths(left[key], right[key], path === '' ? key : `${path}.${key}`));
}

function valueAt(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), value);
}

/**
 * `minutes` with nothing to do, every host in `state` (provisioned, or available where the run
 * does not provision); `sleep` waits (injected so the smoke test can keep it short).
 */
export async function idle(ctx: PhaseContext, minutes: number, sleep: (ms: number) => Promise<void>, state = 'provisioned'): Promise<PhaseResult> {
  const before = await hostItems(ctx);
  const result = await measure(ctx, { name: 'idle', target: state, act: async () => sleep(minutes * 60_000) });
  const after = await hostItems(ctx);
  const changed = [...after.values()].filter((item) => before.get(item.metadata.name)?.metadata.resourceVersion !== item.metadata.resourceVersion);
  const changes = changed.slice(0, 5).map((item) => {
    const earlier = before.get(item.metadata.name);
    const [a, b] = [
      { spec: earlier?.spec, status: earlier?.status },
      { spec: item.spec, status: item.status },
    ];
    const paths = differingPaths(a, b);
    return {
      host: item.metadata.name,
      paths,
      values: paths.slice(0, 3).map((path) => `${JSON.stringify(valueAt(a, path))} → ${JSON.stringify(valueAt(b, path))}`),
    };
  });
  return { ...result, perMinute: [], hostsChanged: changed.length, changes };
}
