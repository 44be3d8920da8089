// CPU seconds and memory of the bench's processes from /proc, grouped by role: utime + stime
// (clock ticks) of each process, its resident set now (VmRSS) and at its peak (VmHWM).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second; 100 on every Linux this runs on (getconf CLK_TCK). */
const TICKS_PER_SECOND = 100;

interface ProcessUsage {
  cpuSeconds: number;
  rssMiB: number;
  peakRssMiB: number;
}

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] {
  return (
    readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
      .split(')')
      .at(-1) ?? ''
  )
    .trim()
    .split(/\s+/u);
}

/** One process's usage, or undefined when it is gone. */
function processUsage(pid: number): ProcessUsage | undefined {
  try {
    const fields = statFields(pid);
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'mu').exec(status)?.[1] ?? 0);
    return { cpuSeconds: ticks / TICKS_PER_SECOND, rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

export type RoleUsage = Record<string, ProcessUsage>;

/** Usage summed per role (a role's peak is the sum of its processes' peaks, an upper bound). */
export function usageByRole(processes: readonly { role: string; pid: number }[]): RoleUsage {
  const out: RoleUsage = {};
  for (const { role, pid } of processes) {
    const usage = processUsage(pid);
    if (usage === undefined) continue;
    const sum = out[role] ?? { cpuSeconds: 0, rssMiB: 0, peakRssMiB: 0 };
    out[role] = { cpuSeconds: sum.cpuSeconds + usage.cpuSeconds, rssMiB: sum.rssMiB + usage.rssMiB, peakRssMiB: sum.peakRssMiB + usage.peakRssMiB };
  }
  return out;
}

/** CPU seconds used between two readings, per role. */
export function cpuBetween(before: RoleUsage, after: RoleUsage): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([role, usage]) => [role, usage.cpuSeconds - (before[role]?.cpuSeconds ?? 0)]));
}

/** The live processes `pid` started, and theirs (Ironic's API and conductor workers fork from its master). */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(statFields(Number(entry))[1]));
    } catch {
      // Gone since the listing.
    }
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const [child, of] of parentOf) {
      if (of === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found.sort((a, b) => a - b);
}
