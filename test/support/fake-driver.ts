// Test doubles for the driver pool: an in-memory BMC fleet behind the BMCDriver interface, a fake
// AgentService whose agent "boots" when its host powers on, and a harness that wires a DriverPool
// to the in-memory Kubernetes API and a manual clock. Nothing here touches the network.
import { Writable } from 'node:stream';
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import type { HostOperation, BMCMonitor, HostOperationSpec } from '../../domain/operations.js';
import type { AgentConfigDrive, AgentHandle, AgentHostIdentity, AgentHostRef, AgentImage, AgentService } from '../../drivers/agent/port.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type {
  BMCCheck,
  BMCCheckNeeds,
  BMCConnectionOptions,
  BMCDriver,
  BootOptions,
  PowerAction,
  PowerState,
  VirtualMediaState,
} from '../../drivers/bmc/types.js';
import { ManualClock } from '../../drivers/pool/clock.js';
import { MemoryKube } from './memory-kube.js';
import type { Secret } from '../../drivers/kube/port.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { createPoolMetrics } from '../../drivers/pool/metrics.js';
import type { PoolMetrics } from '../../drivers/pool/metrics.js';
import { createNetworkGuard } from '../../drivers/pool/network-guard.js';
import { DriverPool } from '../../drivers/pool/pool.js';
import type { PoolDeps, PoolSettings } from '../../drivers/pool/pool.js';

const HARDWARE: HardwareDetails = {
  systemVendor: { manufacturer: 'Ironhook', productName: 'Fake Server', serialNumber: 'FAKE-0001' },
  cpu: { arch: 'x86_64', model: 'Fake CPU', count: 8, clockMegahertz: 2400 },
  ramMebibytes: 16384,
  nics: [{ name: 'eth0', mac: '00:11:22:33:44:55', ip: '192.0.2.20', pxe: true }],
  storage: [{ name: '/dev/sda', sizeBytes: 107374182400, rotational: false }],
};

/** One simulated BMC system: power, boot override, virtual media, faults, and a command log. */
export class FakeBMC {
  power: PowerState = 'off';
  boot: BootOptions | undefined;
  media: VirtualMediaState = { inserted: false };
  username = 'admin';
  password = 'password';
  reachable = true;
  /** getPower polls before a requested power change shows (0: the next poll sees it). */
  settlePolls = 0;
  /** A soft power off is ignored (the OS does not shut down). */
  ignoreSoftOff = false;
  /** Power changes never take effect (a BMC that accepts commands and does nothing). */
  stuck = false;
  missing: string[] = [];
  /** UEFI secure boot (SecureBootEnable); undefined: the BMC has no SecureBoot resource. */
  secureBoot: boolean | undefined = false;
  /** A secure boot change is staged and applied at the next power-on (BIOS-job BMCs). */
  secureBootAppliesAtBoot = false;
  private stagedSecureBoot: boolean | undefined;
  hardware: HardwareDetails = HARDWARE;
  /** Commands that change state, in order: "power:on", "boot:pxe/once", "insert:<url>", "eject". */
  readonly commands: string[] = [];
  /** Every call, reads included. */
  readonly calls: string[] = [];
  readonly failures = new Map<string, Error>();
  private pending: { state: PowerState; polls: number } | undefined;
  /** Called when the power state becomes on (the fake agent boots from it). */
  onPowerOn: (() => void) | undefined;
  /** Called on every power read (a test moves the clock: a read that took a while). */
  onPowerRead: (() => void) | undefined;

  commandsOf(prefix: string): string[] {
    return this.commands.filter((command) => command.startsWith(prefix));
  }

  enter(op: string, credentials: { username: string; password: string }): void {
    this.calls.push(op);
    const failure = this.failures.get(op);
    if (failure !== undefined) {
      this.failures.delete(op);
      throw failure;
    }
    if (!this.reachable) {
      throw new BMCError('Transient', 'BMCUnreachable', 'connect ECONNREFUSED 127.0.0.1:8000');
    }
    if (op !== 'check' && (credentials.username !== this.username || credentials.password !== this.password)) {
      throw new BMCError('Permanent', 'AuthenticationFailed', 'the BMC answered 401 Unauthorized');
    }
  }

  readPower(): PowerState {
    this.onPowerRead?.();
    if (this.pending !== undefined) {
      if (this.pending.polls <= 0) {
        this.setNow(this.pending.state);
        this.pending = undefined;
      } else {
        this.pending.polls -= 1;
      }
    }
    return this.power;
  }

  requestPower(action: PowerAction): void {
    this.commands.push(`power:${action}`);
    if (this.stuck || (action === 'soft-off' && this.ignoreSoftOff)) {
      return;
    }
    const state: PowerState = action === 'on' ? 'on' : 'off';
    this.pending = { state, polls: this.settlePolls };
  }

  setNow(state: PowerState): void {
    const wasOff = this.power === 'off';
    this.power = state;
    if (state === 'on' && wasOff) {
      if (this.stagedSecureBoot !== undefined) {
        this.secureBoot = this.stagedSecureBoot;
        this.stagedSecureBoot = undefined;
      }
      this.onPowerOn?.();
    }
  }

  changeSecureBoot(enabled: boolean): boolean {
    if (this.secureBoot === undefined) {
      throw new BMCError('Permanent', 'Unsupported', 'the System has no SecureBoot resource');
    }
    if (this.secureBoot !== enabled) {
      this.commands.push(`secureboot:${enabled ? 'on' : 'off'}`);
      if (this.secureBootAppliesAtBoot) {
        this.stagedSecureBoot = enabled;
      } else {
        this.secureBoot = enabled;
      }
    }
    return this.secureBoot;
  }
}

class FakeDriver implements BMCDriver {
  readonly family: BMCDriver['family'];

  constructor(
    private readonly bmc: FakeBMC,
    private readonly options: BMCConnectionOptions,
  ) {
    this.family = options.address.driver;
  }

  private enter(op: string): void {
    this.bmc.enter(op, this.options.credentials);
  }

  check(needs: BMCCheckNeeds = {}): Promise<BMCCheck> {
    this.enter('check');
    const secureBoot = needs.secureBoot === true && this.bmc.secureBoot === undefined ? ['SecureBoot'] : [];
    const { username, password } = this.options.credentials;
    const authenticated = username === this.bmc.username && password === this.bmc.password;
    return Promise.resolve({
      reachable: true,
      authenticated,
      ...(authenticated && { powerState: this.bmc.readPower() }),
      identity: { Manufacturer: 'Ironhook' },
      missing: [...this.bmc.missing, ...secureBoot],
    });
  }

  getPower(): Promise<PowerState> {
    this.enter('getPower');
    return Promise.resolve(this.bmc.readPower());
  }

  setPower(action: PowerAction): Promise<void> {
    this.enter('setPower');
    this.bmc.requestPower(action);
    return Promise.resolve();
  }

  setBootDevice(options: BootOptions): Promise<void> {
    this.enter('setBootDevice');
    this.bmc.boot = options;
    this.bmc.commands.push(`boot:${options.device}/${options.persistent ? 'persistent' : 'once'}`);
    return Promise.resolve();
  }

  insertVirtualMedia(url: string): Promise<void> {
    this.enter('insertVirtualMedia');
    this.bmc.media = { inserted: true, image: url };
    this.bmc.commands.push(`insert:${url}`);
    return Promise.resolve();
  }

  ejectVirtualMedia(): Promise<void> {
    this.enter('ejectVirtualMedia');
    this.bmc.media = { inserted: false };
    this.bmc.commands.push('eject');
    return Promise.resolve();
  }

  getVirtualMedia(): Promise<VirtualMediaState> {
    this.enter('getVirtualMedia');
    return Promise.resolve({ ...this.bmc.media });
  }

  getSecureBoot(): Promise<boolean | undefined> {
    this.enter('getSecureBoot');
    return Promise.resolve(this.bmc.secureBoot);
  }

  setSecureBoot(enabled: boolean): Promise<boolean> {
    this.enter('setSecureBoot');
    return Promise.resolve(this.bmc.changeSecureBoot(enabled));
  }

  inventory(): Promise<HardwareDetails> {
    this.enter('inventory');
    return Promise.resolve(structuredClone(this.bmc.hardware));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** BMCs by spec.bmc.address; the factory the pool is given. */
export class FakeFleet {
  readonly systems = new Map<string, FakeBMC>();
  /** Credentials every created driver was given (tests assert the password reached only here). */
  readonly connections: BMCConnectionOptions[] = [];

  add(address: string, configure: (bmc: FakeBMC) => void = () => undefined): FakeBMC {
    const bmc = new FakeBMC();
    configure(bmc);
    this.systems.set(address, bmc);
    return bmc;
  }

  get(address: string): FakeBMC {
    const bmc = this.systems.get(address);
    if (bmc === undefined) {
      throw new Error(`no fake BMC at ${address}`);
    }
    return bmc;
  }

  readonly factory = (options: BMCConnectionOptions): BMCDriver => {
    this.connections.push(options);
    const bmc = this.systems.get(options.address.address);
    if (bmc === undefined) {
      throw new BMCError('Transient', 'BMCUnreachable', `nothing answers at ${options.address.address}`);
    }
    return new FakeDriver(bmc, options);
  };
}

export const AGENT_TOKEN = 'agent-token-0123456789abcdef0123456789abcdef';

interface Armed {
  host: AgentHostIdentity;
  macs: string[];
  booted: boolean;
  waiters: (() => void)[];
}

/** The agent side, faked: armed hosts boot when their BMC powers on (see link()). */
export class FakeAgentService implements AgentService {
  readonly armed = new Map<string, Armed>();
  readonly calls: string[] = [];
  readonly images: { image: AgentImage; configDrive?: AgentConfigDrive }[] = [];
  readonly forgotten: string[] = [];
  callbackURL = 'http://127.0.0.1:9999';
  hardware: HardwareDetails = HARDWARE;
  failures = new Map<string, Error>();

  private key(host: AgentHostRef): string {
    return `${host.namespace}/${host.name}`;
  }

  private enter(op: string): void {
    this.calls.push(op);
    const failure = this.failures.get(op);
    if (failure !== undefined) {
      this.failures.delete(op);
      throw failure;
    }
  }

  /** Boot the host's agent when `bmc` powers on while the host is armed. */
  link(host: AgentHostRef, bmc: FakeBMC): void {
    bmc.onPowerOn = () => {
      const armed = this.armed.get(this.key(host));
      if (armed !== undefined && (bmc.boot?.device === 'pxe' || bmc.boot?.device === 'cdrom')) {
        armed.booted = true;
        armed.waiters.splice(0).forEach((wake) => {
          wake();
        });
      }
    };
  }

  expect(host: AgentHostIdentity, macs: string[]): Promise<{ apiURL: string; token: string }> {
    this.enter('expect');
    this.armed.set(this.key(host), { host, macs, booted: false, waiters: [] });
    return Promise.resolve({ apiURL: 'http://127.0.0.1:6385', token: AGENT_TOKEN });
  }

  waitForAgent(host: AgentHostRef, options: { signal: AbortSignal; timeoutMs: number }): Promise<AgentHandle> {
    this.enter('waitForAgent');
    const armed = this.armed.get(this.key(host));
    if (armed === undefined) {
      return Promise.reject(Object.assign(new Error('not armed'), { kind: 'Transient', reason: 'AgentNotArmed' }));
    }
    const handle = { namespace: host.namespace, name: host.name, callbackURL: this.callbackURL };
    if (armed.booted) {
      return Promise.resolve(handle);
    }
    return new Promise((resolve, reject) => {
      armed.waiters.push(() => {
        resolve(handle);
      });
      options.signal.addEventListener('abort', () => {
        reject(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
      });
    });
  }

  inventory(): Promise<HardwareDetails> {
    this.enter('inventory');
    return Promise.resolve(structuredClone(this.hardware));
  }

  writeImage(_agent: AgentHandle, image: AgentImage, configDrive?: AgentConfigDrive): Promise<void> {
    this.enter('writeImage');
    this.images.push({ image, ...(configDrive && { configDrive }) });
    return Promise.resolve();
  }

  eraseDevicesMetadata(): Promise<void> {
    this.enter('eraseDevicesMetadata');
    return Promise.resolve();
  }

  /** standby.power_off: the linked BMC goes off (set by tests through onAgentPowerOff). */
  onAgentPowerOff: ((agent: AgentHandle) => void) | undefined;

  powerOff(agent: AgentHandle): Promise<void> {
    this.enter('powerOff');
    this.onAgentPowerOff?.(agent);
    return Promise.resolve();
  }

  forget(host: AgentHostRef): void {
    this.calls.push('forget');
    this.forgotten.push(this.key(host));
    this.armed.delete(this.key(host));
  }
}

/** Captures log lines (JSON) so tests can look for leaked secrets. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
    callback();
  }

  text(): string {
    return this.lines.join('\n');
  }
}

export const NAMESPACE = 'metal3';

export const DEFAULT_SETTINGS: PoolSettings = {
  namespaces: [],
  allowedNetworks: ['127.0.0.0/8', '::1/128'],
  deniedNetworks: [],
  concurrency: 4,
  provisioningLimit: 20,
  monitorConcurrency: 2,
  bmcTimeoutMs: 5000,
  ipmiCommandIntervalMs: 0,
  powerSettleTimeoutMs: 60_000,
  softPowerOffTimeoutMs: 180_000,
  agentBootTimeoutMs: 1_800_000,
  agentCommandTimeoutMs: 1_800_000,
  deployISOURL: 'http://127.0.0.1:8081/ipa.iso',
  deployKernelURL: 'http://127.0.0.1:8081/ipa.kernel',
  deployRamdiskURL: 'http://127.0.0.1:8081/ipa.initramfs',
  eventDedupWindowMs: 600_000,
  shutdownTimeoutMs: 5000,
};

export interface Harness {
  kube: MemoryKube;
  clock: ManualClock;
  fleet: FakeFleet;
  agent: FakeAgentService;
  logs: LogCapture;
  metrics: PoolMetrics;
  pool: DriverPool;
  /** Let every queued request and monitor refresh finish. */
  settle(): Promise<void>;
}

export function createHarness(overrides: Partial<PoolSettings> = {}, deps: Partial<PoolDeps> = {}): Harness {
  const kube = new MemoryKube();
  const clock = new ManualClock(undefined, { autoAdvance: true });
  const fleet = new FakeFleet();
  const agent = new FakeAgentService();
  const logs = new LogCapture();
  const logger = createLogger({ level: 'debug', destination: logs });
  const metrics = createPoolMetrics({ defaultMetrics: false });
  const settings = { ...DEFAULT_SETTINGS, ...overrides };
  const guard = createNetworkGuard({
    allowed: settings.allowedNetworks,
    denied: settings.deniedNetworks,
    resolve: (host) => Promise.resolve(host === 'localhost' ? ['127.0.0.1'] : ['203.0.113.9']),
  });
  const pool = new DriverPool({
    kube,
    clock,
    logger,
    metrics,
    agent,
    factory: fleet.factory,
    settings,
    instance: 'pool-test',
    guard,
    random: () => 0.5,
    ...deps,
  });
  const settle = async (): Promise<void> => {
    for (let round = 0; round < 5; round += 1) {
      await pool.operations.settled();
      await pool.monitor.settled();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { kube, clock, fleet, agent, logs, metrics, pool, settle };
}

export function credentialsSecret(name: string, username: string, password: string, namespace = NAMESPACE): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: { username: Buffer.from(`${username}\n`).toString('base64'), password: Buffer.from(`${password}\n`).toString('base64') },
  };
}

export function dataSecret(name: string, data: Record<string, string>, namespace = NAMESPACE): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  };
}

export interface OperationOptions extends Partial<HostOperationSpec> {
  host?: { name: string; uid: string };
  name?: string;
  status?: HostOperation['status'];
  namespace?: string;
}

/** The parameter block each action carries (the CRD requires exactly the matching one). */
const PARAMETERS: Record<HostOperationSpec['action'], Partial<HostOperationSpec>> = {
  Register: { register: {} },
  Inspect: { inspect: { mode: 'agent' } },
  Prepare: { prepare: {} },
  Provision: { provision: {} },
  Deprovision: { deprovision: { automatedCleaningMode: 'metadata' } },
  PowerOn: { power: { mode: 'hard' } },
  PowerOff: { power: { mode: 'hard' } },
  Reboot: { power: { mode: 'hard' } },
  Detach: {},
  Delete: {},
};

/** A HostOperation as the hook would emit it (fluent enough for table rows). */
export function operation(action: HostOperationSpec['action'], sequence: number, options: OperationOptions = {}): HostOperation {
  const { name, status, namespace = NAMESPACE, host = { name: 'server-01', uid: 'uid-server-01' }, ...spec } = options;
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'HostOperation',
    metadata: { name: name ?? `${host.name}-${action.toLowerCase()}-${String(sequence)}`, namespace, uid: `op-${host.name}-${String(sequence)}` },
    spec: {
      host,
      action,
      sequence,
      hostGeneration: 1,
      hostStatus: { state: 'registering', errorCount: 0, provisioningFailCount: 0 },
      bmc: { address: 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1', credentialsName: 'server-01-bmc' },
      bootMACAddress: '00:11:22:33:44:55',
      bootMode: 'UEFI',
      ...PARAMETERS[action],
      ...spec,
    },
    ...(status && { status }),
  };
}

export function monitor(
  name: string,
  options: { host?: { name: string; uid: string }; address?: string; credentialsName?: string; intervalSeconds?: number; namespace?: string } = {},
): BMCMonitor {
  const {
    host = { name, uid: `uid-${name}` },
    address = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1',
    credentialsName = `${name}-bmc`,
    intervalSeconds = 60,
    namespace = NAMESPACE,
  } = options;
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'BMCMonitor',
    metadata: { name, namespace },
    spec: { host, bmc: { address, credentialsName }, intervalSeconds },
  };
}
