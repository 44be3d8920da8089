// Deprovision: UEFI secure boot off (the provisioned OS's setting, undone before the agent boots),
// metadata cleaning through the agent when automatedCleaningMode is metadata
// (deploy.erase_devices_metadata), eject any virtual media (a live ISO stays inserted until
// here), power off. A resumed request whose disks were already erased does not erase again.
import type { Executor } from './context.js';
import { bootAgent, stopAgent } from './agent-boot.js';
import { ensurePower } from './power.js';
import { ensureSecureBoot } from './secureboot.js';

export const deprovisionExecutor: Executor = async (ctx) => {
  const connection = await ctx.connection();
  const { driver, address } = connection;
  const mode = ctx.op.spec.deprovision?.automatedCleaningMode ?? 'metadata';
  await ensureSecureBoot(ctx, driver, false);
  if (mode === 'disabled') {
    await ctx.note('Clean', 'automatedCleaningMode is disabled; disks are left as they are');
  } else if (ctx.resumed && ctx.completedEarlier('EraseDevicesMetadata')) {
    await ctx.note('EraseDevicesMetadata', 'erased before the pool restarted; not erased again');
  } else {
    const handle = await bootAgent(ctx, connection);
    const options = { signal: ctx.signal, timeoutMs: ctx.services.settings.agentCommandTimeoutMs };
    await ctx.step(
      'EraseDevicesMetadata',
      () => ctx.services.agent.eraseDevicesMetadata(handle, options),
      () => 'partition tables and filesystem signatures erased',
    );
    await stopAgent(ctx, connection, handle);
    return { poweredOn: false };
  }
  if (address.capabilities.bootsISO) {
    await ctx.bmcStep(
      'EjectVirtualMedia',
      () => driver.ejectVirtualMedia(),
      () => 'ejected',
    );
  }
  await ensurePower(ctx, driver, 'off');
  return { poweredOn: false };
};
