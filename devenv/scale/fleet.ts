// The scale bench's emulated rack: Redfish emulator processes with `perProcess` systems each, a
// port per system (a BMC per host, as the pool serialises calls per BMC endpoint), and beside each
// one a fake agent process that the emulator's power-ons boot (its notifyURL). Metal3's own scale
// runs pair sushy-tools with fake-ipa the same way. Everything listens on 127.0.0.1.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../environment.js';
import { freePort, startProcess, waitFor } from '../processes.js';
import type { StartedProcess } from '../processes.js';

export interface FleetOptions {
  dir: string;
  hosts: number;
  perProcess: number;
  password: string;
  /** The pool's agent API (ipa-api-url). */
  agentAPIURL: string;
  /** Redfish power transition delay, ms. */
  powerDelayMs: number;
  /** Every process started is added here at once (the environment stops them by PID). */
  processes: StartedProcess[];
  /** Without fake agents (upstream's run brings its own agent stand-in): the emulators notify nobody. */
  agents?: boolean;
}

export interface ScaleFleet {
  /** BMC address (redfish-virtualmedia+http://127.0.0.1:<own port>/…) by system id. */
  addresses: Map<string, string>;
  /** MAC of each system's first NIC. */
  macs: Map<string, string>;
  emulators: StartedProcess[];
  agents: StartedProcess[];
}

/** bench-0 … : the system ids, in order. */
function systemId(index: number): string {
  return `bench-${String(index)}`;
}

/** 52:54:00:5b:<index as two bytes>: the bench systems' MACs, apart from the e2e emulator's 52:54:00:1a. */
function benchMAC(index: number): string {
  const byte = (value: number): string => value.toString(16).padStart(2, '0');
  return `52:54:00:5b:${byte(index >> 8)}:${byte(index & 0xff)}`;
}

interface PairPlan {
  name: string;
  first: number;
  count: number;
  emulatorPort: number;
  controlPort: number;
}

function emulatorConfig(options: FleetOptions, plan: PairPlan): string {
  const systems = Array.from({ length: plan.count }, (_, offset) => plan.first + offset).map((index) => ({
    id: systemId(index),
    username: 'admin',
    password: options.password,
    powerState: 'Off',
    macs: [benchMAC(index)],
  }));
  return stringify({
    port: plan.emulatorPort,
    http: true,
    portPerSystem: true,
    ...(options.agents === false ? {} : { notifyURL: `http://127.0.0.1:${String(plan.controlPort)}/events` }),
    powerDelayMs: options.powerDelayMs,
    // Eight sessions per BMC, as an iDRAC has.
    maxSessions: plan.count * 8,
    systems,
  });
}

/** The "<id>\t<address>" lines the emulator prints once it listens. */
function printedAddresses(log: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of readFileSync(log, 'utf8').matchAll(/^(bench-\d+)\t(\S+)$/gmu)) found.set(match[1] ?? '', match[2] ?? '');
  return found;
}

async function startPair(options: FleetOptions, plan: PairPlan, fleet: ScaleFleet): Promise<void> {
  const config = join(options.dir, `${plan.name}.yaml`);
  writeFileSync(config, emulatorConfig(options, plan), { mode: 0o600 });
  const logDir = join(options.dir, 'logs');
  const tsx = ['--import', 'tsx'];
  const emulator = startProcess({
    name: plan.name,
    command: process.execPath,
    args: [...tsx, join(REPO_ROOT, 'emulators', 'redfish', 'main.ts'), '--config', config],
    cwd: REPO_ROOT,
    logDir,
  });
  fleet.emulators.push(emulator);
  options.processes.push(emulator);
  let addresses = new Map<string, string>();
  await waitFor(`${plan.name} to print its ${String(plan.count)} addresses`, async () => {
    addresses = printedAddresses(emulator.log);
    return Promise.resolve(addresses.size === plan.count);
  });
  for (const [id, address] of addresses) fleet.addresses.set(id, address.replace(/^redfish\+/u, 'redfish-virtualmedia+'));
  if (options.agents === false) return;
  const agentArgs = [
    ...tsx,
    join(REPO_ROOT, 'emulators', 'agent', 'main.ts'),
    ...['--api-url', options.agentAPIURL, '--redfish-config', config, '--redfish-url', `http://127.0.0.1:${String(plan.emulatorPort)}`],
    ...['--listen', `127.0.0.1:${String(plan.controlPort)}`],
  ];
  const agent = startProcess({ name: `${plan.name}-agent`, command: process.execPath, args: agentArgs, cwd: REPO_ROOT, logDir, env: { LOG_LEVEL: 'warn' } });
  fleet.agents.push(agent);
  options.processes.push(agent);
  await waitFor(`${plan.name}-agent`, async () => (await fetch(`http://127.0.0.1:${String(plan.controlPort)}/hosts`)).ok);
}

/** Starts ceil(hosts / perProcess) emulator + agent pairs, one after the other. */
export async function startScaleFleet(options: FleetOptions): Promise<ScaleFleet> {
  const fleet: ScaleFleet = { addresses: new Map(), macs: new Map(), emulators: [], agents: [] };
  for (let index = 0; index < options.hosts; index += 1) fleet.macs.set(systemId(index), benchMAC(index));
  for (let first = 0, pair = 0; first < options.hosts; first += options.perProcess, pair += 1) {
    const plan = {
      name: `redfish-${String(pair)}`,
      first,
      count: Math.min(options.perProcess, options.hosts - first),
      emulatorPort: await freePort(),
      controlPort: await freePort(),
    };
    await startPair(options, plan, fleet);
  }
  return fleet;
}
