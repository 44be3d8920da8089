// startIPAFleet(): the real ironic-python-agent for a few emulated hosts, booted by the same
// boot events as the fake agent (the Redfish emulator's power changes): a power-on from PXE,
// UEFI HTTP or the agent ISO starts IPA in the host's sandbox, a disk boot is "the OS", losing
// power kills IPA. IPA's own poweroff/reboot are done through the emulated BMC.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultIsAgentMedia } from '../agent/fleet.js';
import type { BootEventSource, HostBoot } from '../agent/types.js';
import { IPAProcess } from './agent.js';
import { IPASandbox, type SandboxHostSpec } from './sandbox.js';

interface IPAHostSpec extends SandboxHostSpec {
  /** What IPA's poweroff does: the emulated BMC powers the host off. */
  powerOff(): Promise<void>;
}

export interface IPAFleetOptions {
  /** The venv's python with ironic-python-agent and the sandbox installed (emulators/ipa/install.ts). */
  python: string;
  /** ipa-api-url when the boot medium does not carry one. */
  apiURL: string;
  hosts: readonly IPAHostSpec[];
  sources: readonly BootEventSource[];
  /** Loopback ports IPA must reach besides the API's (the image file server). */
  forwardPorts?: readonly number[];
  dir: string;
  /** IPA's enable_auto_tls (default true, as IPA). */
  autoTLS?: boolean;
}

/** One line of the sandbox guard's audit log. */
interface AuditEntry {
  event: 'open-for-write' | 'exec';
  detail: string;
  allowed: boolean;
  refusal?: 'absent' | 'denied';
  devices?: string[];
}

interface IPARecord {
  hostId: string;
  agentBoots: number;
  osBoots: number;
  /** poweroff/reboot requests IPA made. */
  shutdowns: string[];
  /** How each IPA process ended ("code 0", "SIGKILL"). */
  exits: string[];
}

interface HostEntry {
  spec: IPAHostSpec;
  sandbox: IPASandbox;
  record: IPARecord;
  process?: IPAProcess;
}

export interface IPAFleet {
  record(hostId: string): IPARecord;
  sandbox(hostId: string): IPASandbox;
  audit(hostId: string): AuditEntry[];
  /** The log of the host's latest IPA boot. */
  logOf(hostId: string): string | undefined;
  close(): Promise<void>;
}

function auditPath(entry: HostEntry): string {
  return join(entry.sandbox.dir, 'audit.jsonl');
}

/** The API URL a boot medium carries (the agent ISO's ipa-api-url), else the fleet's. */
function apiURLOf(boot: HostBoot, fallback: string): string {
  if (boot.media !== undefined && URL.canParse(boot.media)) {
    const fromMedia = new URL(boot.media).searchParams.get('ipa-api-url');
    if (fromMedia !== null) return fromMedia;
  }
  return fallback;
}

function bootsAgent(boot: HostBoot): boolean {
  return boot.device === 'pxe' || boot.device === 'http' || (boot.device === 'cdrom' && boot.media !== undefined && defaultIsAgentMedia(boot.media));
}

class Fleet implements IPAFleet {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly unsubscribe: (() => void)[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: IPAFleetOptions) {}

  async start(): Promise<void> {
    for (const [index, spec] of this.options.hosts.entries()) {
      const sandbox = new IPASandbox(spec, join(this.options.dir, spec.id), index);
      const entry: HostEntry = { spec, sandbox, record: { hostId: spec.id, agentBoots: 0, osBoots: 0, shutdowns: [], exits: [] } };
      this.hosts.set(spec.id, entry);
      await sandbox.create();
      for (const port of this.options.forwardPorts ?? []) await sandbox.forward(port);
    }
    for (const source of this.options.sources) {
      this.unsubscribe.push(
        source.subscribe({
          boot: (boot) => {
            this.serially(async () => this.boot(boot));
          },
          powerOff: (hostId) => {
            this.serially(async () => this.powerLoss(hostId));
          },
        }),
      );
    }
  }

  /** Boot events are handled one at a time, in order, so a quick off/on never races. */
  private serially(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: unknown) => {
      process.stderr.write(`ipa fleet: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }

  private async boot(boot: HostBoot): Promise<void> {
    const entry = this.hosts.get(boot.hostId);
    if (entry === undefined) return;
    await entry.process?.kill();
    if (!bootsAgent(boot)) {
      entry.record.osBoots += 1;
      return;
    }
    const apiURL = apiURLOf(boot, this.options.apiURL);
    await entry.sandbox.forward(Number(new URL(apiURL).port));
    entry.record.agentBoots += 1;
    entry.process = new IPAProcess(
      entry.sandbox,
      {
        python: this.options.python,
        apiURL,
        inspectionURL: `${apiURL.replace(/\/$/u, '')}/v1/continue_inspection`,
        auditLog: auditPath(entry),
        ...(this.options.autoTLS === undefined ? {} : { autoTLS: this.options.autoTLS }),
        onShutdown: (command) => {
          entry.record.shutdowns.push(command);
          void entry.spec.powerOff();
        },
        onExit: (code, signal) => {
          entry.record.exits.push(signal ?? `code ${String(code)}`);
        },
      },
      entry.record.agentBoots,
    );
  }

  private async powerLoss(hostId: string): Promise<void> {
    await this.hosts.get(hostId)?.process?.kill();
  }

  private entry(hostId: string): HostEntry {
    const entry = this.hosts.get(hostId);
    if (entry === undefined) throw new Error(`no IPA sandbox for ${hostId}`);
    return entry;
  }

  record(hostId: string): IPARecord {
    return structuredClone(this.entry(hostId).record);
  }

  sandbox(hostId: string): IPASandbox {
    return this.entry(hostId).sandbox;
  }

  audit(hostId: string): AuditEntry[] {
    const path = auditPath(this.entry(hostId));
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEntry);
  }

  logOf(hostId: string): string | undefined {
    return this.entry(hostId).process?.log;
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe) off();
    await this.queue;
    for (const entry of this.hosts.values()) {
      await entry.process?.kill();
      await entry.sandbox.destroy();
    }
  }
}

export async function startIPAFleet(options: IPAFleetOptions): Promise<IPAFleet> {
  const fleet = new Fleet(options);
  try {
    await fleet.start();
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}
