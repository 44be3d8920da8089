// Power with settle polling: send the command, then poll with
// back-off (first check after 1 s, each gap 1.5x the previous, capped) until the wanted state or
// the deadline: a 2xx from a BMC never means the state has changed. Every helper reads the
// current state first, so a resumed request never repeats a power command that already took,
// and first waits for a command that a cancelled request left in flight (power-transitions.ts).
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

function hostKey(ctx: ExecutionContext): string {
  return `${ctx.host.namespace}/${ctx.host.name}`;
}

interface PowerCommand {
  command: 'on' | 'off' | 'soft-off';
  target: PowerState;
  timeoutMs: number;
  /** Count the power change once the BMC took the command (hard commands; a soft one counts when it lands). */
  countSent: boolean;
}

/** Sends the command and waits for its target; a cancelled wait leaves the command recorded as in flight. */
async function command(ctx: ExecutionContext, driver: BMCDriver, change: PowerCommand): Promise<void> {
  await driver.setPower(change.command);
  if (change.countSent) ctx.powerChanged(change.target);
  ctx.services.powerTransitions.sent(hostKey(ctx), change.target, change.timeoutMs);
  await waitForPower(ctx, driver, change.target, change.timeoutMs);
  ctx.services.powerTransitions.settled(hostKey(ctx));
}

/** Waits for a command an earlier, cancelled request sent; a timeout there is no error of this request's. */
async function awaitInFlight(ctx: ExecutionContext, driver: BMCDriver): Promise<void> {
  const pending = ctx.services.powerTransitions.inFlight(hostKey(ctx));
  if (pending === undefined) return;
  try {
    await waitForPower(ctx, driver, pending.target, pending.remainingMs);
  } catch (error) {
    if (!isPowerTimeout(error)) throw error;
  }
  ctx.services.powerTransitions.settled(hostKey(ctx));
}

async function hardOff(ctx: ExecutionContext, driver: BMCDriver): Promise<void> {
  await command(ctx, driver, { command: 'off', target: 'off', timeoutMs: ctx.services.settings.powerSettleTimeoutMs, countSent: true });
}

/** Soft power off, falling back to hard after the soft timeout (or when soft is unsupported). */
async function softOff(ctx: ExecutionContext, driver: BMCDriver): Promise<string> {
  const { softPowerOffTimeoutMs } = ctx.services.settings;
  try {
    await command(ctx, driver, { command: 'soft-off', target: 'off', timeoutMs: softPowerOffTimeoutMs, countSent: false });
    ctx.powerChanged('off');
    return 'powered off (soft)';
  } catch (error) {
    if (isUnsupported(error)) {
      await hardOff(ctx, driver);
      return 'soft power off is not supported by this BMC; powered off hard';
    }
    if (!isPowerTimeout(error)) {
      throw error;
    }
    await hardOff(ctx, driver);
    return `soft power off did not finish within ${String(Math.round(softPowerOffTimeoutMs / 1000))}s; powered off hard`;
  }
}

async function powerOn(ctx: ExecutionContext, driver: BMCDriver): Promise<string> {
  await command(ctx, driver, { command: 'on', target: 'on', timeoutMs: ctx.services.settings.powerSettleTimeoutMs, countSent: true });
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
      await awaitInFlight(ctx, driver);
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
