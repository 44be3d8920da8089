// startRedfishEmulator(): many emulated BMCs behind one HTTPS (or HTTP) listener on 127.0.0.1,
// in sushy-tools' URL layout. Returns the URL, a handle per system (state, faults, action log),
// the state-change listener API, and stop().
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { AuthService } from './auth.js';
import { systemScheduler } from './clock.js';
import type { Scheduler } from './clock.js';
import { decideFault, RandomFaults } from './faults.js';
import type { FaultDecision, InjectedFaults, RandomFaultConfig } from './faults.js';
import { StateChangeHub } from './notifier.js';
import type { StateChangeListener } from './notifier.js';
import { malformed } from './replies.js';
import type { Reply } from './replies.js';
import { systemPath } from './render.js';
import { dispatch, systemOfPath } from './router.js';
import type { EmulatorContext, Route } from './router.js';
import { SERVICE_ROUTES } from './routes-service.js';
import { SYSTEM_ROUTES } from './routes-system.js';
import { VMEDIA_ROUTES } from './routes-vmedia.js';
import { EmulatedSystem } from './system.js';
import type { ActionRecord, BootState, MediaState, PowerDisplay, SecureBootState } from './system.js';
import { Listeners } from './listeners.js';
import { TaskService } from './tasks.js';
import { selfSignedCertificate } from './tls.js';
import type { Certificate } from './tls.js';
import type { FaultConfig, SystemConfig } from './types.js';

export interface EmulatorOptions {
  readonly systems: readonly SystemConfig[];
  /** 0 (default) lets the OS pick a free port. The emulator always listens on 127.0.0.1. */
  readonly port?: number;
  /** One more listener per system, whose address names it: one BMC endpoint per host (listeners.ts). */
  readonly portPerSystem?: boolean;
  /** Plain HTTP (for `redfish+http://` addresses) instead of HTTPS with a throwaway certificate. */
  readonly http?: boolean;
  /** Reuse this certificate instead of generating one. */
  readonly tls?: Certificate;
  /** POST each power-on/power-off here as JSON (for a fake agent). */
  readonly notifyURL?: string;
  /** Default power transition delay for systems that set none (default 0: immediate). */
  readonly powerDelayMs?: number | [number, number];
  readonly scheduler?: Scheduler;
  readonly random?: () => number;
  /** Offer SessionService (default true; false behaves like sushy-tools: basic auth only). */
  readonly sessionService?: boolean;
  readonly maxSessions?: number;
  /** Faults applied to every request. */
  readonly faults?: FaultConfig;
  /** Seeded probabilistic faults applied to every request (before `faults`). */
  readonly randomFaults?: RandomFaultConfig;
}

interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number | 'closed';
  readonly auth: 'basic' | 'session' | 'none';
  readonly ifMatch?: string;
  readonly hasBody: boolean;
}

interface SystemHandle {
  readonly id: string;
  readonly powerState: PowerDisplay;
  readonly boot: BootState;
  readonly secureBoot: SecureBootState;
  /** The CD/DVD slot. */
  readonly virtualMedia: { inserted: boolean; image?: string };
  readonly media: ReadonlyMap<string, MediaState>;
  readonly actions: readonly ActionRecord[];
  readonly failedLogins: number;
  readonly locked: boolean;
  /** Replaces this system's faults. */
  setFaults(faults: FaultConfig): void;
  /** Sets the power state at once (the OS shut down, a person pressed the button). */
  setPower(state: 'On' | 'Off'): void;
  /** Changes the account's password; sessions opened with the old one lose this system (same password: nothing). */
  setPassword(password: string): void;
  unlock(): void;
}

export interface RedfishEmulator {
  /** "https://127.0.0.1:<port>" (or http). */
  readonly url: string;
  readonly port: number;
  readonly protocol: 'http' | 'https';
  /** The certificate to trust (HTTPS only). */
  readonly ca: string | undefined;
  /** A BMC address for a host spec, e.g. "redfish+https://127.0.0.1:8000/redfish/v1/Systems/host-0". */
  address(id: string, scheme?: string): string;
  system(id: string): SystemHandle;
  systemIds(): string[];
  onStateChange(listener: StateChangeListener): () => void;
  /** Replaces the emulator-wide faults. */
  setFaults(faults: FaultConfig): void;
  /** Open sessions; expireSessions() forgets them all (clients then get 401). */
  sessionCount(): number;
  expireSessions(): void;
  /** Requests seen so far (most recent last, at most 2000). */
  requests(): readonly RequestRecord[];
  clearRequests(): void;
  /** Waits until queued HTTP notifications were sent. */
  flushNotifications(): Promise<void>;
  readonly notifications: { delivered: number; failed: number };
  /** Requests received and the random faults injected into them (randomFaults). */
  faultStats(): InjectedFaults & { requests: number };
  /**
   * A BMC reboot: every connection is cut, sessions are forgotten, nothing listens for `downMs`,
   * then the same port answers again. Systems keep power, boot override, media and action logs.
   */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const MAX_RECORDS = 2000;

class BodyError extends Error {}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY) {
      throw new BodyError('The request body is too large.');
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError('The request body is not valid JSON.');
  }
}

function send(response: ServerResponse, reply: Reply): void {
  const payload = reply.body === undefined || reply.status === 204 ? '' : JSON.stringify(reply.body);
  const headers: Record<string, string> = { 'odata-version': '4.0', 'content-length': String(Buffer.byteLength(payload)), ...reply.headers };
  if (payload !== '') {
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

function authKind(request: IncomingMessage): RequestRecord['auth'] {
  if (request.headers['x-auth-token'] !== undefined) {
    return 'session';
  }
  return request.headers.authorization === undefined ? 'none' : 'basic';
}

const realDelay = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

const ROUTES: readonly Route[] = [...SERVICE_ROUTES, ...SYSTEM_ROUTES, ...VMEDIA_ROUTES];

class Emulator {
  readonly context: EmulatorContext;
  readonly hub: StateChangeHub;
  readonly records: RequestRecord[] = [];
  globalFaults: FaultConfig;
  readonly randomFaults: RandomFaults | undefined;
  requestCount = 0;
  private readonly systems = new Map<string, EmulatedSystem>();

  constructor(options: EmulatorOptions) {
    this.hub = new StateChangeHub(options.notifyURL);
    this.globalFaults = { ...options.faults };
    this.randomFaults = options.randomFaults === undefined ? undefined : new RandomFaults(options.randomFaults);
    const deps = {
      scheduler: options.scheduler ?? systemScheduler,
      random: options.random ?? Math.random,
      powerDelayMs: options.powerDelayMs ?? 0,
      emit: (system: EmulatedSystem, event: Parameters<StateChangeListener>[1]) => {
        this.hub.emit(system, event);
      },
    };
    for (const config of options.systems) {
      if (this.systems.has(config.id)) {
        throw new Error(`duplicate system id '${config.id}'`);
      }
      this.systems.set(config.id, new EmulatedSystem(config, deps));
    }
    this.context = {
      systems: this.systems,
      auth: new AuthService(() => [...this.systems.values()], options.maxSessions ?? 16),
      tasks: new TaskService(),
      sessionService: options.sessionService ?? true,
      uuid: randomUUID(),
    };
  }

  get(id: string): EmulatedSystem {
    const system = this.systems.get(id);
    if (system === undefined) {
      throw new Error(`the emulator has no system '${id}'`);
    }
    return system;
  }

  all(): EmulatedSystem[] {
    return [...this.systems.values()];
  }

  record(entry: RequestRecord): void {
    this.records.push(entry);
    if (this.records.length > MAX_RECORDS) {
      this.records.splice(0, this.records.length - MAX_RECORDS);
    }
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://emulator').pathname.replace(/\/+$/, '') || '/';
    const method = request.method ?? 'GET';
    const base = { method, path, auth: authKind(request), ifMatch: request.headers['if-match'], hasBody: Number(request.headers['content-length'] ?? 0) > 0 };
    const decision = this.decide(path);
    if (decision.kind === 'close') {
      this.record({ ...base, status: 'closed' });
      if (decision.delayMs !== undefined) await realDelay(decision.delayMs);
      request.socket.destroy();
      return;
    }
    if (decision.delayMs > 0) {
      await realDelay(decision.delayMs);
    }
    const reply = decision.kind === 'reply' ? decision.reply : await this.route(request, method, path);
    this.record({ ...base, status: reply.status });
    if (!response.destroyed) {
      send(response, reply);
    }
  }

  private decide(path: string): FaultDecision {
    this.requestCount += 1;
    return this.randomFaults?.decide() ?? decideFault([this.globalFaults, systemOfPath(this.context, path)?.faults]);
  }

  private async route(request: IncomingMessage, method: string, path: string): Promise<Reply> {
    try {
      const body = await readBody(request);
      return dispatch(ROUTES, this.context, { method, path, headers: request.headers, body });
    } catch (error) {
      if (error instanceof BodyError) {
        return malformed(error.message);
      }
      throw error;
    }
  }
}

function handleOf(system: EmulatedSystem, auth: AuthService): SystemHandle {
  return {
    id: system.id,
    get powerState() {
      return system.powerState;
    },
    get boot() {
      return { ...system.boot };
    },
    get secureBoot() {
      return { ...system.secureBoot };
    },
    get virtualMedia() {
      return system.cdMedia();
    },
    get media() {
      return new Map(system.media);
    },
    get actions() {
      return [...system.actions];
    },
    get failedLogins() {
      return system.failedLogins;
    },
    get locked() {
      return system.locked;
    },
    setFaults: (faults) => {
      system.faults = { ...faults };
    },
    setPower: (state) => {
      system.forcePower(state);
    },
    setPassword: (password) => {
      if (system.config.password === password) {
        return;
      }
      system.config.password = password;
      auth.expireFor(system.id);
    },
    unlock: () => {
      system.unlock();
    },
  };
}

function createListener(options: EmulatorOptions, emulator: Emulator, certificate: Certificate | undefined): Server {
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    emulator.handle(request, response).catch(() => {
      if (!response.headersSent) {
        send(response, { status: 500 });
      }
    });
  };
  if (options.http === true || certificate === undefined) {
    return createHttpServer(handler);
  }
  return createHttpsServer({ key: certificate.key, cert: certificate.cert }, handler);
}

export async function startRedfishEmulator(options: EmulatorOptions): Promise<RedfishEmulator> {
  const emulator = new Emulator(options);
  const certificate = options.http === true ? undefined : (options.tls ?? (await selfSignedCertificate()));
  const ca = certificate?.cert;
  const listeners = new Listeners(() => createListener(options, emulator, certificate));
  const port = await listeners.add(options.port ?? 0);
  if (options.portPerSystem === true) {
    for (const system of emulator.all()) await listeners.add(0, system.id);
  }
  const protocol = options.http === true ? 'http' : 'https';
  return {
    url: `${protocol}://127.0.0.1:${port}`,
    port,
    protocol,
    ca,
    address: (id, scheme = 'redfish') => {
      const system = emulator.get(id).id;
      return `${scheme}+${protocol}://127.0.0.1:${String(listeners.portOf(system) ?? port)}${systemPath(system)}`;
    },
    system: (id) => handleOf(emulator.get(id), emulator.context.auth),
    systemIds: () => emulator.all().map((system) => system.id),
    onStateChange: (listener) => emulator.hub.on(listener),
    setFaults: (faults) => {
      emulator.globalFaults = { ...faults };
    },
    sessionCount: () => emulator.context.auth.list().length,
    expireSessions: () => {
      emulator.context.auth.expireAll();
    },
    requests: () => [...emulator.records],
    clearRequests: () => {
      emulator.records.length = 0;
    },
    flushNotifications: async () => emulator.hub.flush(),
    get notifications() {
      return { delivered: emulator.hub.deliveredNotifications, failed: emulator.hub.failedNotifications };
    },
    faultStats: () => ({ requests: emulator.requestCount, ...(emulator.randomFaults?.injected ?? { dropped: 0, delayed: 0, serverErrors: 0, timedOut: 0 }) }),
    restart: async (downMs) => {
      await listeners.cut();
      emulator.context.auth.expireAll();
      await realDelay(downMs);
      await listeners.relisten();
    },
    stop: async () => {
      for (const system of emulator.all()) {
        system.cancelPending();
      }
      await listeners.cut();
    },
  };
}
