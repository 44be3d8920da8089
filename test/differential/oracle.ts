// The differential tier's two sides: upstream Metal3's own code (tools/oracle, built into the
// binaries cache by scripts/setup-test-binaries.sh oracle) and seeded random cases (fast-check)
// that both sides answer. A run reports `N cases, N identical`; any other answer fails the test
// with the first differing cases, the seed and the command that repeats the run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import fc from 'fast-check';

import { binary } from '../../devenv/processes.js';

/** Upstream's answer to one case: a result, or upstream's error text, or a panic in upstream's code. */
export type OracleAnswer = { ok: unknown } | { err: string } | { panic: string };

/** The oracle's answers, one per case and in order, from upstream's area `area` (also for pinned cases). */
export function askOracle(area: string, cases: readonly unknown[]): OracleAnswer[] {
  const oracle = binary('oracle');
  if (!existsSync(oracle)) {
    throw new Error(`${oracle} is missing: run scripts/setup-test-binaries.sh oracle (npm test builds it)`);
  }
  const input = cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const run = spawnSync(oracle, [area], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.status !== 0) {
    throw new Error(`oracle ${area} exited ${String(run.status)}: ${run.stderr}`);
  }
  const lines = run.stdout.split('\n').filter((line) => line !== '');
  if (lines.length !== cases.length) {
    throw new Error(`oracle ${area} answered ${String(lines.length)} of ${String(cases.length)} cases: ${run.stderr}`);
  }
  return lines.map((line) => JSON.parse(line) as OracleAnswer);
}

/** How many random cases each area runs, and from which seed (both printed with the result). */
export interface SweepSettings {
  readonly cases: number;
  readonly seed: number;
}

/**
 * IRONHOOK_DIFF_CASES scales every area's default case count (a number, e.g. 10000, replaces
 * it); IRONHOOK_DIFF_SEED fixes the seed (default: a new one per run, printed).
 */
export function sweepSettings(defaultCases: number, env: NodeJS.ProcessEnv = process.env): SweepSettings {
  const cases = env.IRONHOOK_DIFF_CASES === undefined ? defaultCases : Number(env.IRONHOOK_DIFF_CASES);
  const seed = env.IRONHOOK_DIFF_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(env.IRONHOOK_DIFF_SEED);
  if (!Number.isInteger(cases) || cases < 1) throw new Error(`IRONHOOK_DIFF_CASES must be a positive integer, got ${String(env.IRONHOOK_DIFF_CASES)}`);
  if (!Number.isInteger(seed)) throw new Error(`IRONHOOK_DIFF_SEED must be an integer, got ${String(env.IRONHOOK_DIFF_SEED)}`);
  return { cases, seed };
}

/** The same answer shape for both sides: what a case's comparison looks at. */
export type Verdict = { readonly accepted: true; readonly value: unknown } | { readonly accepted: false; readonly error: string };

export interface Sweep<Case> {
  /** The area's name in the report (and the oracle's area unless `oracleArea` says otherwise). */
  readonly area: string;
  readonly oracleArea?: string;
  readonly arbitrary: fc.Arbitrary<Case>;
  readonly defaultCases: number;
  /** What is sent to the oracle for a case (default: the case itself). */
  readonly toOracle?: (c: Case) => unknown;
  /** Ironhook's verdict on a case. */
  readonly ours: (c: Case) => Verdict;
  /** Upstream's verdict, from the oracle's answer (a panic is never a verdict: it fails the case). */
  readonly theirs: (answer: OracleAnswer, c: Case) => Verdict;
  /**
   * Whether two verdicts count as identical (default: both accepted with deeply equal values, or
   * both rejected). Error texts differ by design (Ironhook's say what to fix); an area that
   * compares them says so here.
   */
  readonly same?: (ours: Verdict, theirs: Verdict, c: Case) => boolean;
}

export interface SweepReport<Case> {
  readonly area: string;
  readonly seed: number;
  readonly cases: number;
  readonly identical: number;
  readonly differences: readonly { readonly index: number; readonly input: Case; readonly ours: Verdict; readonly theirs: Verdict | OracleAnswer }[];
  readonly summary: string;
}

function defaultSame(ours: Verdict, theirs: Verdict): boolean {
  if (ours.accepted !== theirs.accepted) return false;
  return !ours.accepted || JSON.stringify(ours.value) === JSON.stringify((theirs as { value: unknown }).value);
}

/** Runs one area's sweep: the seeded cases through both sides, compared one by one. */
export function runSweep<Case>(sweep: Sweep<Case>, settings: SweepSettings = sweepSettings(sweep.defaultCases)): SweepReport<Case> {
  const inputs = fc.sample(sweep.arbitrary, { seed: settings.seed, numRuns: settings.cases });
  const answers = askOracle(sweep.oracleArea ?? sweep.area, inputs.map(sweep.toOracle ?? ((c) => c)));
  const same = sweep.same ?? defaultSame;
  const differences: SweepReport<Case>['differences'][number][] = [];
  inputs.forEach((input, index) => {
    const answer = answers[index] as OracleAnswer;
    const ours = sweep.ours(input);
    if ('panic' in answer) {
      differences.push({ index, input, ours, theirs: answer });
      return;
    }
    const theirs = sweep.theirs(answer, input);
    if (!same(ours, theirs, input)) differences.push({ index, input, ours, theirs });
  });
  const identical = inputs.length - differences.length;
  const repeat = `IRONHOOK_DIFF_SEED=${String(settings.seed)} IRONHOOK_DIFF_CASES=${String(settings.cases)} npm run test:differential`;
  const summary = `${sweep.area}: ${String(inputs.length)} cases, ${String(identical)} identical (seed ${String(settings.seed)}; repeat: ${repeat})`;
  return { area: sweep.area, seed: settings.seed, cases: inputs.length, identical, differences, summary };
}

/** Fails with the first differences (input, both verdicts), else prints the report line. */
export function expectIdentical<Case>(report: SweepReport<Case>, show = 3): void {
  console.log(report.summary);
  if (report.differences.length === 0) return;
  const shown = report.differences.slice(0, show).map((d) => JSON.stringify(d, null, 2));
  throw new Error(`${report.summary}\n${String(report.differences.length)} differ; the first ${String(shown.length)}:\n${shown.join('\n')}`);
}

/** An oracle answer as a verdict, for areas whose result needs no translation. */
export function verdictOf(answer: OracleAnswer): Verdict {
  if ('ok' in answer) return { accepted: true, value: answer.ok };
  if ('err' in answer) return { accepted: false, error: answer.err };
  throw new Error(`the oracle panicked: ${answer.panic}`);
}

/** A sweep whose Ironhook side is asynchronous (a request through the hook server, say). */
export interface AsyncSweep<Case> extends Omit<Sweep<Case>, 'ours'> {
  readonly ours: (c: Case) => Promise<Verdict>;
}

/**
 * runSweep for an asynchronous Ironhook side: Ironhook's verdicts are worked out first, one case
 * at a time, then runSweep compares them (it samples the same cases again from the same seed).
 */
export async function runAsyncSweep<Case>(sweep: AsyncSweep<Case>, settings: SweepSettings = sweepSettings(sweep.defaultCases)): Promise<SweepReport<Case>> {
  const inputs = fc.sample(sweep.arbitrary, { seed: settings.seed, numRuns: settings.cases });
  const verdicts = new Map<string, Verdict>();
  for (const input of inputs) verdicts.set(JSON.stringify(input), await sweep.ours(input));
  const ours = (c: Case): Verdict => {
    const verdict = verdicts.get(JSON.stringify(c));
    if (verdict === undefined) throw new Error('runAsyncSweep: a case was sampled differently the second time');
    return verdict;
  };
  return runSweep({ ...sweep, ours }, settings);
}
