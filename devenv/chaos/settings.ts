// What one chaos soak run does: how many hosts, how often a process is killed, how many BMC
// requests are disturbed, and how long it may take. `npm run soak` reads SOAK_* variables;
// the e2e smoke (test/e2e/soak.test.ts) uses SMOKE.

export const KILL_KINDS = ['hooks', 'pool', 'metacontroller', 'apiserver', 'emulators'] as const;
export type KillKind = (typeof KILL_KINDS)[number];

export interface SoakSettings {
  /** Emulated Redfish hosts (rf-0 …), each taking one life per round. */
  hosts: number;
  /** Seed of the kill schedule, the BMC faults and the load's choices. */
  seed: number;
  /** Kills happen this long apart (uniform in [min, max], ms). */
  killIntervalMs: readonly [number, number];
  /** How long to keep killing (ms); the kill loop also goes on until every kind was killed once. */
  killForMs: number;
  /** Hosts start this many at a time ... */
  waveSize: number;
  /** ... this long apart (ms). */
  waveGapMs: number;
  /** Rounds of lives at most (a round starts again while kills remain). */
  maxRounds: number;
  /** Probability per BMC request: dropped, delayed (by delayMs), answered 5xx, timed out. */
  faults: { drop: number; delay: number; error: number; timeout: number; delayMs: readonly [number, number] };
  /** Every n-th host has its BMC password rotated mid-life (0: none). */
  rotateEvery: number;
  /** One step of one host's life may take this long (ms) before the run fails. */
  stepTimeoutMs: number;
  /** Hard limit on the whole run (ms): everything stops and the run fails after it. */
  deadlineMs: number;
}

/**
 * The e2e smoke: ~10 hosts, every kind of kill once, a few minutes. Its fault rates are a tenth
 * of the full run's, which keeps it near 200 s inside CI's budget (at the full rates ten hosts
 * take about 520 s); the full rates run in `npm run soak`.
 */
export const SMOKE: SoakSettings = {
  hosts: 10,
  seed: 14,
  killIntervalMs: [8_000, 15_000],
  killForMs: 0,
  waveSize: 5,
  waveGapMs: 5_000,
  maxRounds: 3,
  faults: { drop: 0.0025, delay: 0.0025, error: 0.002, timeout: 0.0005, delayMs: [200, 1_500] },
  rotateEvery: 3,
  stepTimeoutMs: 420_000,
  deadlineMs: 15 * 60_000,
};

/**
 * `npm run soak`: 200 hosts, a kill every 30–90 s for 20 minutes (SOAK_MINUTES). Waves of 10 a
 * minute apart spread the first round's 200 lives over those 20 minutes.
 */
const FULL: SoakSettings = {
  ...SMOKE,
  hosts: 200,
  seed: 1,
  killIntervalMs: [30_000, 90_000],
  killForMs: 20 * 60_000,
  waveSize: 10,
  waveGapMs: 60_000,
  maxRounds: 20,
  // 5 % of BMC requests dropped or delayed, 2 % answered 5xx, 0.5 % timed out.
  faults: { drop: 0.025, delay: 0.025, error: 0.02, timeout: 0.005, delayMs: [300, 2_500] },
  rotateEvery: 10,
  stepTimeoutMs: 900_000,
  deadlineMs: 60 * 60_000,
};

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

/** FULL with SOAK_HOSTS, SOAK_MINUTES, SOAK_SEED, SOAK_KILL_MIN_SECONDS, SOAK_KILL_MAX_SECONDS, SOAK_FAULT_SCALE, SOAK_WAVE. */
export function soakSettingsFromEnv(env: NodeJS.ProcessEnv): SoakSettings {
  const scale = number(env, 'SOAK_FAULT_SCALE', 1);
  const minutes = number(env, 'SOAK_MINUTES', FULL.killForMs / 60_000);
  const killMin = number(env, 'SOAK_KILL_MIN_SECONDS', FULL.killIntervalMs[0] / 1000) * 1000;
  const killMax = Math.max(killMin, number(env, 'SOAK_KILL_MAX_SECONDS', FULL.killIntervalMs[1] / 1000) * 1000);
  const { drop, delay, error, timeout, delayMs } = FULL.faults;
  return {
    ...FULL,
    hosts: Math.max(1, Math.round(number(env, 'SOAK_HOSTS', FULL.hosts))),
    seed: Math.round(number(env, 'SOAK_SEED', FULL.seed)),
    killIntervalMs: [killMin, killMax],
    killForMs: minutes * 60_000,
    waveSize: Math.max(1, Math.round(number(env, 'SOAK_WAVE', FULL.waveSize))),
    faults: { drop: drop * scale, delay: delay * scale, error: error * scale, timeout: timeout * scale, delayMs },
    deadlineMs: Math.max(FULL.deadlineMs, minutes * 60_000 + 30 * 60_000),
  };
}
