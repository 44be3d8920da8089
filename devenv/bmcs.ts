// Emulated BMCs for the local environment and the pool e2e tests, all on 127.0.0.1: a loopback
// file server (disk image + sha256 checksum file, a live ISO, the agent ISO/kernel/ramdisk),
// Ironhook's Redfish emulator with a few systems, an ipmi_sim host, and the fake agent booted by
// both emulators' boot events. The driver pool itself runs as a process (environment.ts).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveOnLoopback } from './loopback.js';
import { createBMCDriver } from '../drivers/bmc/registry.js';
import { parseBMCAddress } from '../domain/bmc/index.js';
import { hostFromRedfishConfig, ipmiBootEvents, redfishBootEvents, startFakeAgent } from '../emulators/agent/index.js';
import type { FakeAgentFleet } from '../emulators/agent/index.js';
import type { BootEventSource } from '../emulators/agent/types.js';
import { IPMISimulator } from '../emulators/ipmi/index.js';
import { startRedfishEmulator } from '../emulators/redfish/index.js';
import type { RandomFaultConfig, RedfishEmulator, SystemConfig } from '../emulators/redfish/index.js';

export const BMC_USERNAME = 'admin';
const DEFAULT_REDFISH_HOSTS = 3;
export const IPMI_HOST = 'ipmi-0';
export const IPMI_MAC = '52:54:00:1b:00:01';

/** The MAC the Redfish emulator reports for system rf-<n> (first NIC, the PXE one): 52:54:00:1a:<n+1 as two bytes>. */
export function redfishMAC(id: string): string {
  const number = Number(/^rf-(\d+)$/u.exec(id)?.[1] ?? Number.NaN) + 1;
  if (!Number.isInteger(number) || number > 0xffff) throw new Error(`no emulated Redfish system ${id}`);
  const byte = (value: number): string => value.toString(16).padStart(2, '0');
  return `52:54:00:1a:${byte(number >> 8)}:${byte(number & 0xff)}`;
}

export interface ImageFiles {
  /** http://127.0.0.1:<port> */
  url: string;
  diskURL: string;
  diskChecksumURL: string;
  diskSHA256: string;
  liveISOURL: string;
  agentISOURL: string;
  kernelURL: string;
  ramdiskURL: string;
  /** Requests served, by path. */
  served: string[];
  close(): Promise<void>;
}

/** The files the file server serves, written into `dir` as well (for people looking at them). */
export function imageFiles(dir: string): Map<string, Buffer> {
  mkdirSync(dir, { recursive: true });
  const disk = randomBytes(1024 * 1024 + 17);
  const sha = createHash('sha256').update(disk).digest('hex');
  const files = new Map<string, Buffer>([
    ['disk.img', disk],
    ['disk.img.sha256sum', Buffer.from(`${sha}  disk.img\n`)],
    ['live.iso', Buffer.from('ironhook live iso\n'.repeat(64))],
    ['ironic-python-agent.iso', Buffer.from('ironhook agent iso\n'.repeat(64))],
    ['ironic-python-agent.kernel', Buffer.from('ironhook agent kernel\n')],
    ['ironic-python-agent.initramfs', Buffer.from('ironhook agent initramfs\n')],
  ]);
  for (const [name, data] of files) {
    writeFileSync(join(dir, name), data);
  }
  return files;
}

export async function startFileServer(dir: string, port = 0): Promise<ImageFiles> {
  const files = imageFiles(dir);
  const served: string[] = [];
  const server = await serveOnLoopback((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    served.push(path);
    const data = files.get(path.replace(/^\/images\//u, ''));
    if (data === undefined || !path.startsWith('/images/')) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
    response.end(request.method === 'HEAD' ? undefined : data);
  }, port);
  const url = server.url;
  const sha = files.get('disk.img.sha256sum')?.toString('utf8').split(' ')[0] ?? '';
  return {
    url,
    diskURL: `${url}/images/disk.img`,
    diskChecksumURL: `${url}/images/disk.img.sha256sum`,
    diskSHA256: sha,
    liveISOURL: `${url}/images/live.iso`,
    agentISOURL: `${url}/images/ironic-python-agent.iso`,
    kernelURL: `${url}/images/ironic-python-agent.kernel`,
    ramdiskURL: `${url}/images/ironic-python-agent.initramfs`,
    served,
    close: server.close,
  };
}

function redfishSystemConfigs(password: string, count: number): SystemConfig[] {
  return Array.from({ length: count }, (_, index) => `rf-${String(index)}`).map((id) => ({
    id,
    username: BMC_USERNAME,
    password,
    powerState: 'Off' as const,
    macs: [redfishMAC(id)],
  }));
}

export interface BMCs {
  files: ImageFiles;
  redfish: RedfishEmulator;
  ipmi: IPMISimulator;
  fleet: FakeAgentFleet;
  password: string;
  /** BMC addresses by host id (rf-0 … as redfish-virtualmedia+http, ipmi-0 as ipmi). */
  address(id: string, scheme?: string): string;
  /** Starts the fake agent fleet against the pool's agent API (once the port is known). */
  startAgents(apiURL: string): void;
  close(): Promise<void>;
}

export interface BMCOptions {
  dir: string;
  password: string;
  powerDelayMs?: number;
  /** How long the fake agent's commands stay RUNNING (default 200 ms). */
  agentCommandDelayMs?: number;
  /** Redfish hosts the fake agent leaves alone: another agent (the real IPA) boots with them. */
  realAgentHosts?: readonly string[];
  /** Redfish systems rf-0 … rf-<n-1> (default 3). */
  redfishHosts?: number;
  /** Each Redfish system on a port of its own besides the shared one (emulators/redfish/listeners.ts). */
  redfishPortPerHost?: boolean;
  /** Seeded probabilistic faults on every Redfish request. */
  randomFaults?: RandomFaultConfig;
}

/** `source`'s boot events for the hosts `keep` accepts only. */
export function filterBootEvents(source: BootEventSource, keep: (hostId: string) => boolean): BootEventSource {
  return {
    subscribe: (handlers) =>
      source.subscribe({
        boot: (boot) => {
          if (keep(boot.hostId)) handlers.boot(boot);
        },
        powerOff: (hostId) => {
          if (keep(hostId)) handlers.powerOff(hostId);
        },
      }),
  };
}

function ipmiPowerOff(address: string, password: string): () => Promise<void> {
  return async () => {
    const parsed = parseBMCAddress(address);
    if (parsed.kind !== 'parsed') {
      throw new Error(`bad BMC address ${address}`);
    }
    const driver = createBMCDriver({
      address: parsed.bmc,
      credentials: { username: BMC_USERNAME, password },
      disableCertificateVerification: false,
      timeoutMs: 30_000,
    });
    try {
      await driver.setPower('off');
    } finally {
      await driver.close();
    }
  };
}

export async function startBMCs(options: BMCOptions): Promise<BMCs> {
  const files = await startFileServer(join(options.dir, 'images'));
  const systems = redfishSystemConfigs(options.password, options.redfishHosts ?? DEFAULT_REDFISH_HOSTS);
  const redfish = await startRedfishEmulator({
    systems,
    http: true,
    powerDelayMs: options.powerDelayMs ?? 200,
    // The pool keeps one session per BMC system. With a port per host each one stands for a BMC
    // of its own, with room for 8 sessions as an iDRAC has: a SIGKILLed pool replica cannot log
    // out, and the emulator, like a BMC, keeps what it leaked (a BMC would time it out later).
    maxSessions: Math.max(16, systems.length * (options.redfishPortPerHost === true ? 8 : 2)),
    portPerSystem: options.redfishPortPerHost === true,
    ...(options.randomFaults === undefined ? {} : { randomFaults: options.randomFaults }),
  });
  let ipmi: IPMISimulator;
  try {
    ipmi = await IPMISimulator.start({
      credentials: { username: BMC_USERNAME, password: options.password },
      name: IPMI_HOST,
      dir: join(options.dir, 'ipmi_sim'),
      readyTimeoutMs: 30_000,
    });
  } catch (error) {
    await redfish.stop();
    await files.close();
    throw error;
  }
  let fleet: FakeAgentFleet | undefined;
  const real = new Set(options.realAgentHosts ?? []);
  const startAgents = (apiURL: string): void => {
    const hosts = systems
      .filter((config) => !real.has(config.id))
      .map((config) =>
        hostFromRedfishConfig(config, async () => {
          redfish.system(config.id).setPower('Off');
          return Promise.resolve();
        }),
      );
    hosts.push({ id: IPMI_HOST, nics: [{ mac: IPMI_MAC }], powerOff: ipmiPowerOff(ipmi.address, options.password) });
    fleet = startFakeAgent({
      apiURL,
      hosts,
      sources: [filterBootEvents(redfishBootEvents(redfish), (id) => !real.has(id)), ipmiBootEvents(ipmi, IPMI_HOST)],
      heartbeatIntervalMs: 500,
      lookupIntervalMs: 200,
      commandDelayMs: options.agentCommandDelayMs ?? 200,
    });
  };
  return {
    files,
    redfish,
    ipmi,
    get fleet(): FakeAgentFleet {
      if (fleet === undefined) {
        throw new Error('the fake agents are not started');
      }
      return fleet;
    },
    password: options.password,
    address: (id, scheme) => (id === IPMI_HOST ? ipmi.address : redfish.address(id, scheme ?? 'redfish-virtualmedia')),
    startAgents,
    close: async () => {
      await fleet?.close();
      await ipmi.stop();
      await redfish.stop();
      await files.close();
    },
  };
}
