// Power over Redfish as Ironic does it: read PowerState
// (PoweringOn counts as on, PoweringOff as off), POST ComputerSystem.Reset with a ResetType the
// BMC allows (AllowableValues or ActionInfo), and a hard reboot as ForceOff → wait → On. A 2xx
// never means the state already changed, so callers wait with waitForPower (back-off polling).
import type { BMCDriver, PowerAction, PowerState } from '../bmc/types.js';
import { BMCError } from '../bmc/types.js';
import type { Loaded } from './client.js';
import { systemClock } from './clock.js';
import type { Clock } from './clock.js';
import type { RedfishContext } from './context.js';
import { Reason, permanentError, transientError } from './errors.js';
import { action, allowable, asResource, list, strings, text } from './resource.js';
import type { Resource } from './resource.js';

const STATE_OF: Readonly<Record<string, PowerState>> = { On: 'on', PoweringOn: 'on', Off: 'off', PoweringOff: 'off' };

export function powerStateOf(system: Loaded): PowerState {
  const reported = text(system.resource, 'PowerState');
  const state = reported === undefined ? undefined : STATE_OF[reported];
  if (state === undefined) {
    throw transientError(Reason.Protocol, `${system.path} reports PowerState ${reported ?? '(none)'}`);
  }
  return state;
}

/** ResetType values the BMC allows, from the action or its ActionInfo; undefined when it does not say. */
async function allowedResetTypes(context: RedfishContext, reset: Resource): Promise<string[] | undefined> {
  const inline = allowable(reset, 'ResetType');
  const infoPath = text(reset, '@Redfish.ActionInfo');
  if (inline !== undefined || infoPath === undefined) {
    return inline;
  }
  const info = await context.client.load(infoPath);
  const parameter = list(info.resource, 'Parameters')
    .map(asResource)
    .find((entry) => text(entry, 'Name') === 'ResetType');
  const values = strings(parameter, 'AllowableValues');
  return values.length === 0 ? undefined : values;
}

/** POSTs ComputerSystem.Reset with `resetType` after checking the BMC allows it. */
async function resetSystem(context: RedfishContext, system: Loaded, resetType: string): Promise<void> {
  const reset = action(system.resource, 'ComputerSystem.Reset');
  const target = text(reset, 'target');
  if (reset === undefined || target === undefined) {
    throw permanentError(Reason.Unsupported, `${system.path} has no ComputerSystem.Reset action`);
  }
  const allowed = await allowedResetTypes(context, reset);
  if (allowed !== undefined && !allowed.includes(resetType)) {
    throw permanentError(Reason.Unsupported, `the BMC does not allow ResetType ${resetType} (allowed: ${allowed.join(', ')})`);
  }
  context.logger.debug({ system: system.path, resetType }, 'Redfish reset');
  await context.client.post(target, { ResetType: resetType });
}

export interface WaitOptions {
  /** Give up when the next poll would pass this (default 60 s, Ironic's power_state_change_timeout). */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  /** First check after this long (default 1 s); each later gap is about 1.5 times the previous. */
  readonly initialDelayMs?: number;
  /** Longest single gap (default 10 s). */
  readonly maxDelayMs?: number;
  /** [0, 1) source for ±10 % jitter; Math.random by default. */
  readonly random?: () => number;
}

async function pollOnce(driver: Pick<BMCDriver, 'getPower'>, target: PowerState): Promise<{ done: boolean; error?: BMCError }> {
  try {
    return { done: (await driver.getPower()) === target };
  } catch (error) {
    if (error instanceof BMCError && error.kind === 'Transient') {
      return { done: false, error };
    }
    throw error;
  }
}

function waitSettings(options: WaitOptions): Required<WaitOptions> {
  return {
    timeoutMs: options.timeoutMs ?? 60_000,
    clock: options.clock ?? systemClock,
    initialDelayMs: options.initialDelayMs ?? 1_000,
    maxDelayMs: options.maxDelayMs ?? 10_000,
    random: options.random ?? Math.random,
  };
}

/**
 * Polls getPower with back-off until it reports `target` (oslo's BackOffLoopingCall shape:
 * 1 s, then ×1.5 with jitter). Transient read errors are tolerated until the deadline; the
 * failure is a transient PowerStateTimeout.
 */
export async function waitForPower(driver: Pick<BMCDriver, 'getPower'>, target: PowerState, options: WaitOptions = {}): Promise<void> {
  const { clock, timeoutMs, random, initialDelayMs, maxDelayMs } = waitSettings(options);
  const deadline = clock.now() + timeoutMs;
  let delay = initialDelayMs;
  let lastError: BMCError | undefined;
  while (clock.now() + delay <= deadline) {
    await clock.sleep(delay);
    const poll = await pollOnce(driver, target);
    if (poll.done) {
      return;
    }
    lastError = poll.error ?? lastError;
    delay = Math.min(delay * 1.5 * (0.9 + 0.2 * random()), maxDelayMs);
  }
  const last = lastError === undefined ? '' : ` (last error: ${lastError.reason})`;
  throw transientError(Reason.PowerStateTimeout, `power did not become ${target} within ${timeoutMs} ms${last}`);
}

type PowerStep = (context: RedfishContext, system: Loaded, current: PowerState) => Promise<void>;

/** Hook the boot module installs: re-apply a one-time override before powering on. */
export type BeforePowerOn = (context: RedfishContext) => Promise<void>;

function steps(beforeOn: BeforePowerOn): Readonly<Record<PowerAction, PowerStep>> {
  const powerOn: PowerStep = async (context, _system, current) => {
    if (current === 'on') {
      return;
    }
    await beforeOn(context);
    await resetSystem(context, await context.system(), 'On');
  };
  const offWith =
    (resetType: string): PowerStep =>
    async (context, system, current) => {
      if (current === 'off') {
        return;
      }
      await resetSystem(context, system, resetType);
    };
  return {
    on: powerOn,
    off: offWith('ForceOff'),
    'soft-off': offWith('GracefulShutdown'),
    'soft-reboot': async (context, system, current) => {
      if (current === 'off') {
        await powerOn(context, system, current);
        return;
      }
      await beforeOn(context);
      await resetSystem(context, await context.system(), 'GracefulRestart');
    },
    reboot: async (context, system, current) => {
      if (current === 'on') {
        await resetSystem(context, system, 'ForceOff');
        const getPower = async (): Promise<PowerState> => powerStateOf(await context.system());
        await waitForPower({ getPower }, 'off', { clock: context.clock, timeoutMs: context.powerTimeoutMs });
      }
      await powerOn(context, system, 'off');
    },
  };
}

/** Sends the command for `powerAction`; nothing when the system is already in the wanted state. */
export async function setPower(context: RedfishContext, powerAction: PowerAction, beforeOn: BeforePowerOn): Promise<void> {
  const system = await context.system();
  await steps(beforeOn)[powerAction](context, system, powerStateOf(system));
}
