// The commands the fake agent understands, with IPA's result shapes: asynchronous commands are
// RUNNING when the POST answers and SUCCEEDED or FAILED later; one runs at a time (409 busy).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { CommandResult } from '../../drivers/agent/client.js';
import { readConfigDrive } from './configdrive.js';
import { CommandFailure, fetchAndVerify } from './download.js';
import type { FakeAgentRecord, FakeHostSpec } from './types.js';

export interface CommandContext {
  spec: FakeHostSpec;
  record: FakeAgentRecord;
  /** How long every asynchronous command stays RUNNING at least. */
  delayMs: number;
  allowHosts: readonly string[];
  downloadTimeoutMs: number;
  /** Aborted when the agent stops (power loss). */
  signal: AbortSignal;
  /** The record changed (listeners re-check their conditions). */
  changed(): void;
  /** standby.power_off finished: power the host off and stop the agent. */
  shutdown(): void;
}

type Handler = (params: Record<string, unknown>, ctx: CommandContext) => Promise<unknown>;

async function pause(ctx: CommandContext): Promise<void> {
  if (ctx.delayMs > 0) await delay(ctx.delayMs, undefined, { signal: ctx.signal });
}

const prepareImage: Handler = async (params, ctx) => {
  await pause(ctx);
  const verified = await fetchAndVerify(params.image_info, { allowHosts: ctx.allowHosts, timeoutMs: ctx.downloadTimeoutMs, signal: ctx.signal });
  // Like IPA: the image first, then the config drive (null or absent: none).
  const configDrive = params.configdrive === undefined || params.configdrive === null ? undefined : readConfigDrive(params.configdrive);
  ctx.record.images.push({ ...verified, time: new Date().toISOString(), ...(configDrive === undefined ? {} : { configDrive }) });
  return { result: `prepare_image: image (${verified.id}) written to device /dev/sda root_uuid=None` };
};

const executeCleanStep: Handler = async (params, ctx) => {
  const step = typeof params.step === 'object' && params.step !== null ? (params.step as Record<string, unknown>) : {};
  if (step.step !== 'erase_devices_metadata') {
    throw new CommandFailure('CleaningError', `the fake agent does not implement clean step ${String(step.step)}`);
  }
  await pause(ctx);
  ctx.record.metadataErased += 1;
  return { clean_result: null, clean_step: step };
};

const powerOff: Handler = async (_params, ctx) => {
  await pause(ctx);
  ctx.record.poweredOff += 1;
  ctx.shutdown();
  return {};
};

const sync: Handler = () => Promise.resolve({});

const ASYNC_HANDLERS: Record<string, Handler> = {
  'standby.prepare_image': prepareImage,
  'clean.execute_clean_step': executeCleanStep,
  'standby.power_off': powerOff,
};

const SYNC_HANDLERS: Record<string, Handler> = { 'standby.sync': sync };

export type StartOutcome = { kind: 'started'; command: CommandResult; done: Promise<CommandResult> } | { kind: 'busy' } | { kind: 'unknown' };

function bare(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function errorOf(err: unknown): { type: string; message: string; code: number; details: string } {
  const type = err instanceof CommandFailure ? err.type : 'CommandExecutionError';
  const message = err instanceof Error ? err.message : 'unknown error';
  return { type, message, code: 500, details: message };
}

export class CommandBook {
  readonly commands: CommandResult[] = [];

  constructor(private readonly ctx: CommandContext) {}

  busy(): boolean {
    return this.commands.some((command) => command.command_status === 'RUNNING');
  }

  start(name: string, params: Record<string, unknown>): StartOutcome {
    const handler = ASYNC_HANDLERS[name] ?? SYNC_HANDLERS[name];
    if (handler === undefined) return { kind: 'unknown' };
    if (this.busy()) return { kind: 'busy' };
    const command: CommandResult = { id: randomUUID(), command_name: bare(name), command_status: 'RUNNING', command_error: null, command_result: null };
    this.commands.push(command);
    const done = this.execute(command, handler, params);
    return { kind: 'started', command: { ...command }, done };
  }

  isSync(name: string): boolean {
    return SYNC_HANDLERS[name] !== undefined;
  }

  private async execute(command: CommandResult, handler: Handler, params: Record<string, unknown>): Promise<CommandResult> {
    try {
      command.command_result = await handler(params, this.ctx);
      command.command_status = 'SUCCEEDED';
    } catch (err) {
      command.command_status = 'FAILED';
      command.command_error = errorOf(err);
      this.ctx.record.failures.push(`${command.command_name}: ${errorOf(err).type}`);
    }
    this.ctx.changed();
    return { ...command };
  }
}
