// One chaos soak run (docs/dev/soak.md): the local environment with N emulated Redfish hosts, two
// driver pool replicas under leader election and seeded BMC faults; host lives in waves while
// processes are SIGKILLed and restarted; then the audit. Every process it starts is stopped by
// PID at the end, also when the run fails.
import { randomBytes } from 'node:crypto';
import { startEnvironment } from '../environment.js';
import type { Environment } from '../environment.js';
import { apiReader } from './api.js';
import { attribute } from './audit.js';
import type { Attribution, TimedAction } from './audit.js';
import { canaryLeaks, orphans } from './checks.js';
import { Chaos } from './kills.js';
import { runRound } from './load.js';
import type { LifeRecord, LoadContext } from './load.js';
import { ClusterObserver } from './observer.js';
import { buildReport } from './report.js';
import type { SoakReport } from './report.js';
import { seededRandom } from '../../emulators/redfish/index.js';
import type { SoakSettings } from './settings.js';

const NAMESPACE = 'soak';
/** The pool's BMC call time-out; a timed-out fault holds the request one second longer. */
const BMC_TIMEOUT_SECONDS = 10;

function poolEnv(): NodeJS.ProcessEnv {
  return {
    LEASE_DURATION_SECONDS: '8',
    RENEW_DEADLINE_SECONDS: '6',
    RETRY_PERIOD_SECONDS: '1',
    BMC_TIMEOUT_SECONDS: String(BMC_TIMEOUT_SECONDS),
    // 200 lives in 20 minutes keep ~60 requests going, most of them waiting on an agent; the
    // defaults (20 and 20, upstream's PROVISIONING_LIMIT) would queue them past the run's deadline.
    POOL_CONCURRENCY: process.env.SOAK_POOL_CONCURRENCY ?? '60',
    PROVISIONING_LIMIT: process.env.SOAK_POOL_CONCURRENCY ?? '60',
    LOG_LEVEL: process.env.SOAK_POOL_LOG_LEVEL ?? 'debug',
  };
}

async function open(settings: SoakSettings, dir: string, canary: string): Promise<Environment> {
  const { drop, delay, error, timeout, delayMs } = settings.faults;
  return startEnvironment({
    dir,
    bmcs: {
      password: canary,
      redfishHosts: settings.hosts,
      // A BMC per host, as in a rack: the pool serialises calls per BMC endpoint (bmc-gate.ts).
      redfishPortPerHost: true,
      poolReplicas: 2,
      poolEnv: poolEnv(),
      randomFaults: {
        seed: settings.seed,
        dropRate: drop,
        delayRate: delay,
        delayMs,
        errorRate: error,
        timeoutRate: timeout,
        timeoutMs: (BMC_TIMEOUT_SECONDS + 1) * 1000,
      },
    },
  });
}

/** Power changes as the emulator saw them, per system (to tell a repeated Reset from a new one). */
function recordPower(env: Environment): Map<string, TimedAction[]> {
  const events = new Map<string, TimedAction[]>();
  env.bmcs?.redfish.onStateChange((system, event) => {
    if (event.type !== 'power-on' && event.type !== 'power-off') return;
    const list = events.get(system.id) ?? [];
    list.push({ time: Date.parse(event.time), action: event.type === 'power-on' ? 'PowerOnEvent' : 'PowerOffEvent', detail: '' });
    events.set(system.id, list);
  });
  return events;
}

function timelineOf(env: Environment, system: string, power: Map<string, TimedAction[]>): TimedAction[] {
  const bmcs = env.bmcs;
  if (bmcs === undefined) return [];
  const actions = bmcs.redfish.system(system).actions.map((action) => ({ time: Date.parse(action.time), action: action.action, detail: action.detail ?? '' }));
  const images = bmcs.fleet.record(system).images.map((image) => ({ time: Date.parse(image.time), action: 'ImageWrite', detail: image.url }));
  return [...actions, ...images, ...(power.get(system) ?? [])];
}

function audit(env: Environment, lives: readonly LifeRecord[], observer: ClusterObserver, power: Map<string, TimedAction[]>): Attribution {
  const result: Attribution = { attributed: 0, unattributed: [], duplicates: [], byAction: {} };
  const requests = [...observer.requests.values()];
  for (const system of new Set(lives.map((life) => life.system))) {
    const hosts = new Set(lives.filter((life) => life.system === system).map((life) => life.host));
    attribute(
      system,
      timelineOf(env, system, power),
      requests.filter((request) => hosts.has(request.host)),
      result,
    );
  }
  return result;
}

interface Observed {
  dir: string;
  canary: string;
  lives: readonly LifeRecord[];
  observer: ClusterObserver;
  power: Map<string, TimedAction[]>;
}

/** The end-of-run checks: side effects by request, the canary, what deleted hosts left behind. */
async function check(env: Environment, observed: Observed): Promise<{ attribution: Attribution; leaks: string[]; left: string[] }> {
  const attribution = audit(env, observed.lives, observed.observer, observed.power);
  const leaks = await canaryLeaks({ dir: observed.dir, kubeconfig: env.kubeconfig, canary: observed.canary, bmcAddress: env.bmcs?.address('rf-0') ?? '' });
  // Hosts whose life failed were never deleted: list what is there without waiting for collection.
  const failed = observed.lives.some((life) => life.failure !== undefined);
  const left = await orphans(env.kubeconfig, NAMESPACE, failed ? 2_000 : 120_000);
  return { attribution, leaks, left };
}

interface Progress {
  lives: LifeRecord[];
  rounds: number;
  killsDone: boolean;
}

async function load(ctx: LoadContext, settings: SoakSettings, progress: Progress): Promise<void> {
  while (progress.rounds < settings.maxRounds && (progress.rounds === 0 || !progress.killsDone)) {
    const plan = {
      round: progress.rounds,
      hosts: settings.hosts,
      waveSize: settings.waveSize,
      waveGapMs: settings.waveGapMs,
      rotateEvery: settings.rotateEvery,
    };
    progress.rounds += 1;
    const lives = await runRound(ctx, plan);
    progress.lives.push(...lives);
    const failed = lives.filter((life) => life.failure !== undefined).length;
    process.stdout.write(`soak: round ${String(plan.round)} done, ${String(lives.length - failed)}/${String(lives.length)} lives complete\n`);
    if (failed > 0) return;
  }
}

/** `work`, or a rejection once `ms` have passed or `signal` aborts (SIGTERM, Ctrl-C). */
async function withDeadline<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the soak did not finish within ${String(ms)} ms`));
    }, ms);
    onAbort = () => {
      reject(new Error('the soak was stopped by a signal'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

async function soak(env: Environment, settings: SoakSettings, dir: string, canary: string): Promise<SoakReport> {
  const started = Date.now();
  await env.kubectl('create', 'namespace', NAMESPACE);
  const observer = new ClusterObserver(apiReader(env.kubeconfig), NAMESPACE);
  const power = recordPower(env);
  const chaos = new Chaos(env, seededRandom(settings.seed));
  const progress: Progress = { lives: [], rounds: 0, killsDone: false };
  observer.start();
  chaos.supervise();
  try {
    const bmcs = env.bmcs;
    if (bmcs === undefined) throw new Error('the soak environment has no emulated BMCs');
    const ctx: LoadContext = { kubeconfig: env.kubeconfig, namespace: NAMESPACE, bmcs, observer, stepTimeoutMs: settings.stepTimeoutMs, password: canary };
    const kills = chaos
      .loop(settings.killIntervalMs, () => Date.now() - started >= settings.killForMs)
      .finally(() => {
        progress.killsDone = true;
      });
    await Promise.all([load(ctx, settings, progress), kills]);
    const convergedAt = Math.max(...progress.lives.map((life) => life.finishedAt ?? Date.now()));
    await chaos.stopSupervising();
    const checked = await check(env, { dir, canary, lives: progress.lives, observer, power });
    return buildReport({ settings, started, convergedAt, progress, chaos, observer, faults: bmcs.redfish.faultStats(), ...checked });
  } finally {
    await chaos.stopSupervising();
    await observer.stop();
  }
}

/** Runs one soak in `dir` and returns its report; the environment is stopped whatever happens, `signal` included. */
export async function runSoak(settings: SoakSettings, dir: string, signal?: AbortSignal): Promise<SoakReport> {
  // At most 20 bytes: the environment's IPMI simulator shares it.
  const canary = `canary-${randomBytes(6).toString('hex')}`;
  const env = await open(settings, dir, canary);
  try {
    return await withDeadline(soak(env, settings, dir, canary), settings.deadlineMs, signal);
  } finally {
    await env.stop();
  }
}
