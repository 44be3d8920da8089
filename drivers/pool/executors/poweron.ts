// PowerOn: on, waiting until the BMC reports on. A host already on gets no command.
import type { Executor } from './context.js';
import { ensurePower } from './power.js';

export const powerOnExecutor: Executor = async (ctx) => {
  const { driver } = await ctx.connection();
  await ensurePower(ctx, driver, 'on');
  return { poweredOn: true };
};
