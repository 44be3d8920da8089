// The ExecutionContext of one run of one request: records steps into status as they happen,
// connects to the BMC once, collects the secrets the run handled (for scrubbing), and checks
// the AbortSignal before every step.
import { Phase } from '../../domain/operations.js';
import type { HostOperation, OperationStep } from '../../domain/operations.js';
import { formatTime } from '../../domain/backoff.js';
import type { BMCDriver } from '../bmc/types.js';
import { withTimeout } from './bmc-gate.js';
import { connect } from './connect.js';
import type { ConnectDeps, Connection } from './connect.js';
import { readCredentials } from './credentials.js';
import type { HostIdentity, ReadCredentials } from './credentials.js';
import { isAbort } from '../errors.js';
import { classify, repeatableBMCFailure } from './errors.js';
import type { ExecutionContext, HostServices, OperationResult } from './executors/context.js';
import type { OperationStatusWriter } from './status-writer.js';

/** Logging out of a BMC session must not hold a worker. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Pauses before each repeat of a BMC step after a dropped, refused, timed-out or 5xx call: 14 s
 * in all, longer than a BMC's own reboot of its management controller takes to answer again.
 * Failing the whole request instead costs the hook's back-off and a new request.
 */
const BMC_STEP_REPEAT_PAUSES_MS: readonly number[] = [2_000, 4_000, 8_000];

/**
 * A step's Running entry is written only once the step has run this long. Most BMC steps take
 * less; each skipped write is one apiserver write and one Metacontroller sync of the host fewer
 * (npm run bench:scale: about half of all request status writes). The step's outcome is always
 * written at once: it is the checkpoint a resumed request relies on.
 */
const STEP_START_WRITE_DELAY_MS = 1_000;

const STEP_PROGRESS: Record<string, string> = {
  WaitForAgent: 'waiting for the agent to look up and heartbeat',
  WriteImage: 'writing the image through the agent',
  CollectInventory: 'collecting the inventory from the agent',
  EraseDevicesMetadata: 'erasing disk metadata through the agent',
  CheckBMC: 'checking the BMC',
};

export interface ExecutionOptions {
  op: HostOperation;
  host: HostIdentity;
  signal: AbortSignal;
  services: HostServices;
  connectDeps: ConnectDeps;
  writer: OperationStatusWriter;
  resumed: boolean;
  onPowerChange: (to: 'on' | 'off') => void;
}

export class Execution implements ExecutionContext {
  readonly op: HostOperation;
  readonly host: HostIdentity;
  readonly signal: AbortSignal;
  readonly services: HostServices;
  readonly resumed: boolean;
  readonly secrets: string[] = [];
  result: OperationResult = {};
  private readonly steps: OperationStep[];
  private readonly earlier: Set<string>;
  private opened: Promise<Connection> | undefined;
  private driver: BMCDriver | undefined;

  constructor(private readonly options: ExecutionOptions) {
    this.op = options.op;
    this.host = options.host;
    this.signal = options.signal;
    this.services = options.services;
    this.resumed = options.resumed;
    this.steps = [...(options.writer.status.steps ?? [])];
    this.earlier = new Set(this.steps.filter((step) => step.state === Phase.Succeeded).map((step) => step.name));
  }

  get recordedSteps(): OperationStep[] {
    return this.steps;
  }

  private now(): string {
    return formatTime(this.services.clock.now());
  }

  connection(credentials?: ReadCredentials): Promise<Connection> {
    this.opened ??= this.open(credentials);
    return this.opened;
  }

  private async open(given: ReadCredentials | undefined): Promise<Connection> {
    const credentials = given ?? (await readCredentials(this.services.kube, this.host.namespace, this.op.spec.bmc.credentialsName));
    this.keepSecret(credentials.credentials.password);
    const connection = await connect(this.options.connectDeps, this.op.spec.bmc, credentials, this.signal);
    this.driver = connection.driver;
    return connection;
  }

  async close(): Promise<void> {
    if (this.driver === undefined) {
      return;
    }
    try {
      await withTimeout(this.driver.close(), { clock: this.services.clock, ms: CLOSE_TIMEOUT_MS, what: 'closing the BMC session' });
    } catch {
      // Closing is best effort: sessions expire on the BMC anyway.
    }
  }

  async step<T>(name: string, run: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T> {
    this.signal.throwIfAborted();
    const index = this.steps.push({ name, state: Phase.Running, time: this.now() }) - 1;
    const started = this.options.writer.later({ steps: [...this.steps], message: STEP_PROGRESS[name] ?? `running ${name}` }, STEP_START_WRITE_DELAY_MS);
    let value: T;
    try {
      value = await run();
    } catch (error) {
      await started.settle();
      if (!isAbort(error) && !this.signal.aborted) {
        this.steps[index] = { name, state: Phase.Failed, time: this.now(), message: classify(error, this.secrets).message };
        await this.options.writer.write({ steps: [...this.steps] });
      }
      throw error;
    }
    await started.settle();
    const message = describe?.(value);
    this.steps[index] = { name, state: Phase.Succeeded, time: this.now(), ...(message !== undefined && { message }) };
    await this.options.writer.write({ steps: [...this.steps] });
    return value;
  }

  async bmcStep<T>(name: string, run: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T> {
    let repeats = 0;
    const counted = (value: T): string | undefined => {
      const message = describe?.(value);
      if (repeats === 0) {
        return message;
      }
      const after = `after ${String(repeats)} transient BMC failure${repeats === 1 ? '' : 's'}`;
      return message === undefined ? after : `${message} (${after})`;
    };
    return this.step(
      name,
      () =>
        this.repeating(name, run, () => {
          repeats += 1;
        }),
      counted,
    );
  }

  async bmcRead<T>(name: string, read: () => Promise<T>): Promise<T> {
    this.signal.throwIfAborted();
    return this.repeating(name, read, () => undefined);
  }

  /** Runs `run` again after a repeatable BMC failure, while pauses remain; says why in status.message. */
  private async repeating<T>(name: string, run: () => Promise<T>, onRepeat: () => void): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await run();
      } catch (error) {
        const pause = BMC_STEP_REPEAT_PAUSES_MS[attempt];
        if (pause === undefined || this.signal.aborted || !repeatableBMCFailure(error)) {
          throw error;
        }
        const { reason, message } = classify(error, this.secrets);
        const tries = `${String(attempt + 2)} of ${String(BMC_STEP_REPEAT_PAUSES_MS.length + 1)}`;
        await this.options.writer.write({ message: `${name}: ${reason}: ${message}; trying again in ${String(pause / 1000)}s (attempt ${tries})` });
        await this.services.clock.sleep(pause, this.signal);
        onRepeat();
      }
    }
  }

  async note(name: string, message: string): Promise<void> {
    this.signal.throwIfAborted();
    this.steps.push({ name, state: Phase.Succeeded, time: this.now(), message });
    await this.options.writer.write({ steps: [...this.steps] });
  }

  async progress(message: string): Promise<void> {
    await this.options.writer.write({ message });
  }

  completedEarlier(name: string): boolean {
    return this.earlier.has(name);
  }

  keepSecret(value: string | undefined): void {
    if (value !== undefined && value.length > 3 && !this.secrets.includes(value)) {
      this.secrets.push(value);
    }
  }

  powerChanged(to: 'on' | 'off'): void {
    this.options.onPowerChange(to);
  }

  partialResult(result: OperationResult): void {
    this.result = { ...this.result, ...result };
  }
}
