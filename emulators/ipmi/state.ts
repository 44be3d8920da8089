// The simulated host as the chassis-control script sees it: its state files and its event log,
// read and interpreted. Pure except for the file reads.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** ipmi_sim's boot device names, with "default" (the hard disk) called "disk". */
export type SimulatedBootDevice = 'none' | 'pxe' | 'disk' | 'cdrom' | 'bios' | 'other';

export interface SimulatedHostState {
  power: 'on' | 'off';
  bootDevice: SimulatedBootDevice;
}

/** One line of events.log: a "set" the script carried out (or a request refused while failing). */
export interface SimulatorEvent {
  /** Milliseconds since the epoch, from the script's clock. */
  at: number;
  verb: 'set' | 'fail';
  /** power, shutdown, reset, boot, identify (for "fail": the refused verb). */
  item: string;
  value: string;
}

/** The host starting: powered on from off, or reset while on. */
export interface BootEvent {
  at: number;
  cause: 'power-on' | 'reset';
  bootDevice: SimulatedBootDevice;
}

const BOOT_NAMES: Readonly<Record<string, SimulatedBootDevice>> = {
  none: 'none',
  pxe: 'pxe',
  default: 'disk',
  cdrom: 'cdrom',
  bios: 'bios',
};

export function bootDeviceFromSimulator(name: string): SimulatedBootDevice {
  return BOOT_NAMES[name.trim()] ?? 'other';
}

async function readValue(path: string, fallback: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return fallback;
  }
}

/** Reads <stateDir>/power and <stateDir>/boot, the files the script writes. */
export async function readHostState(stateDir: string): Promise<SimulatedHostState> {
  const power = await readValue(join(stateDir, 'power'), '0');
  const boot = await readValue(join(stateDir, 'boot'), 'none');
  return { power: power === '1' ? 'on' : 'off', bootDevice: bootDeviceFromSimulator(boot) };
}

const EVENT_LINE = /^(\d+)(?:\.(\d+))? (set|fail) (\S+)(?: (.*))?$/;

/** One events.log line; undefined for anything else. */
export function parseEventLine(line: string): SimulatorEvent | undefined {
  const match = EVENT_LINE.exec(line.trim());
  if (match === null) {
    return undefined;
  }
  const fraction = (match[2] ?? '0').padEnd(3, '0').slice(0, 3);
  return {
    at: Number(match[1]) * 1000 + Number(fraction),
    verb: match[3] === 'fail' ? 'fail' : 'set',
    item: match[4] ?? '',
    value: (match[5] ?? '').trim(),
  };
}

export function parseEventLog(text: string): SimulatorEvent[] {
  return text.split('\n').flatMap((line) => parseEventLine(line) ?? []);
}

/**
 * Folds one event into the mirrored state and says whether the host booted: "set power 1"
 * while off, or "set reset" while on. `power cycle` shows up as "set power 0" then, one second
 * later, "set power 1", so it boots too.
 */
export function applyEvent(state: SimulatedHostState, event: SimulatorEvent): { state: SimulatedHostState; boot?: BootEvent } {
  if (event.verb !== 'set') {
    return { state };
  }
  switch (event.item) {
    case 'power': {
      const power = event.value === '1' ? 'on' : 'off';
      const next = { ...state, power } as const;
      return state.power === 'off' && power === 'on'
        ? { state: next, boot: { at: event.at, cause: 'power-on', bootDevice: state.bootDevice } }
        : { state: next };
    }
    case 'shutdown':
      return { state: { ...state, power: 'off' } };
    case 'boot':
      return { state: { ...state, bootDevice: bootDeviceFromSimulator(event.value) } };
    case 'reset':
      return state.power === 'on' ? { state, boot: { at: event.at, cause: 'reset', bootDevice: state.bootDevice } } : { state };
    default:
      return { state };
  }
}
