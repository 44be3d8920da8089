// Virtual media swaps shared by the live-iso provision and the agent boot: eject what is inserted,
// then insert the new image, each a checkpointed step so a resumed request does not repeat one
// that finished.
import type { BMCDriver } from '../../bmc/types.js';
import type { ExecutionContext } from './context.js';

/** Ejects the inserted media and inserts `url`; `shown` is how the insert step names the image. */
export async function replaceVirtualMedia(ctx: ExecutionContext, driver: BMCDriver, url: string, shown: string): Promise<void> {
  await ctx.bmcStep(
    'EjectVirtualMedia',
    () => driver.ejectVirtualMedia(),
    () => 'ejected',
  );
  await ctx.bmcStep(
    'InsertVirtualMedia',
    () => driver.insertVirtualMedia(url),
    () => shown,
  );
}
