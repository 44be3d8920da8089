// Power with settle polling: send the command, then poll with
// back-off (first check after 1 s, each gap 1.5x the previous, capped) until the wanted state or
// the deadline: a 2xx from a BMC never means the state has changed. Every helper reads the
// current state first, so a resumed request never repeats a power command that already took.
import type { PowerMode } from '../../../domain/operations.js';
import type { BMCDriver, PowerState } from '../../bmc/types.js';
import { BMCError } from '../../bmc/types.js';
import { OperationFailure, transient } from '../errors.js';
import type { ExecutionContext } from './context.js';

const FIRST_POLL_MS = 1000;
const MAX_POLL_MS = 10_000;

export async function waitForPower(ctx: ExecutionContext, driver: BMCDriver, target: PowerState, timeoutMs: number): Promise<void> {
  const { clock } = ctx.services;
  const deadline = clock.now() + timeoutMs;
  let delay = FIRST_POLL_MS;
  for (;;) {
    await clock.sleep(Math.min(delay, Math.max(0, deadline - clock.now())), ctx.signal);
    if ((await driver.getPower()) === target) {
      return;
    }
    if (clock.now() >= deadline) {
      throw transient('PowerStateTimeout', `the host did not reach power ${target} within ${String(Math.round(timeoutMs / 1000))}s`);
    }
    delay = Math.min(MAX_POLL_MS, delay * 1.5);
  }
}

function isUnsupported(error: unknown): boolean {
  return (error instanceof BMCError || error instanceof OperationFailure) && error.reason === 'Unsupported';
}

function isPowerTimeout(error: unknown): boolean {
  return error instanceof OperationFailure && error.reason === 'PowerStateTimeout';
}

async function hardOff(ctx: ExecutionContext, driver: BMCDriver): Promise<void> {
  await driver.setPower('off');
  ctx.powerChanged('off');
  await waitForPower(ctx, driver, 'off', ctx.services.settings.powerSettleTimeoutMs);
}

/** Soft power off, falling back to hard after the soft timeout (or when soft is unsupported). */
async function softOff(ctx: ExecutionContext, driver: BMCDriver): Promise<string> {
  const { softPowerOffTimeoutMs } = ctx.services.settings;
  try {
    await driver.setPower('soft-off');
  } catch (error) {
    if (!isUnsupported(error)) {
      throw error;
    }
    await hardOff(ctx, driver);
    return 'soft power off is not supported by this BMC; powered off hard';
  }
  try {
    await waitForPower(ctx, driver, 'off', softPowerOffTimeoutMs);
    ctx.powerChanged('off');
    return 'powered off (soft)';
  } catch (error) {
    if (!isPowerTimeout(error)) {
      throw error;
    }
    await hardOff(ctx, driver);
    return `soft power off did not finish within ${String(Math.round(softPowerOffTimeoutMs / 1000))}s; powered off hard`;
  }
}

async function powerOn(ctx: ExecutionContext, driver: BMCDriver): Promise<string> {
  await driver.setPower('on');
  ctx.powerChanged('on');
  await waitForPower(ctx, driver, 'on', ctx.services.settings.powerSettleTimeoutMs);
  return 'powered on';
}

/**
 * Brings the host to `target` as step `name` (default PowerOn / PowerOff). Reads the state
 * first: a host already there gets no command. Returns true when a command was sent.
 */
export async function ensurePower(
  ctx: ExecutionContext,
  driver: BMCDriver,
  target: PowerState,
  options: { mode?: PowerMode; name?: string } = {},
): Promise<boolean> {
  const name = options.name ?? (target === 'on' ? 'PowerOn' : 'PowerOff');
  const outcome = await ctx.bmcStep(
    name,
    async () => {
      if ((await driver.getPower()) === target) {
        return undefined;
      }
      if (target === 'on') {
        return powerOn(ctx, driver);
      }
      if (options.mode === 'soft') {
        return softOff(ctx, driver);
      }
      await hardOff(ctx, driver);
      return 'powered off (hard)';
    },
    (message) => message ?? `already ${target}; no command sent`,
  );
  return outcome !== undefined;
}

/** Power cycle as Ironic does it: off (waiting for off), then on (waiting for on). */
export async function powerCycle(ctx: ExecutionContext, driver: BMCDriver, mode: PowerMode = 'hard'): Promise<void> {
  if (!(ctx.resumed && ctx.completedEarlier('PowerOff'))) {
    await ensurePower(ctx, driver, 'off', { mode });
  }
  await ensurePower(ctx, driver, 'on');
}
