// AgentService (port.ts) on the agent API state and the command client: arm a host, wait for
// its agent, read its inventory, write the image, erase metadata, power off, forget.
import { pino, type Logger } from 'pino';
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import { AgentClient, AGENT_TIMEOUTS, commandFailure, type AgentEndpoint, type CommandResult } from './client.js';
import { AgentError, abortError } from './errors.js';
import { buildConfigDriveISO } from './configdrive.js';
import { buildImageInfo, type ImageInfo } from './image-info.js';
import type {
  AgentBootParameters,
  AgentCallOptions,
  AgentConfigDrive,
  AgentHandle,
  AgentHostIdentity,
  AgentHostRef,
  AgentImage,
  AgentService,
} from './port.js';
import { agentNode, hostKey, type AgentEntry, type AgentRecord, type AgentState } from './state.js';
import type { AgentStateStore } from './store.js';

export interface AgentServiceTimeouts {
  /** In-band inspection data (Ironic's inspect_wait_timeout). */
  inventoryMs: number;
  /** prepare_image (deploy_callback_timeout). */
  writeImageMs: number;
  /** Short commands: erase_devices_metadata (command_wait_attempts × interval). */
  commandWaitMs: number;
  /** power_off until the agent reports it or goes away. */
  powerOffMs: number;
}

const DEFAULT_SERVICE_TIMEOUTS: AgentServiceTimeouts = {
  inventoryMs: 1_800_000,
  writeImageMs: AGENT_TIMEOUTS.deployCallbackMs,
  commandWaitMs: AGENT_TIMEOUTS.commandWaitMs,
  powerOffMs: AGENT_TIMEOUTS.commandTimeoutMs,
};

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

export interface AgentServiceOptions {
  state: AgentState;
  /** The ipa-api-url agents must reach (as seen from the hosts). */
  apiURL: string;
  client?: AgentClient;
  store?: AgentStateStore;
  logger?: Logger;
  timeouts?: Partial<AgentServiceTimeouts>;
  timers?: Timers;
  now?: () => number;
}

type WaitEvent = 'heartbeat' | 'inventory';

function notArmed(host: AgentHostRef): AgentError {
  return new AgentError('AgentNotArmed', `${hostKey(host)} is not armed for an agent (re-arm with expect())`);
}

async function prepareImageParams(imageInfo: ImageInfo, drive: AgentConfigDrive | undefined): Promise<Record<string, unknown>> {
  const configdrive = await buildConfigDriveISO(drive);
  return configdrive === undefined ? { image_info: imageInfo } : { image_info: imageInfo, configdrive };
}

export class IronhookAgentService implements AgentService {
  private readonly state: AgentState;
  private readonly client: AgentClient;
  private readonly logger: Logger;
  private readonly timeouts: AgentServiceTimeouts;
  private readonly timers: Timers;
  private readonly now: () => number;
  /** Per host: the last queued store write, resolving with its error (undefined when it worked). */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** The write started by the latest 'changed' event (expect() waits for its own). */
  private lastSave: Promise<unknown> = Promise.resolve(undefined);

  constructor(private readonly options: AgentServiceOptions) {
    this.state = options.state;
    this.client = options.client ?? new AgentClient();
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.timeouts = { ...DEFAULT_SERVICE_TIMEOUTS, ...options.timeouts };
    this.timers = options.timers ?? realTimers;
    this.now = options.now ?? Date.now;
    this.state.on('changed', (record: AgentRecord) => {
      this.lastSave = this.persist(hostKey(record), (store) => store.save(record));
      this.releaseCertificates();
    });
    this.state.on('forgotten', (key: string) => {
      const [namespace = '', name = ''] = key.split('/');
      void this.persist(key, (store) => store.remove({ namespace, name }));
      this.releaseCertificates();
    });
  }

  /** A re-armed or forgotten host's agent_verify_ca is no longer trusted: its dispatcher closes. */
  private releaseCertificates(): void {
    this.client.retainCertificates(this.state.verifyCAs()).catch((err: unknown) => {
      this.logger.warn({ err: err instanceof Error ? err.message : 'unknown' }, 'closing a pinned agent dispatcher failed');
    });
  }

  /** Writes for one host run in order; a failed write is logged and resolves with its error. */
  private persist(key: string, write: (store: AgentStateStore) => Promise<void>): Promise<unknown> {
    const store = this.options.store;
    if (store === undefined) return Promise.resolve(undefined);
    const previous = this.writes.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => write(store))
      .then(
        () => undefined,
        (err: unknown) => {
          this.logger.error({ host: key, err: err instanceof Error ? err.message : 'unknown' }, 'agent state not persisted');
          return err;
        },
      );
    this.writes.set(key, next);
    return next;
  }

  /** Waits for the host's queued store writes; resolves with the last one's error, if it failed. */
  saved(host: AgentHostRef): Promise<unknown> {
    return this.writes.get(hostKey(host)) ?? Promise.resolve(undefined);
  }

  /** Resolves when every pending store write has finished. */
  async flush(): Promise<void> {
    await Promise.all(this.writes.values());
  }

  /** Re-arms the hosts a previous pool process stored; returns how many. Call before serving. */
  async restore(): Promise<number> {
    const records = (await this.options.store?.list()) ?? [];
    for (const record of records) this.state.restore(record);
    this.logger.info({ count: records.length }, 'armed agent hosts restored');
    return records.length;
  }

  async expect(host: AgentHostIdentity, macs: string[]): Promise<AgentBootParameters> {
    const entry = this.state.arm(host, macs);
    const saveError = await this.lastSave;
    if (saveError !== undefined) {
      this.state.forget(host);
      throw new AgentError('AgentStateNotSaved', `${hostKey(host)}: the agent token could not be stored, so it would not survive a restart`, {
        cause: saveError,
      });
    }
    if (entry.macs.length === 0) {
      this.logger.warn({ namespace: host.namespace, name: host.name }, 'armed without a valid MAC: only a lookup by node UUID can match');
    }
    this.logger.info({ namespace: host.namespace, name: host.name, macCount: entry.macs.length }, 'armed for an agent boot');
    return { apiURL: this.options.apiURL, token: entry.token };
  }

  async waitForAgent(host: AgentHostRef, options: { signal: AbortSignal; timeoutMs: number }): Promise<AgentHandle> {
    const entry = await this.waitFor(host, 'heartbeat', (candidate) => candidate.heartbeatAt !== undefined, options);
    return { namespace: entry.namespace, name: entry.name, callbackURL: entry.callbackURL ?? '' };
  }

  async inventory(agent: AgentHandle, options: AgentCallOptions = {}): Promise<HardwareDetails> {
    const timeoutMs = options.timeoutMs ?? this.timeouts.inventoryMs;
    const entry = await this.waitFor(agent, 'inventory', (candidate) => candidate.inventory !== undefined, { ...options, timeoutMs });
    return structuredClone(entry.inventory ?? {});
  }

  async writeImage(agent: AgentHandle, image: AgentImage, configDrive?: AgentConfigDrive, options: AgentCallOptions = {}): Promise<void> {
    const endpoint = this.endpoint(agent);
    const imageInfo = buildImageInfo(image, endpoint.entry.uid);
    const deadline = this.now() + (options.timeoutMs ?? this.timeouts.writeImageMs);
    const previous = await this.resumable(endpoint, imageInfo.id, options.signal);
    if (previous === 'written') {
      this.logger.info({ namespace: agent.namespace, name: agent.name }, 'image already written by this agent boot');
      return;
    }
    // IPA picks the disk from its node (it looks up again when it has no hints), not from image_info.
    this.state.setRootDevice(agent, imageInfo.root_device);
    // The ISO is only built when prepare_image is sent, not when a running one is resumed.
    const sent = previous ?? (await this.client.send(endpoint, 'standby.prepare_image', await prepareImageParams(imageInfo, configDrive), options.signal));
    this.logger.info({ namespace: agent.namespace, name: agent.name, command: 'prepare_image', resumed: previous !== undefined }, 'writing image');
    await this.finish(endpoint, sent, { deadline, signal: options.signal });
  }

  async eraseDevicesMetadata(agent: AgentHandle, options: AgentCallOptions = {}): Promise<void> {
    const endpoint = this.endpoint(agent);
    const step = { step: 'erase_devices_metadata', interface: 'deploy', priority: 99, reboot_requested: false, abortable: true, args: {} };
    // IPA caches this node in place of the one it looked up: it must be the whole node.
    const params = { step, node: agentNode(endpoint.entry), ports: [] };
    const timeoutMs = options.timeoutMs ?? this.timeouts.commandWaitMs;
    this.logger.info({ namespace: agent.namespace, name: agent.name, command: 'erase_devices_metadata' }, 'cleaning metadata');
    await this.client.run(endpoint, 'clean.execute_clean_step', params, { timeoutMs, signal: options.signal });
  }

  async powerOff(agent: AgentHandle, options: AgentCallOptions = {}): Promise<void> {
    const endpoint = this.endpoint(agent);
    const deadline = this.now() + (options.timeoutMs ?? this.timeouts.powerOffMs);
    const sent = await this.client.send(endpoint, 'standby.power_off', {}, options.signal);
    this.logger.info({ namespace: agent.namespace, name: agent.name, command: 'power_off' }, 'in-band power off');
    await this.finish(endpoint, sent, { deadline, signal: options.signal, goneIsDone: true });
  }

  forget(host: AgentHostRef): void {
    this.state.forget(host);
  }

  private async finish(
    endpoint: AgentEndpoint,
    sent: CommandResult,
    options: { deadline: number; signal?: AbortSignal | undefined; goneIsDone?: boolean },
  ): Promise<void> {
    const done = await this.client.wait(endpoint, sent, options);
    if (done !== 'gone' && done.command_status !== 'SUCCEEDED') {
      throw commandFailure(done);
    }
  }

  /**
   * After a pool restart the agent may already be writing (or have written) the image: a
   * RUNNING prepare_image is waited on, a SUCCEEDED one naming this image counts as done.
   */
  private async resumable(endpoint: AgentEndpoint, imageID: string, signal?: AbortSignal): Promise<CommandResult | 'written' | undefined> {
    const last = (await this.client.list(endpoint, signal).catch(() => [])).at(-1);
    if (last?.command_name !== 'prepare_image') return undefined;
    if (last.command_status === 'RUNNING') return last;
    const written = last.command_status === 'SUCCEEDED' && JSON.stringify(last.command_result ?? '').includes(imageID);
    return written ? 'written' : undefined;
  }

  private endpoint(agent: AgentHostRef & { callbackURL?: string }): AgentEndpoint & { entry: AgentEntry } {
    const entry = this.state.get(agent);
    const callbackURL = entry?.callbackURL ?? agent.callbackURL;
    if (entry === undefined || callbackURL === undefined || callbackURL === '') {
      throw notArmed(agent);
    }
    return { callbackURL, token: entry.token, entry, ...(entry.agentVerifyCA === undefined ? {} : { verifyCA: entry.agentVerifyCA }) };
  }

  private waitFor(
    host: AgentHostRef,
    event: WaitEvent,
    ready: (entry: AgentEntry) => boolean,
    options: AgentCallOptions & { timeoutMs: number },
  ): Promise<AgentEntry> {
    const current = this.state.get(host);
    if (current === undefined) {
      return Promise.reject(notArmed(host));
    }
    if (ready(current)) return Promise.resolve(current);
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const key = hostKey(host);
      const cleanup = (): void => {
        this.state.off(event, onEvent);
        this.state.off('forgotten', onForgotten);
        signal?.removeEventListener('abort', onAbort);
        this.timers.clearTimeout(timer);
      };
      const settle = (action: () => void): void => {
        cleanup();
        action();
      };
      const onEvent = (entry: AgentEntry): void => {
        if (hostKey(entry) === key && ready(entry))
          settle(() => {
            resolve(entry);
          });
      };
      const onForgotten = (forgotten: string): void => {
        if (forgotten === key)
          settle(() => {
            reject(new AgentError('AgentNotArmed', `${key} was forgotten while waiting for its agent`));
          });
      };
      const onAbort = (): void => {
        settle(() => {
          reject(signal === undefined ? new Error('aborted') : abortError(signal));
        });
      };
      const timer = this.timers.setTimeout(() => {
        settle(() => {
          reject(new AgentError('AgentTimeout', `no agent ${event} from ${key} within ${options.timeoutMs} ms`));
        });
      }, options.timeoutMs);
      this.state.on(event, onEvent);
      this.state.on('forgotten', onForgotten);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
