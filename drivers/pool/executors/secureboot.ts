// UEFI secure boot around the provisioned OS, where Ironic's boot interfaces put it
// (configure_secure_boot_if_needed in prepare_instance, deconfigure_secure_boot_if_needed in
// clean_up_instance): Provision turns it on for spec.bootMode UEFISecureBoot after the image is
// written and the boot device (and with it UEFI boot mode) is set, before the power-on that boots
// the OS; Provision turns it off for the other boot modes, and Deprovision turns it off before
// the agent boots for cleaning. A host that does not ask for secure boot and whose BMC reports it
// off (or cannot do it) gets no step at all. A BMC whose read-back still shows the old value
// changes it through a BIOS job: like Ironic's _wait_for_secure_boot, the host is rebooted, the
// value watched until it shows, and the power state from before restored. Every step reads
// first, so a resumed request does not repeat a change that took.
import type { BMCDriver } from '../../bmc/types.js';
import { DriverError } from '../../errors.js';
import { permanent, transient } from '../errors.js';
import type { ExecutionContext } from './context.js';
import { ensurePower } from './power.js';

/** Ironic's [redfish]boot_mode_config_timeout: how long a BIOS-job BMC gets to show the change. */
const APPLY_TIMEOUT_MS = 900_000;
const POLL_MS = 5_000;

const word = (enabled: boolean | undefined): string => (enabled === true ? 'enabled' : 'disabled');

/** Does this request's host run its OS with UEFI secure boot? */
export function wantsSecureBoot(ctx: ExecutionContext): boolean {
  return ctx.op.spec.bootMode === 'UEFISecureBoot';
}

async function waitForSecureBoot(ctx: ExecutionContext, driver: BMCDriver, wanted: boolean): Promise<void> {
  const { clock } = ctx.services;
  const deadline = clock.now() + APPLY_TIMEOUT_MS;
  for (;;) {
    if ((await driver.getSecureBoot()) === wanted) {
      return;
    }
    if (clock.now() >= deadline) {
      const limit = String(APPLY_TIMEOUT_MS / 1000);
      throw transient('SecureBootTimeout', `the BMC accepted secure boot ${word(wanted)} but still reads ${word(!wanted)} ${limit}s after a reboot`);
    }
    await clock.sleep(Math.min(POLL_MS, Math.max(0, deadline - clock.now())), ctx.signal);
  }
}

/** The BMC applies the change at the next boot: reboot, watch it show, restore the power state. */
async function applyByReboot(ctx: ExecutionContext, driver: BMCDriver, wanted: boolean): Promise<void> {
  const wasOn = (await driver.getPower()) === 'on';
  if (wasOn) {
    await ensurePower(ctx, driver, 'off', { name: 'PowerOffForSecureBoot' });
  }
  await ensurePower(ctx, driver, 'on', { name: 'PowerOnForSecureBoot' });
  await ctx.step(
    'WaitForSecureBoot',
    () => waitForSecureBoot(ctx, driver, wanted),
    () => `secure boot ${word(wanted)} after the reboot`,
  );
  if (!wasOn) {
    await ensurePower(ctx, driver, 'off', { name: 'PowerOffAfterSecureBoot' });
  }
}

/**
 * The current value. A host that does not ask for secure boot is not failed by a BMC that links a
 * SecureBoot resource it does not serve (sushy-tools outside its "full" feature set answers 404).
 */
async function readSecureBoot(ctx: ExecutionContext, driver: BMCDriver, wanted: boolean): Promise<boolean | undefined> {
  try {
    return await ctx.bmcRead('ReadSecureBoot', () => driver.getSecureBoot());
  } catch (error) {
    if (wanted || !(error instanceof DriverError) || error.kind !== 'Permanent') {
      throw error;
    }
    await ctx.note('SetSecureBoot', `the BMC's secure boot state cannot be read (${error.reason}); left as it is`);
    return undefined;
  }
}

/** Brings UEFI secure boot to `wanted` and verifies it by reading it back. */
export async function ensureSecureBoot(ctx: ExecutionContext, driver: BMCDriver, wanted: boolean): Promise<void> {
  const current = await readSecureBoot(ctx, driver, wanted);
  if (!wanted && current !== true) {
    return;
  }
  if (current === undefined) {
    throw permanent(
      'Unsupported',
      'spec.bootMode is UEFISecureBoot, but the BMC has no SecureBoot resource; set spec.bootMode to UEFI, or use a BMC that supports UEFI secure boot',
    );
  }
  if (current === wanted) {
    await ctx.note('SetSecureBoot', `secure boot already ${word(wanted)}`);
    return;
  }
  const readBack = await ctx.bmcStep(
    'SetSecureBoot',
    () => driver.setSecureBoot(wanted),
    (value) => (value === wanted ? `secure boot ${word(wanted)} (read back)` : `secure boot ${word(wanted)} requested; the BMC applies it at the next boot`),
  );
  if (readBack !== wanted) {
    await applyByReboot(ctx, driver, wanted);
  }
}
