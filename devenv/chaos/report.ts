// The soak's figures and verdict: printed, and written by `npm run soak` as report.json and
// report.md (.ironhook/soak/ by default).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Attribution } from './audit.js';
import type { Chaos, KillRecord } from './kills.js';
import type { LifeRecord } from './load.js';
import type { ClusterObserver } from './observer.js';
import { KILL_KINDS } from './settings.js';
import type { SoakSettings } from './settings.js';
import type { InjectedFaults } from '../../emulators/redfish/index.js';

export interface SoakReport {
  passed: boolean;
  problems: string[];
  hosts: number;
  rounds: number;
  lives: { total: number; complete: number; diskImage: number; liveISO: number; rotated: number };
  durationMs: number;
  kills: { total: number; byKind: Record<string, number>; list: KillRecord[] };
  selfExits: Record<string, number>;
  leaderChanges: number;
  faults: InjectedFaults & { requests: number };
  convergeAfterLastKillMs: number;
  requestsSeen: number;
  /** Requests that ended Failed (the hook then made a new one after its back-off). */
  requestsFailed: number;
  /** BMC steps run again inside their request after a transient BMC failure. */
  bmcStepRepeats: number;
  /** How long one life took, apply to deletion (ms). */
  lifeDurations: { p50: number; p90: number; max: number };
  sideEffects: { attributed: number; unattributed: number; byAction: Record<string, number> };
  duplicates: Attribution['duplicates'];
  unattributed: Attribution['unattributed'];
  canaryLeaks: string[];
  orphans: string[];
  failures: string[];
  settings: SoakSettings;
}

export interface ReportInput {
  settings: SoakSettings;
  started: number;
  convergedAt: number;
  progress: { lives: LifeRecord[]; rounds: number };
  chaos: Chaos;
  observer: ClusterObserver;
  faults: InjectedFaults & { requests: number };
  attribution: Attribution;
  leaks: string[];
  left: string[];
}

function killsByKind(kills: readonly KillRecord[]): Record<string, number> {
  return Object.fromEntries(KILL_KINDS.map((kind) => [kind, kills.filter((kill) => kill.kind === kind).length]));
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0);
}

function lifeDurations(lives: readonly LifeRecord[]): SoakReport['lifeDurations'] {
  const sorted = lives.flatMap((life) => (life.finishedAt === undefined ? [] : [life.finishedAt - life.startedAt])).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), max: sorted.at(-1) ?? 0 };
}

function problemsOf(input: ReportInput, byKind: Record<string, number>): string[] {
  const { progress, chaos, attribution, leaks, left } = input;
  const failures = progress.lives.filter((life) => life.failure !== undefined);
  return [
    ...failures.map((life) => `${life.host} did not finish its life: ${life.failure ?? ''}`),
    ...Object.entries(byKind)
      .filter(([, count]) => count === 0)
      .map(([kind]) => `no ${kind} kill happened`),
    ...chaos.errors,
    ...attribution.duplicates.map((dup) => `duplicate ${dup.action} ${dup.detail} on ${dup.system} in ${dup.request} at ${dup.times.join(', ')}`),
    ...leaks.map((where) => `canary password found in ${where}`),
    ...left.map((name) => `left behind after deletion: ${name}`),
  ];
}

export function buildReport(input: ReportInput): SoakReport {
  const { settings, started, convergedAt, progress, chaos, observer, faults, attribution, leaks, left } = input;
  const byKind = killsByKind(chaos.kills);
  const lastKill = Math.max(0, ...chaos.kills.map((kill) => kill.at + kill.restartMs));
  const problems = problemsOf(input, byKind);
  const lives = progress.lives;
  return {
    passed: problems.length === 0,
    problems,
    hosts: settings.hosts,
    rounds: progress.rounds,
    lives: {
      total: lives.length,
      complete: lives.filter((life) => life.failure === undefined).length,
      diskImage: lives.filter((life) => life.image === 'disk').length,
      liveISO: lives.filter((life) => life.image === 'live-iso').length,
      rotated: lives.filter((life) => life.rotated).length,
    },
    durationMs: Date.now() - started,
    kills: { total: chaos.kills.length, byKind, list: chaos.kills },
    selfExits: { ...chaos.selfExits },
    leaderChanges: observer.leaderChanges,
    faults,
    convergeAfterLastKillMs: Math.max(0, convergedAt - lastKill),
    requestsSeen: observer.requests.size,
    requestsFailed: [...observer.requests.values()].filter((request) => request.phase === 'Failed').length,
    bmcStepRepeats: [...observer.requests.values()].reduce((sum, request) => sum + request.bmcRepeats, 0),
    lifeDurations: lifeDurations(lives),
    sideEffects: { attributed: attribution.attributed, unattributed: attribution.unattributed.length, byAction: attribution.byAction },
    duplicates: attribution.duplicates,
    unattributed: attribution.unattributed,
    canaryLeaks: leaks,
    orphans: left,
    failures: lives.flatMap((life) => (life.failure === undefined ? [] : [`${life.host}: ${life.failure}`])),
    settings,
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The figures as a few lines of text (printed, and the head of report.md). */
export function summary(report: SoakReport): string {
  const kinds = Object.entries(report.kills.byKind)
    .map(([kind, count]) => `${kind} ${String(count)}`)
    .join(', ');
  const f = report.faults;
  const exits = Object.entries(report.selfExits).map(([name, count]) => `${name} ${String(count)}`);
  return [
    `soak ${report.passed ? 'PASSED' : 'FAILED'} in ${seconds(report.durationMs)}`,
    `hosts ${String(report.hosts)}, rounds ${String(report.rounds)}, lives ${String(report.lives.complete)}/${String(report.lives.total)} complete (disk image ${String(report.lives.diskImage)}, live ISO ${String(report.lives.liveISO)}, password rotated ${String(report.lives.rotated)})`,
    `kills ${String(report.kills.total)}: ${kinds}; leadership changes ${String(report.leaderChanges)}; exits on their own: ${exits.length === 0 ? 'none' : exits.join(', ')}`,
    `BMC faults injected in ${String(f.requests)} Redfish requests: dropped ${String(f.dropped)}, delayed ${String(f.delayed)}, 5xx ${String(f.serverErrors)}, timed out ${String(f.timedOut)}`,
    `converged ${seconds(report.convergeAfterLastKillMs)} after the last kill; one life took ${seconds(report.lifeDurations.p50)} (p50), ${seconds(report.lifeDurations.p90)} (p90), ${seconds(report.lifeDurations.max)} (max)`,
    `requests ${String(report.requestsSeen)}, failed ${String(report.requestsFailed)} (each made again by the hook); BMC steps repeated inside their request after a transient failure: ${String(report.bmcStepRepeats)}`,
    `side effects attributed to ${String(report.requestsSeen)} requests: ${String(report.sideEffects.attributed)} (${JSON.stringify(report.sideEffects.byAction)}), unattributed ${String(report.sideEffects.unattributed)}; duplicates ${String(report.duplicates.length)}; canary leaks ${String(report.canaryLeaks.length)}; left behind ${String(report.orphans.length)}`,
    ...report.problems.slice(0, 20).map((problem) => `problem: ${problem}`),
  ].join('\n');
}

/** report.json and report.md in `dir`. */
export function writeReport(report: SoakReport, dir: string): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const markdown = join(dir, 'report.md');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  const kills = report.kills.list.map((kill) => `| ${new Date(kill.at).toISOString()} | ${kill.kind} | ${kill.target} | ${String(kill.restartMs)} |`);
  const body = [
    '# Chaos soak report',
    '',
    '```',
    summary(report),
    '```',
    '',
    '| time | kind | killed | ready again after (ms) |',
    '|---|---|---|---|',
    ...kills,
    '',
  ];
  writeFileSync(markdown, body.join('\n'));
  return { json, markdown };
}
