// PowerOff: hard, or soft with a fall back to hard after the soft timeout (upstream: 180 s).
// A host already off gets no command.
import type { Executor } from './context.js';
import { ensurePower } from './power.js';

export const powerOffExecutor: Executor = async (ctx) => {
  const { driver } = await ctx.connection();
  await ensurePower(ctx, driver, 'off', { mode: ctx.op.spec.power?.mode ?? 'hard' });
  return { poweredOn: false };
};
