// One ipmitool command against one BMC: serialised and spaced through the BMC's gate, the
// password handed over by environment or 0600 file, the cipher suites walked on cipher errors
// (the one that works is remembered), busy answers retried, every failure a BMCError.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BMCError } from '../bmc/types.js';
import { buildArgv } from './argv.js';
import type { IPMICommand, IPMITarget, PasswordArgument } from './argv.js';
import { classifyFailure } from './errors.js';
import type { ClassifiedFailure } from './errors.js';
import type { CommandGate } from './gate.js';
import { execTimeoutMs } from './settings.js';
import type { IPMISettings } from './settings.js';

export interface TransportTarget extends IPMITarget {
  password: string;
}

type Outcome = { ok: true; stdout: string } | { ok: false; failure: ClassifiedFailure };

/** The environment ipmitool gets: nothing inherited but PATH, the C locale, and maybe the password. */
function childEnv(password: string | undefined): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', LC_ALL: 'C' };
  if (password !== undefined) {
    env.IPMI_PASSWORD = password;
  }
  return env;
}

/** Runs `use` with a 0600 password file in a fresh 0700 directory, removed afterwards whatever happens. */
async function withPasswordFile<T>(password: string, dir: string | undefined, use: (path: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(dir ?? tmpdir(), 'ironhook-ipmi-'));
  try {
    const path = join(folder, 'password');
    // Like Ironic: an empty password is written as a single NUL, since ipmitool rejects an empty file.
    await writeFile(path, password === '' ? '\0' : password, { mode: 0o600, flag: 'wx' });
    return await use(path);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export class IpmitoolTransport {
  readonly bmc: string;
  private readonly gate: CommandGate;
  private readonly timeoutMs: number;

  constructor(
    private readonly target: TransportTarget,
    private readonly settings: IPMISettings,
    callTimeoutMs: number,
  ) {
    this.bmc = `${target.host}:${target.port}`;
    this.gate = settings.gates.gate(this.bmc);
    this.timeoutMs = execTimeoutMs(settings, callTimeoutMs);
  }

  /** The cipher suite currently tried first for this BMC. */
  get cipherSuite(): number {
    return this.suiteOrder()[0] ?? 3;
  }

  /** Runs the command and returns ipmitool's stdout, or throws a BMCError. */
  async run(command: IPMICommand): Promise<string> {
    let last: ClassifiedFailure | undefined;
    for (let attempt = 0; attempt < this.settings.busyAttempts; attempt += 1) {
      const outcome = await this.withCipherFallback(command);
      if (outcome.ok) {
        return outcome.stdout;
      }
      last = outcome.failure;
      if (last.class !== 'busy') {
        break;
      }
    }
    throw last?.error ?? new BMCError('Transient', 'BMCCommandFailed', `ipmitool ${command.operation} against ${this.bmc} did not run`);
  }

  private suiteOrder(): number[] {
    const working = this.gate.workingCipherSuite;
    const suites = this.settings.cipherSuites;
    return working === undefined || !suites.includes(working) ? [...suites] : [working, ...suites.filter((s) => s !== working)];
  }

  private async withCipherFallback(command: IPMICommand): Promise<Outcome> {
    const tried: number[] = [];
    let outcome: Outcome | undefined;
    for (const suite of this.suiteOrder()) {
      tried.push(suite);
      outcome = await this.gate.run(this.settings.clock, this.settings.minCommandIntervalMs, async () => this.invoke(suite, command));
      if (outcome.ok) {
        this.gate.workingCipherSuite = suite;
        return outcome;
      }
      if (outcome.failure.class !== 'cipher') {
        return outcome;
      }
    }
    return outcome?.ok === false ? this.noSuiteWorked(outcome.failure, tried) : { ok: false, failure: this.noSuites() };
  }

  private noSuiteWorked(failure: ClassifiedFailure, tried: readonly number[]): Outcome {
    const message = `${failure.error.message} (cipher suites tried: ${tried.join(', ')})`;
    return { ok: false, failure: { class: 'final', error: new BMCError('Permanent', 'CipherSuiteUnsupported', message) } };
  }

  private noSuites(): ClassifiedFailure {
    return { class: 'final', error: new BMCError('Permanent', 'InvalidSettings', 'no IPMI cipher suite configured') };
  }

  private async invoke(suite: number, command: IPMICommand): Promise<Outcome> {
    const { passwordMode, tempDir } = this.settings;
    if (passwordMode === 'env') {
      return this.exec(suite, command, { mode: 'env' });
    }
    return withPasswordFile(this.target.password, tempDir, async (path) => this.exec(suite, command, { mode: 'file', path }));
  }

  private async exec(suite: number, command: IPMICommand, password: PasswordArgument): Promise<Outcome> {
    const { settings, target } = this;
    const args = buildArgv(target, { cipherSuite: suite, retries: settings.retries, retryIntervalSeconds: settings.retryIntervalSeconds, password }, command);
    const env = childEnv(password.mode === 'env' ? target.password : undefined);
    const started = settings.clock.now();
    const result = await settings.exec({ file: settings.ipmitoolPath, args, env, timeoutMs: this.timeoutMs });
    const outcome: Outcome =
      result.exitCode === 0 && !result.timedOut
        ? { ok: true, stdout: result.stdout }
        : { ok: false, failure: classifyFailure(result, this.failureContext(command, suite)) };
    this.observe(command, suite, settings.clock.now() - started, outcome);
    return outcome;
  }

  private failureContext(command: IPMICommand, cipherSuite: number): Parameters<typeof classifyFailure>[1] {
    return {
      bmc: this.bmc,
      operation: command.operation,
      cipherSuite,
      timeoutMs: this.timeoutMs,
      secrets: [this.target.password, this.target.username],
    };
  }

  private observe(command: IPMICommand, cipherSuite: number, durationMs: number, outcome: Outcome): void {
    const event = { bmc: this.bmc, operation: command.operation, cipherSuite, durationMs, ok: outcome.ok };
    this.settings.observer?.(outcome.ok ? event : { ...event, reason: outcome.failure.error.reason });
  }
}
