// Virtual media: devices found under the System or its Managers
// (order from the vendor row), the first whose MediaTypes has CD or DVD. Insert with
// InsertMedia {Image} (adding TransferProtocolType when the BMC asks for it), or by PATCH where
// the BMC has no actions (Lenovo XCC). Eject with an empty POST, retried with `{}` on 400/415
// (HPE iLO), or by PATCH. Inserting the URL that is already inserted does nothing.
import type { VirtualMediaState } from '../bmc/types.js';
import type { Loaded } from './client.js';
import type { RedfishContext } from './context.js';
import { Reason, RedfishHttpError, permanentError } from './errors.js';
import type { VendorQuirks } from './quirks/index.js';
import { action, bool, ref, refs, strings, text } from './resource.js';

const CD_TYPES = new Set(['CD', 'DVD']);

/** VirtualMedia collection paths in the vendor's preferred order, without duplicates. */
async function collectionPaths(context: RedfishContext, quirks: VendorQuirks): Promise<string[]> {
  const system = await context.system();
  const fromSystem = ref(system.resource, 'VirtualMedia');
  const fromManagers: string[] = [];
  for (const manager of refs(system.resource, 'Links', 'ManagedBy')) {
    const collection = ref((await context.client.load(manager)).resource, 'VirtualMedia');
    if (collection !== undefined) {
      fromManagers.push(collection);
    }
  }
  const systemSide = fromSystem === undefined ? [] : [fromSystem];
  const ordered = quirks.virtualMediaFirst === 'system' ? [...systemSide, ...fromManagers] : [...fromManagers, ...systemSide];
  return [...new Set(ordered)];
}

/** Every CD/DVD device, in search order. */
export async function cdDevices(context: RedfishContext): Promise<Loaded[]> {
  const quirks = await context.quirks();
  const devices: Loaded[] = [];
  for (const collection of await collectionPaths(context, quirks)) {
    for (const member of refs((await context.client.load(collection)).resource, 'Members')) {
      const device = await context.client.load(member);
      if (strings(device.resource, 'MediaTypes').some((type) => CD_TYPES.has(type))) {
        devices.push(device);
      }
    }
  }
  return devices;
}

function mediaState(device: Loaded | undefined): VirtualMediaState {
  const image = text(device?.resource, 'Image');
  const inserted = bool(device?.resource, 'Inserted') ?? image !== undefined;
  return inserted && image !== undefined ? { inserted, image } : { inserted };
}

function transferProtocol(url: string): string {
  return new URL(url).protocol.replace(':', '').toUpperCase();
}

function asksForTransferProtocol(error: unknown): boolean {
  return (
    error instanceof RedfishHttpError &&
    error.info.messageIds.includes('ActionParameterMissing') &&
    error.info.relatedProperties.some((property) => property.includes('TransferProtocolType'))
  );
}

function byPatch(device: Loaded, quirks: VendorQuirks, name: string): boolean {
  return quirks.virtualMediaByPatch || text(action(device.resource, name), 'target') === undefined;
}

async function insertByAction(context: RedfishContext, device: Loaded, url: string, quirks: VendorQuirks): Promise<void> {
  const target = text(action(device.resource, 'VirtualMedia.InsertMedia'), 'target') ?? '';
  const withProtocol = { Image: url, TransferProtocolType: transferProtocol(url) };
  if (quirks.insertWithTransferProtocol) {
    await context.client.post(target, withProtocol);
    return;
  }
  try {
    await context.client.post(target, { Image: url });
  } catch (error) {
    if (!asksForTransferProtocol(error)) {
      throw error;
    }
    context.logger.debug({ device: device.path }, 'Redfish InsertMedia wants TransferProtocolType; retrying with it');
    await context.client.post(target, withProtocol);
  }
}

async function ejectDevice(context: RedfishContext, device: Loaded, quirks: VendorQuirks): Promise<void> {
  if (byPatch(device, quirks, 'VirtualMedia.EjectMedia')) {
    await context.client.patch(device.path, { Image: null, Inserted: false }, device.etag);
    return;
  }
  const target = text(action(device.resource, 'VirtualMedia.EjectMedia'), 'target') ?? '';
  if (quirks.ejectBody === 'empty-object') {
    await context.client.post(target, {});
    return;
  }
  try {
    await context.client.post(target);
  } catch (error) {
    if (!(error instanceof RedfishHttpError) || (error.status !== 400 && error.status !== 415)) {
      throw error;
    }
    context.logger.debug({ device: device.path, status: error.status }, 'Redfish EjectMedia without a body refused; retrying with {}');
    await context.client.post(target, {});
  }
}

export async function insertVirtualMedia(context: RedfishContext, url: string): Promise<void> {
  const quirks = await context.quirks();
  const [device] = await cdDevices(context);
  if (device === undefined) {
    throw permanentError(Reason.Unsupported, 'the BMC has no virtual CD/DVD device');
  }
  const state = mediaState(device);
  if (state.inserted && state.image === url) {
    return;
  }
  if (state.inserted) {
    await ejectDevice(context, device, quirks);
  }
  if (byPatch(device, quirks, 'VirtualMedia.InsertMedia')) {
    const fresh = await context.client.load(device.path);
    await context.client.patch(device.path, { Image: url, Inserted: true, WriteProtected: true }, fresh.etag);
    return;
  }
  await insertByAction(context, device, url, quirks);
}

/** Ejects every inserted CD/DVD; nothing to do is not an error. */
export async function ejectVirtualMedia(context: RedfishContext): Promise<void> {
  const quirks = await context.quirks();
  for (const device of await cdDevices(context)) {
    if (mediaState(device).inserted) {
      await ejectDevice(context, device, quirks);
    }
  }
}

export async function getVirtualMedia(context: RedfishContext): Promise<VirtualMediaState> {
  const inserted = (await cdDevices(context)).find((device) => mediaState(device).inserted);
  return mediaState(inserted);
}
