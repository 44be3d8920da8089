// The side-by-side section of docs/benchmarks.md: Ironhook's and upstream's runs of the same N
// hosts on the same emulated rack, one after the other, as ratios against the goals.
// "Controllers" are what each side adds to a cluster: Metacontroller, the hooks and the pool for
// Ironhook; baremetal-operator and Ironic for upstream. The apiserver, etcd and the emulators
// are listed apart.
import type { PhaseResult } from './phases.js';
import type { ScaleReport } from './run.js';

const CONTROLLERS = {
  ironhook: ['metacontroller', 'hooks', 'pool'],
  upstream: ['baremetal-operator', 'ironic'],
} as const;

export interface SideFigures {
  /** apply → every host available, s. */
  enrolSeconds: number;
  hostsPerMinute: number;
  /** Controllers' CPU seconds per host while enrolling. */
  enrolCPUPerHost: number;
  /** Every process's CPU seconds per host while enrolling. */
  enrolCPUPerHostAll: number;
  /** Controllers' peak resident memory, MiB (the sum of each process's peak). */
  peakMiB: number;
  /** Controllers' share of one core while idle, %. */
  idleCorePercent: number | undefined;
  idleAPIRequestsPerSecond: number | undefined;
}

function phase(report: ScaleReport, name: PhaseResult['name']): PhaseResult | undefined {
  return report.phases.find((candidate) => candidate.name === name);
}

function sum(values: Record<string, number>, roles: readonly string[]): number {
  return roles.reduce((total, role) => total + (values[role] ?? 0), 0);
}

export function figures(report: ScaleReport): SideFigures | undefined {
  const roles = CONTROLLERS[report.stack ?? 'ironhook'];
  const enrol = phase(report, 'enrol');
  if (enrol === undefined) return undefined;
  const hosts = report.settings.hosts;
  const idle = phase(report, 'idle');
  const idleSeconds = idle?.seconds ?? 0;
  return {
    enrolSeconds: enrol.seconds,
    hostsPerMinute: (60 * hosts) / enrol.seconds,
    enrolCPUPerHost: sum(enrol.cpuSeconds, roles) / hosts,
    enrolCPUPerHostAll: Object.values(enrol.cpuSeconds).reduce((total, value) => total + value, 0) / hosts,
    peakMiB: sum(report.peakRssMiB, roles),
    idleCorePercent: idle === undefined || idleSeconds <= 0 ? undefined : (100 * sum(idle.cpuSeconds, roles)) / idleSeconds,
    idleAPIRequestsPerSecond: idle === undefined || idleSeconds <= 0 ? undefined : idle.metrics.apiRequestsTotal / idleSeconds,
  };
}

const fixed = (value: number | undefined, digits = 1): string => (value === undefined ? '–' : value.toFixed(digits));

/** upstream ÷ Ironhook, or Ironhook ÷ upstream where smaller is better, written as "N×". */
function times(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)}×`;
}

interface Row {
  label: string;
  ours: number | undefined;
  theirs: number | undefined;
  /** How many times better Ironhook is, and the goal in the same terms. */
  better: (ours: number, theirs: number) => number;
  goal: string;
  digits?: number;
}

function row({ label, ours, theirs, better, goal, digits }: Row): string {
  const ratio = ours === undefined || theirs === undefined || ours === 0 ? undefined : better(ours, theirs);
  return `| ${label} | ${fixed(ours, digits)} | ${fixed(theirs, digits)} | ${times(ratio)} | ${goal} |`;
}

const higherIsBetter = (ours: number, theirs: number): number => ours / theirs;
const lowerIsBetter = (ours: number, theirs: number): number => theirs / ours;

/** The comparison's Markdown, or undefined when either run has no enrol phase. */
export function comparison(ours: ScaleReport, theirs: ScaleReport, images: string): string | undefined {
  const [a, b] = [figures(ours), figures(theirs)];
  if (a === undefined || b === undefined) return undefined;
  const n = String(ours.settings.hosts);
  const perHostIdle = (side: SideFigures, hosts: number): number | undefined => (side.idleCorePercent === undefined ? undefined : side.idleCorePercent / hosts);
  return [
    `### ${n} hosts side by side with upstream (baremetal-operator v0.13.2 + Ironic 39)${theirs.passed ? '' : ' — upstream run FAILED'}`,
    '',
    ...(theirs.failure === undefined ? [] : [`Upstream failure: ${theirs.failure}`, '']),
    `The same ${n} emulated Redfish systems (${String(ours.settings.hostsPerEmulator)} per emulator process, power delay ${String(ours.settings.powerDelayMs)} ms), one stack after the other on this machine, each reading power every 60 s. Upstream inspects through its agent interface (a stand-in posts each inventory; nothing boots), Ironhook out of band. Cleaning is off on both sides; upstream keeps its defaults (2 workers, PROVISIONING_LIMIT 20). Ironhook idles with its hosts provisioned, upstream with its hosts available (it does not provision here: that needs fake-ipa).`,
    '',
    '| | Ironhook | upstream | Ironhook better by | goal |',
    '|---|---|---|---|---|',
    row({ label: 'apply → all available, s', ours: a.enrolSeconds, theirs: b.enrolSeconds, better: lowerIsBetter, goal: '' }),
    row({ label: 'hosts per minute to available', ours: a.hostsPerMinute, theirs: b.hostsPerMinute, better: higherIsBetter, goal: '≥ 5×' }),
    row({
      label: 'controllers CPU-s per host, enrolling',
      ours: a.enrolCPUPerHost,
      theirs: b.enrolCPUPerHost,
      better: lowerIsBetter,
      goal: '≥ 10×',
      digits: 2,
    }),
    row({
      label: 'every process CPU-s per host, enrolling',
      ours: a.enrolCPUPerHostAll,
      theirs: b.enrolCPUPerHostAll,
      better: lowerIsBetter,
      goal: '',
      digits: 2,
    }),
    row({ label: 'controllers peak memory, MiB', ours: a.peakMiB, theirs: b.peakMiB, better: lowerIsBetter, goal: '≥ 3×', digits: 0 }),
    row({ label: 'controllers idle, % of one core', ours: a.idleCorePercent, theirs: b.idleCorePercent, better: lowerIsBetter, goal: '', digits: 2 }),
    row({
      label: 'idle cost per host, % of one core',
      ours: perHostIdle(a, ours.settings.hosts),
      theirs: perHostIdle(b, theirs.settings.hosts),
      better: lowerIsBetter,
      goal: '≥ 100×',
      digits: 4,
    }),
    row({
      label: 'idle API requests per second',
      ours: a.idleAPIRequestsPerSecond,
      theirs: b.idleAPIRequestsPerSecond,
      better: lowerIsBetter,
      goal: '',
      digits: 2,
    }),
    '',
    `Controllers: Metacontroller + hooks + pool for Ironhook, baremetal-operator + Ironic (its master and workers) for upstream. Upstream's own run: ![upstream hosts by state](${images}-states.svg) ![upstream CPU per process](${images}-cpu.svg) ![upstream memory per process](${images}-memory.svg)`,
    '',
  ].join('\n');
}
