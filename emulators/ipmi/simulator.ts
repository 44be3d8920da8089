// A reusable OpenIPMI ipmi_sim launcher: writes lan.conf, the
// .emu file and the chassis-control script into a 0700 directory, picks a free UDP port on
// 127.0.0.1, starts `ipmi_sim -c … -f … -s … -n`, waits until `ipmitool mc info` answers, and
// stops it by PID. The simulated host's power and boot device are what the chassis script
// wrote; listeners hear every change and every boot (power on from off, reset while on).
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { closeSync, openSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHASSIS_SCRIPT, renderEmu, renderLanConf } from './files.js';
import type { FRUProductInfo, SimulatorUser } from './files.js';
import { EventLogWatcher } from './watcher.js';
import { parseEventLog, readHostState } from './state.js';
import type { BootEvent, SimulatedHostState, SimulatorEvent } from './state.js';

export interface IPMISimulatorOptions {
  /** The administrator the driver logs in as. */
  credentials: { username: string; password: string };
  /** More users (operator, user privilege) for privilege tests. */
  extraUsers?: readonly SimulatorUser[];
  /** UDP port on 127.0.0.1; a free one when unset or 0. */
  port?: number;
  name?: string;
  /** Working directory (kept on stop); a fresh temp directory (removed on stop) when unset. */
  dir?: string;
  initialPower?: 'on' | 'off';
  /** FRU 0 product data; `false` for a BMC without FRU. */
  fru?: FRUProductInfo | false;
  ipmiSimPath?: string;
  ipmitoolPath?: string;
  readyTimeoutMs?: number;
  /** How often the event log is read for listeners. */
  pollIntervalMs?: number;
}

const DEFAULT_FRU: FRUProductInfo = {
  manufacturer: 'Ironhook Simulated Systems',
  productName: 'IPMI-SIM-1',
  partNumber: 'IH-SIM-1',
  version: '1.0',
  serialNumber: 'SIM0000001',
};

const delay = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** A free UDP port on 127.0.0.1 (released before ipmi_sim binds it). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', resolve);
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => {
    socket.close(resolve);
  });
  return port;
}

/** PIDs this process started, killed when it exits so no simulator outlives a crashed test. */
const running = new Set<number>();
let exitHookInstalled = false;

function track(pid: number): void {
  running.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const started of running) {
        try {
          process.kill(started, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
}

interface Layout {
  dir: string;
  stateDir: string;
  persistDir: string;
  lanConf: string;
  emu: string;
  script: string;
  log: string;
}

function layoutOf(dir: string): Layout {
  return {
    dir,
    stateDir: join(dir, 'state'),
    persistDir: join(dir, 'persist'),
    lanConf: join(dir, 'lan.conf'),
    emu: join(dir, 'bmc.emu'),
    script: join(dir, 'chassis-control.sh'),
    log: join(dir, 'ipmi_sim.log'),
  };
}

export class IPMISimulator {
  readonly host = '127.0.0.1';
  private child: ChildProcess | undefined;
  private readonly watcher: EventLogWatcher;

  private constructor(
    private readonly options: IPMISimulatorOptions,
    readonly files: Layout,
    readonly port: number,
    private readonly ownsDir: boolean,
  ) {
    this.watcher = new EventLogWatcher(files.stateDir, options.pollIntervalMs ?? 50);
  }

  /** Writes the files, starts ipmi_sim and waits until it answers. */
  static async start(options: IPMISimulatorOptions): Promise<IPMISimulator> {
    const ownsDir = options.dir === undefined;
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'ironhook-ipmisim-')));
    const port = options.port !== undefined && options.port !== 0 ? options.port : await freeUdpPort();
    const simulator = new IPMISimulator(options, layoutOf(dir), port, ownsDir);
    await simulator.writeFiles();
    await simulator.launch();
    return simulator;
  }

  /** ipmi://127.0.0.1:<port>, for spec.bmc.address. */
  get address(): string {
    return `ipmi://${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isRunning(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Power and boot device from the chassis script's state files. */
  async state(): Promise<SimulatedHostState> {
    return readHostState(this.files.stateDir);
  }

  /** Every "set" the chassis script carried out so far, oldest first. */
  async events(): Promise<SimulatorEvent[]> {
    try {
      return parseEventLog(await readFile(join(this.files.stateDir, 'events.log'), 'utf8'));
    } catch {
      return [];
    }
  }

  /** Called for every event the chassis script logs; returns the unsubscribe function. */
  onStateChange(listener: (event: SimulatorEvent, state: SimulatedHostState) => void): () => void {
    return this.watcher.onEvent(listener);
  }

  /** Called when the host boots (powered on from off, or reset while on), with its boot device. */
  onBoot(listener: (event: BootEvent) => void): () => void {
    return this.watcher.onBoot(listener);
  }

  /** Resolves with the state once `predicate` holds (checked on every event and every poll). */
  async waitForState(predicate: (state: SimulatedHostState) => boolean, timeoutMs = 10_000): Promise<SimulatedHostState> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.state();
      if (predicate(state)) {
        return state;
      }
      if (Date.now() >= deadline) {
        throw new Error(`simulated host state ${JSON.stringify(state)} did not reach the expected state within ${timeoutMs} ms`);
      }
      await delay(25);
    }
  }

  /** While failing, the chassis script refuses every request (ipmitool: "Unspecified error"). */
  async setFailing(failing: boolean): Promise<void> {
    const flag = join(this.files.stateDir, 'fail');
    await (failing ? writeFile(flag, '') : rm(flag, { force: true }));
  }

  /** SIGTERM to the PID, SIGKILL after 5 s; the files stay for restart(). */
  async kill(): Promise<void> {
    const child = this.child;
    this.watcher.stop();
    if (child?.pid === undefined || !this.isRunning) {
      return;
    }
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        resolve();
      }),
    );
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(forced);
  }

  /** Starts ipmi_sim again on the same port with the same files and host state. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** Stops the simulator and removes the directory it created. */
  async stop(): Promise<void> {
    await this.kill();
    if (this.ownsDir) {
      await rm(this.files.dir, { recursive: true, force: true });
    }
  }

  private async writeFiles(): Promise<void> {
    const { files, options } = this;
    await mkdir(files.stateDir, { recursive: true, mode: 0o700 });
    await mkdir(files.persistDir, { recursive: true, mode: 0o700 });
    await chmod(files.dir, 0o700);
    const admin: SimulatorUser = { ...options.credentials, privilege: 'admin' };
    const lanConf = renderLanConf({
      name: options.name ?? 'ironhook-sim',
      port: this.port,
      users: [admin, ...(options.extraUsers ?? [])],
      scriptPath: files.script,
      stateDir: files.stateDir,
    });
    await writeFile(files.lanConf, lanConf, { mode: 0o600 });
    await writeFile(files.emu, renderEmu(options.fru === false ? undefined : (options.fru ?? DEFAULT_FRU)), { mode: 0o600 });
    await writeFile(files.script, CHASSIS_SCRIPT, { mode: 0o700 });
    await writeFile(join(files.stateDir, 'power'), options.initialPower === 'on' ? '1\n' : '0\n');
    await writeFile(join(files.stateDir, 'boot'), 'none\n');
  }

  private async launch(): Promise<void> {
    const { files } = this;
    const fd = openSync(files.log, 'a');
    const args = ['-c', files.lanConf, '-f', files.emu, '-s', files.persistDir, '-n'];
    const child = spawn(this.options.ipmiSimPath ?? 'ipmi_sim', args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const spawned = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => {
        resolve(true);
      });
      child.once('error', () => {
        resolve(false);
      });
    });
    if (!spawned || child.pid === undefined) {
      throw new Error('ipmi_sim could not be started (is Debian openipmi installed? bash scripts/setup-system-deps.sh)');
    }
    this.child = child;
    const pid = child.pid;
    track(pid);
    child.once('exit', () => running.delete(pid));
    await this.waitReady();
    await this.watcher.start();
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 10_000);
    while (Date.now() < deadline) {
      if (!this.isRunning) {
        throw new Error(`ipmi_sim exited during start-up: ${await this.logTail()}`);
      }
      if (await this.answers()) {
        return;
      }
      await delay(100);
    }
    await this.kill();
    throw new Error(`ipmi_sim on 127.0.0.1:${this.port} did not answer mc info in time: ${await this.logTail()}`);
  }

  /** `ipmitool … -R 1 -N 1 mc info` succeeds (the readiness probe from the reference). */
  private async answers(): Promise<boolean> {
    const { username, password } = this.options.credentials;
    const args = ['-I', 'lanplus', '-H', this.host, '-p', String(this.port), '-U', username, '-E', '-C', '3', '-R', '1', '-N', '1', 'mc', 'info'];
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', IPMI_PASSWORD: password };
    return new Promise((resolve) => {
      execFile(this.options.ipmitoolPath ?? 'ipmitool', args, { env, timeout: 5000, killSignal: 'SIGKILL' }, (error) => {
        resolve(error === null);
      });
    });
  }

  private async logTail(): Promise<string> {
    const text = await readFile(this.files.log, 'utf8').catch(() => '');
    return text.slice(-500).trim() || '(no output)';
  }
}
