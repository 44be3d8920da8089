// The scale bench's report: a Markdown section per run for docs/benchmarks.md, and its three
// pictures (hosts per state, CPU cores per process, memory per process) as SVG files.
import { renderHostsSVG, renderLinesSVG, type LineSeries } from '../charts.js';
import type { PhaseResult } from './phases.js';
import type { ScaleReport, UsageSample } from './run.js';

const ROLES = ['apiserver', 'etcd', 'controller-manager', 'metacontroller', 'hooks', 'pool', 'baremetal-operator', 'ironic', 'emulators', 'fake agents'];

const one = (value: number | undefined): string => (value === undefined ? '–' : value.toFixed(1));
const whole = (value: number): string => Math.round(value).toLocaleString('en-US');

function rolesOf(report: ScaleReport): string[] {
  const seen = new Set(report.usage.flatMap((sample) => Object.keys(sample.usage)));
  return [...ROLES.filter((role) => seen.has(role)), ...[...seen].filter((role) => !ROLES.includes(role)).sort()];
}

/** CPU cores used between consecutive samples, per role. */
function coreSeries(samples: readonly UsageSample[], roles: readonly string[]): LineSeries[] {
  return roles.map((role) => ({
    name: role,
    points: samples.slice(1).map((sample, i) => {
      const previous = samples[i] as UsageSample;
      const seconds = Math.max(1, sample.t - previous.t);
      return [sample.t, ((sample.usage[role]?.cpuSeconds ?? 0) - (previous.usage[role]?.cpuSeconds ?? 0)) / seconds] as const;
    }),
  }));
}

function rssSeries(samples: readonly UsageSample[], roles: readonly string[]): LineSeries[] {
  return roles.map((role) => ({ name: role, points: samples.map((sample) => [sample.t, sample.usage[role]?.rssMiB ?? 0] as const) }));
}

export interface Pictures {
  states: string;
  cpu: string;
  memory: string;
}

export function pictures(report: ScaleReport): Pictures {
  const roles = rolesOf(report);
  const who = `${report.stack === 'upstream' ? 'Upstream (baremetal-operator + Ironic)' : 'Ironhook'}, ${String(report.settings.hosts)} hosts`;
  return {
    states: renderHostsSVG(report.states, `${who}: hosts by provisioning state`),
    cpu: renderLinesSVG(coreSeries(report.usage, roles), `${who}: CPU per process`, 'cores'),
    memory: renderLinesSVG(rssSeries(report.usage, roles), `${who}: resident memory per process`, 'MiB'),
  };
}

function phaseRow(phase: PhaseResult, hosts: number): string {
  const m = phase.metrics;
  const reached = phase.reached === undefined ? '–' : `${one(phase.reached.firstSeconds)} / ${one(phase.reached.lastSeconds)}`;
  const settled = phase.settledSeconds === undefined ? '–' : one(phase.settledSeconds);
  const peak = phase.perMinute.length === 0 ? '–' : String(Math.max(...phase.perMinute));
  const cpu = Object.values(phase.cpuSeconds).reduce((sum, value) => sum + value, 0);
  return `| ${phase.name} | ${one(phase.seconds)} | ${reached} | ${settled} | ${peak} | ${one(m.apiRequestsTotal / hosts)} | ${one(m.hostStatusWrites / hosts)} | ${whole(m.hookCalls)} | ${one(m.hookP50Ms)} / ${one(m.hookP99Ms)} | ${one(m.syncP50Ms)} / ${one(m.syncP99Ms)} | ${one(cpu)} |`;
}

function cpuTable(report: ScaleReport, roles: readonly string[]): string[] {
  const header = `| phase | ${roles.join(' | ')} |`;
  const rule = `|---|${roles.map(() => '---').join('|')}|`;
  const rows = report.phases.map((phase) => `| ${phase.name} | ${roles.map((role) => one(phase.cpuSeconds[role])).join(' | ')} |`);
  const peak = `| peak RSS MiB | ${roles.map((role) => whole(report.peakRssMiB[role] ?? 0)).join(' | ')} |`;
  return [header, rule, ...rows, peak];
}

function changesOf(idle: PhaseResult): string {
  const changes = idle.changes ?? [];
  return changes.length === 0 ? '' : ` (${changes.map((change) => `${change.host}: ${change.paths.join(', ')}`).join('; ')})`;
}

function idleLines(report: ScaleReport): string[] {
  const idle = report.phases.find((phase) => phase.name === 'idle');
  if (idle === undefined || idle.seconds <= 0) return [];
  const ours = (idle.cpuSeconds.hooks ?? 0) + (idle.cpuSeconds.pool ?? 0) + (idle.cpuSeconds.metacontroller ?? 0);
  const total = Object.values(idle.cpuSeconds).reduce((sum, value) => sum + value, 0);
  return [
    `- Idle for ${one(idle.seconds / 60)} min with every host provisioned: hooks + pool + Metacontroller used ${((100 * ours) / idle.seconds).toFixed(1)} % of one core, every process together ${((100 * total) / idle.seconds).toFixed(1)} %.`,
    `  ${one(idle.metrics.hookCalls / idle.seconds)} hook calls/s, ${one((60 * idle.metrics.hostStatusWrites) / idle.seconds)} host status writes/min, ${one(idle.metrics.apiRequestsTotal / idle.seconds)} API requests/s; ${String(idle.hostsChanged ?? 0)} of ${String(report.settings.hosts)} hosts changed their resourceVersion${changesOf(idle)}.`,
  ];
}

function topRequests(phase: PhaseResult | undefined, hosts: number): string {
  if (phase === undefined) return '';
  const top = Object.entries(phase.metrics.apiRequests)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, 8)
    .map(([group, count]) => `${group} ${one(count / hosts)}`);
  return `- API requests per host while enrolling, the eight largest: ${top.join(', ')}.`;
}

function deepest(depths: Record<string, number>): string {
  const queues = Object.entries(depths)
    .filter(([, depth]) => depth > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([name, depth]) => `${name.replace(/^CompositeController-ironhook-|^DecoratorController-/u, '')} ${String(depth)}`);
  return queues.length === 0 ? 'none above 0' : queues.join(', ');
}

/** The run's Markdown section; `images` is the path prefix of its SVG files relative to the document. */
export function markdown(report: ScaleReport, images: string): string {
  const s = report.settings;
  const roles = rolesOf(report);
  const lines = [
    `### ${String(s.hosts)} hosts (${s.image}, ${String(s.hostsPerEmulator)} systems per emulator process, power delay ${String(s.powerDelayMs)} ms, hooks and pool from ${s.runFrom ?? 'tsx'}${s.metacontrollerFlags === undefined ? '' : `, Metacontroller ${s.metacontrollerFlags.join(' ')}`})${report.passed ? '' : ' — FAILED'}`,
    '',
    ...(report.failure === undefined ? [] : [`Failure: ${report.failure}`, '']),
    '| phase | wall s | first / last host s | queues empty after s | peak hosts/min | API requests/host | status writes/host | hook calls | hook p50 / p99 ms | Metacontroller sync p50 / p99 ms | CPU-s, all |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...report.phases.map((phase) => phaseRow(phase, s.hosts)),
    '',
    'CPU seconds per process and phase:',
    '',
    ...cpuTable(report, roles),
    '',
    ...idleLines(report),
    topRequests(
      report.phases.find((phase) => phase.name === 'enrol'),
      s.hosts,
    ),
    `- Deepest Metacontroller work queues: ${deepest(report.maxQueueDepth)}.`,
    '',
    `![hosts by state](${images}-states.svg) ![CPU per process](${images}-cpu.svg) ![memory per process](${images}-memory.svg)`,
    '',
  ];
  return lines.join('\n');
}
