// Prepare (manual cleaning): applies RAID settings. None of Ironhook's drivers configures RAID
// yet (the BMC driver interface has no RAID call, and the scheme table says so), so the hook
// refuses RAID volumes at registration; a request that still asks for them fails here as
// Unsupported with that reason instead of pretending. Root device hints need no action here
// (they travel with the provision request to the agent).
import { permanent } from '../errors.js';
import type { Executor } from './context.js';

export const prepareExecutor: Executor = async (ctx) => {
  const { raid, rootDeviceHints } = ctx.op.spec.prepare ?? {};
  const hardware = raid?.hardwareRAIDVolumes ?? [];
  const software = raid?.softwareRAIDVolumes ?? [];
  if (hardware.length > 0) {
    throw permanent(
      'Unsupported',
      `hardware RAID (${String(hardware.length)} volumes requested) is not implemented by the Ironhook drivers; remove spec.raid.hardwareRAIDVolumes`,
    );
  }
  if (software.length > 0) {
    throw permanent(
      'Unsupported',
      `software RAID (${String(software.length)} volumes requested) is not implemented by the Ironhook agent flow; remove spec.raid.softwareRAIDVolumes`,
    );
  }
  await ctx.note('ApplyRAID', 'no RAID volumes requested; nothing to configure');
  if (rootDeviceHints !== undefined) {
    await ctx.note('RootDeviceHints', 'root device hints are passed to the agent when the image is written');
  }
  const { driver } = await ctx.connection();
  return { poweredOn: (await driver.getPower()) === 'on' };
};
