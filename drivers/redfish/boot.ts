// Boot override: PATCH Boot with only the fields that change
// and If-Match from the latest GET; a target and mode the BMC allows; Continuous falling back to
// Once (remembered and re-applied before every power on); the mode as its own PATCH, re-sent
// after every device change where the vendor resets it. A System with @Redfish.Settings whose
// settings object carries Boot is changed through that object.
import type { BootDevice, BootOptions } from '../bmc/types.js';
import { BMCError } from '../bmc/types.js';
import type { Loaded } from './client.js';
import type { RedfishContext } from './context.js';
import { Reason, permanentError } from './errors.js';
import type { VendorQuirks } from './quirks/index.js';
import { allowable, obj, ref, text } from './resource.js';
import type { Resource } from './resource.js';

const TARGETS: Readonly<Record<BootDevice, string>> = { pxe: 'Pxe', disk: 'Hdd', cdrom: 'Cd', bios: 'BiosSetup', 'uefi-http': 'UefiHttp' };

/** The Redfish target for `device`: a vendor alias when the BMC allows it, else the standard name. */
export function bootTarget(device: BootDevice, allowed: readonly string[] | undefined, quirks: VendorQuirks): string {
  const standard = TARGETS[device];
  if (allowed === undefined) {
    return standard;
  }
  const choice = [...(quirks.bootTargetAliases[standard] ?? []), standard].find((target) => allowed.includes(target));
  if (choice === undefined) {
    throw permanentError(Reason.Unsupported, `the BMC does not allow boot target ${standard} (allowed: ${allowed.join(', ')})`);
  }
  return choice;
}

function bootOf(place: Loaded): Resource {
  const boot = obj(place.resource, 'Boot');
  if (boot === undefined) {
    throw permanentError(Reason.Unsupported, `${place.path} has no Boot settings`);
  }
  return boot;
}

/** The resource to PATCH: the settings object when it carries Boot, else the System. */
async function bootPlace(context: RedfishContext): Promise<{ system: Loaded; place: Loaded }> {
  const system = await context.system();
  const settings = ref(system.resource, '@Redfish.Settings', 'SettingsObject');
  if (settings === undefined) {
    return { system, place: system };
  }
  const loaded = await context.client.load(settings);
  return { system, place: obj(loaded.resource, 'Boot') === undefined ? system : loaded };
}

function continuousAllowed(boot: Resource): boolean {
  return allowable(boot, 'BootSourceOverrideEnabled')?.includes('Continuous') ?? true;
}

interface DeviceChange {
  readonly options: BootOptions;
  readonly enabled: 'Once' | 'Continuous';
  readonly quirks: VendorQuirks;
}

async function patchDevice(context: RedfishContext, change: DeviceChange): Promise<void> {
  const { system, place } = await bootPlace(context);
  const boot = bootOf(system);
  const target = bootTarget(change.options.device, allowable(boot, 'BootSourceOverrideTarget'), change.quirks);
  const body: Record<string, unknown> = { BootSourceOverrideTarget: target };
  if (change.quirks.alwaysSendBootEnabled || text(boot, 'BootSourceOverrideEnabled') !== change.enabled) {
    body.BootSourceOverrideEnabled = change.enabled;
  }
  if (target === 'UefiHttp' && change.options.httpBootURI !== undefined) {
    body.HttpBootUri = change.options.httpBootURI;
  }
  context.logger.debug({ system: system.path, target, enabled: change.enabled }, 'Redfish boot override');
  await context.client.patch(place.path, { Boot: body }, place.etag);
}

const MODES: Readonly<Record<BootOptions['mode'], string>> = { UEFI: 'UEFI', legacy: 'Legacy' };

async function syncMode(context: RedfishContext, mode: BootOptions['mode'], quirks: VendorQuirks): Promise<void> {
  const { system, place } = await bootPlace(context);
  const boot = bootOf(system);
  const wanted = MODES[mode];
  const current = text(boot, 'BootSourceOverrideMode');
  if (current === undefined) {
    context.logger.debug({ system: system.path }, 'Redfish BMC reports no BootSourceOverrideMode; not setting the boot mode');
    return;
  }
  const allowed = allowable(boot, 'BootSourceOverrideMode');
  if (allowed !== undefined && !allowed.includes(wanted)) {
    throw permanentError(Reason.Unsupported, `the BMC does not allow boot mode ${wanted} (allowed: ${allowed.join(', ')})`);
  }
  if (current !== wanted || quirks.resyncBootModeAfterDevice) {
    await context.client.patch(place.path, { Boot: { BootSourceOverrideMode: wanted } }, place.etag);
  }
}

/** A BMC refusing Continuous answers 400 (value not in list, unsupported): worth a Once. */
function refusedContinuous(error: unknown): boolean {
  return error instanceof BMCError && error.kind === 'Permanent' && error.reason !== Reason.CredentialsInvalid && error.reason !== Reason.SystemNotFound;
}

async function applyDevice(context: RedfishContext, options: BootOptions, quirks: VendorQuirks): Promise<void> {
  const boot = bootOf(await context.system());
  bootTarget(options.device, allowable(boot, 'BootSourceOverrideTarget'), quirks); // an unknown target fails here, not as a refused Continuous
  const wantsContinuous = options.persistent && continuousAllowed(boot);
  if (!options.persistent) {
    await patchDevice(context, { options, enabled: 'Once', quirks });
    context.pendingBoot = undefined;
    return;
  }
  try {
    if (!wantsContinuous) {
      throw permanentError(Reason.Unsupported, 'the BMC does not list Continuous for BootSourceOverrideEnabled');
    }
    await patchDevice(context, { options, enabled: 'Continuous', quirks });
    context.pendingBoot = undefined;
  } catch (error) {
    if (!refusedContinuous(error)) {
      throw error;
    }
    const reason = error instanceof BMCError ? error.reason : 'unknown';
    context.logger.warn(
      { device: options.device, reason },
      'Redfish BMC refused a Continuous boot override; using Once and re-applying it before every power on',
    );
    await patchDevice(context, { options, enabled: 'Once', quirks });
    context.pendingBoot = options;
  }
}

export async function setBootDevice(context: RedfishContext, options: BootOptions): Promise<void> {
  const quirks = await context.quirks();
  await applyDevice(context, options, quirks);
  await syncMode(context, options.mode, quirks);
}

/** Re-applies the one-time override that stands in for a refused Continuous one. */
export async function reapplyPendingBoot(context: RedfishContext): Promise<void> {
  const pending = context.pendingBoot;
  if (pending === undefined) {
    return;
  }
  const quirks = await context.quirks();
  context.logger.debug({ device: pending.device }, 'Redfish re-applying the one-time boot override before power on');
  await patchDevice(context, { options: pending, enabled: 'Once', quirks });
  await syncMode(context, pending.mode, quirks);
}
