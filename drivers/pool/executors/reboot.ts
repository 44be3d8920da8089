// Reboot: a power cycle observed in both halves (off, then on), so a resumed reboot whose off
// half is recorded only powers on.
import type { Executor } from './context.js';
import { powerCycle } from './power.js';

export const rebootExecutor: Executor = async (ctx) => {
  const { driver } = await ctx.connection();
  await powerCycle(ctx, driver, ctx.op.spec.power?.mode ?? 'hard');
  return { poweredOn: true };
};
