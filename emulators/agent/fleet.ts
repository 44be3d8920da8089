// startFakeAgent(): the fake agent for a set of emulated hosts. It listens to boot events (the
// Redfish emulator, the ipmi_sim launcher, or boot() called directly): a boot from PXE/UEFI HTTP,
// or from the virtual CD with the agent ISO inserted, starts the agent; a disk boot runs "the OS"
// (no agent); losing power stops whatever ran.
import { EventEmitter } from 'node:events';
import { pino, type Logger } from 'pino';
import { FakeAgent, type FakeAgentSettings } from './agent.js';
import type { BootDevice, BootEventSource, FakeAgentRecord, FakeHostSpec } from './types.js';

export interface FakeAgentOptions {
  /** ipa-api-url: the pool's agent API. */
  apiURL: string;
  hosts: readonly FakeHostSpec[];
  sources?: readonly BootEventSource[];
  /** Fixed heartbeat interval (default 1 s; null: IPA's 0.3–0.6 × heartbeat_timeout). */
  heartbeatIntervalMs?: number | null;
  lookupIntervalMs?: number;
  lookupTimeoutMs?: number;
  /** How long asynchronous commands stay RUNNING at least (default 200 ms). */
  commandDelayMs?: number;
  /** Post in-band inspection data before lookup (default true). */
  inspect?: boolean;
  /** Which virtual media image is the agent ISO (default: defaultIsAgentMedia). */
  isAgentMedia?: (url: string) => boolean;
  /** Address the agents' command servers listen on (default 127.0.0.1). */
  listenHost?: string;
  /** Hosts images may be downloaded from (default loopback only). */
  allowDownloadHosts?: readonly string[];
  /**
   * IPA's enable_auto_tls (default true): each agent boot serves /v1/commands over HTTPS with a
   * self-signed certificate for listenHost (openssl CLI) and heartbeats it as agent_verify_ca.
   * false: plain HTTP, no agent_verify_ca.
   */
  autoTLS?: boolean;
  logger?: Logger;
}

type BootResult = 'agent' | 'os' | 'unknown-host';

export interface FakeAgentFleet {
  /** Boots a host as if its BMC powered it on from `device`. */
  boot(hostId: string, device: BootDevice, media?: string): Promise<BootResult>;
  /** The host lost power: its agent (if any) stops. */
  powerLoss(hostId: string): Promise<void>;
  addHost(spec: FakeHostSpec): void;
  /** Ids of every known host. */
  hosts(): string[];
  record(hostId: string): FakeAgentRecord;
  /** The running agent's callback URL, if one runs on the host. */
  callbackURL(hostId: string): string | undefined;
  /** Resolves with the record once `predicate` holds; rejects after `timeoutMs`. */
  waitFor(hostId: string, predicate: (record: FakeAgentRecord) => boolean, timeoutMs?: number): Promise<FakeAgentRecord>;
  close(): Promise<void>;
}

/**
 * The agent ISO as the pool inserts it carries ipa-api-url in its query (the ISO's kernel
 * parameters); an ISO named like IPA (ironic-python-agent, ipa*.iso, *agent*.iso) counts too.
 * Anything else on the virtual CD (a live ISO) is "the OS".
 */
export function defaultIsAgentMedia(media: string): boolean {
  if (!URL.canParse(media)) return false;
  const url = new URL(media);
  const file = url.pathname.split('/').at(-1) ?? '';
  return url.searchParams.has('ipa-api-url') || /ironic-python-agent|^ipa[^/]*\.iso$|agent[^/]*\.iso$/i.test(file);
}

/** ipa-api-url from the agent ISO's query, when the pool put it there. */
function apiURLFromMedia(media: string | undefined): string | undefined {
  if (media === undefined || !URL.canParse(media)) return undefined;
  const api = new URL(media).searchParams.get('ipa-api-url');
  return api === null || !URL.canParse(api) ? undefined : api.endsWith('/') ? api : `${api}/`;
}

function emptyRecord(hostId: string): FakeAgentRecord {
  return {
    hostId,
    agentBoots: 0,
    osBoots: 0,
    lookups: 0,
    heartbeats: 0,
    inspections: 0,
    images: [],
    metadataErased: 0,
    poweredOff: 0,
    failures: [],
    lockedDown: false,
  };
}

function settingsOf(options: FakeAgentOptions, logger: Logger): FakeAgentSettings {
  const interval = options.heartbeatIntervalMs === undefined ? 1_000 : options.heartbeatIntervalMs;
  return {
    apiURL: options.apiURL.endsWith('/') ? options.apiURL : `${options.apiURL}/`,
    listenHost: options.listenHost ?? '127.0.0.1',
    ...(interval === null ? {} : { heartbeatIntervalMs: interval }),
    lookupIntervalMs: options.lookupIntervalMs ?? 500,
    lookupTimeoutMs: options.lookupTimeoutMs ?? 600_000,
    commandDelayMs: options.commandDelayMs ?? 200,
    inspect: options.inspect ?? true,
    allowHosts: options.allowDownloadHosts ?? ['127.0.0.1', 'localhost', '::1'],
    downloadTimeoutMs: 60_000,
    autoTLS: options.autoTLS !== false,
    logger,
  };
}

class Fleet extends EventEmitter implements FakeAgentFleet {
  private readonly specs = new Map<string, FakeHostSpec>();
  private readonly records = new Map<string, FakeAgentRecord>();
  private readonly agents = new Map<string, FakeAgent>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly settings: FakeAgentSettings;
  private readonly isAgentMedia: (url: string) => boolean;

  constructor(
    options: FakeAgentOptions,
    private readonly logger: Logger,
  ) {
    super();
    this.settings = settingsOf(options, logger);
    this.isAgentMedia = options.isAgentMedia ?? defaultIsAgentMedia;
    for (const spec of options.hosts) this.addHost(spec);
    for (const source of options.sources ?? []) {
      this.unsubscribe.push(
        source.subscribe({
          boot: (event) => {
            if (event.macs !== undefined && !this.specs.has(event.hostId)) this.addHost({ id: event.hostId, nics: event.macs.map((mac) => ({ mac })) });
            this.background(this.boot(event.hostId, event.device, event.media));
          },
          powerOff: (hostId) => {
            this.background(this.powerLoss(hostId));
          },
        }),
      );
    }
  }

  private background(work: Promise<unknown>): void {
    work.catch((err: unknown) => {
      this.logger.warn({ err: String(err) }, 'fake agent boot event failed');
    });
  }

  addHost(spec: FakeHostSpec): void {
    this.specs.set(spec.id, spec);
    if (!this.records.has(spec.id)) this.records.set(spec.id, emptyRecord(spec.id));
  }

  hosts(): string[] {
    return [...this.specs.keys()];
  }

  record(hostId: string): FakeAgentRecord {
    return structuredClone(this.records.get(hostId) ?? emptyRecord(hostId));
  }

  callbackURL(hostId: string): string | undefined {
    return this.agents.get(hostId)?.callbackURL;
  }

  private bootsAgent(device: BootDevice, media: string | undefined): boolean {
    return device === 'pxe' || device === 'http' || (device === 'cdrom' && media !== undefined && this.isAgentMedia(media));
  }

  async boot(hostId: string, device: BootDevice, media?: string): Promise<BootResult> {
    const spec = this.specs.get(hostId);
    const record = this.records.get(hostId);
    if (spec === undefined || record === undefined) return 'unknown-host';
    await this.powerLoss(hostId);
    if (!this.bootsAgent(device, media)) {
      record.osBoots += 1;
      this.changed(hostId);
      return 'os';
    }
    const apiURL = apiURLFromMedia(device === 'cdrom' ? media : undefined) ?? this.settings.apiURL;
    const agent = new FakeAgent(
      spec,
      record,
      { ...this.settings, apiURL },
      {
        changed: () => {
          this.changed(hostId);
        },
        stopped: () => {
          if (this.agents.get(hostId) === agent) this.agents.delete(hostId);
        },
      },
    );
    this.agents.set(hostId, agent);
    record.agentBoots += 1;
    await agent.start();
    this.logger.info({ host: hostId, device, callbackURL: agent.callbackURL }, 'fake agent booted');
    this.changed(hostId);
    return 'agent';
  }

  async powerLoss(hostId: string): Promise<void> {
    const agent = this.agents.get(hostId);
    if (agent === undefined) return;
    this.agents.delete(hostId);
    await agent.stop();
    this.changed(hostId);
  }

  private changed(hostId: string): void {
    this.emit('change', hostId);
  }

  waitFor(hostId: string, predicate: (record: FakeAgentRecord) => boolean, timeoutMs = 30_000): Promise<FakeAgentRecord> {
    return new Promise((resolve, reject) => {
      const check = (changed: string): void => {
        if (changed !== hostId || !predicate(this.record(hostId))) return;
        clearTimeout(timer);
        this.off('change', check);
        resolve(this.record(hostId));
      };
      const timer = setTimeout(() => {
        this.off('change', check);
        reject(new Error(`fake agent on ${hostId}: condition not met within ${String(timeoutMs)} ms: ${JSON.stringify(this.record(hostId))}`));
      }, timeoutMs);
      this.on('change', check);
      check(hostId);
    });
  }

  async close(): Promise<void> {
    for (const stop of this.unsubscribe.splice(0)) stop();
    await Promise.all([...this.agents.keys()].map((hostId) => this.powerLoss(hostId)));
  }
}

/** Starts the fake agent for `options.hosts`; agents start when those hosts boot. */
export function startFakeAgent(options: FakeAgentOptions): FakeAgentFleet {
  return new Fleet(options, options.logger ?? pino({ level: 'silent' }));
}
