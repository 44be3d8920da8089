// Provision: live-iso through virtual media (insert the ISO as virtual CD, boot Cd persistently,
// power on; no agent) or UEFI HTTP boot of the ISO; disk images
// through the agent (boot it, standby.prepare_image with the config drive, power off via the
// agent, boot disk persistent, UEFI secure boot on for bootMode UEFISecureBoot and off otherwise,
// power on). Custom deploy methods are not implemented and fail as
// Unsupported. A resumed request whose image was already written skips straight to booting it.
import type { Image } from '../../../domain/baremetalhost.js';
import type { ProvisionParameters } from '../../../domain/operations.js';
import type { AgentConfigDrive } from '../../agent/port.js';
import type { Connection } from '../connect.js';
import { permanent } from '../errors.js';
import type { ExecutionContext, Executor } from './context.js';
import { displayURL } from './context.js';
import { replaceVirtualMedia } from './vmedia.js';
import { bootAgent, bootMode, stopAgent } from './agent-boot.js';
import { ensurePower } from './power.js';
import { ensureSecureBoot, wantsSecureBoot } from './secureboot.js';

const CONFIG_DRIVE_KEYS = ['userData', 'networkData', 'metaData'] as const;

/** The hook refuses these too; the pool reads no Secret outside the request's namespace even so. */
function refuseOtherNamespace(key: string, named: string, own: string): void {
  if (named !== '' && named !== own) {
    throw permanent(
      'CrossNamespaceSecret',
      `${key} names a Secret in namespace ${named}, not the host's namespace ${own}: cross-namespace Secret references are not allowed`,
    );
  }
}

async function readConfigValue(ctx: ExecutionContext, key: (typeof CONFIG_DRIVE_KEYS)[number], ref: { name?: string; namespace?: string }): Promise<string> {
  const namespace = ctx.host.namespace;
  const name = ref.name ?? '';
  refuseOtherNamespace(key, ref.namespace ?? '', namespace);
  const secret = name === '' ? undefined : await ctx.services.kube.getSecret(namespace, name);
  if (secret === undefined) {
    throw permanent('SecretNotFound', `${key} secret ${namespace}/${name} does not exist`);
  }
  const raw = secret.data?.[key] ?? secret.data?.value;
  if (raw === undefined) {
    throw permanent('InvalidSecret', `${key} secret ${namespace}/${name} has neither a "${key}" nor a "value" key`);
  }
  const value = Buffer.from(raw, 'base64').toString('utf8');
  ctx.keepSecret(value);
  return value;
}

async function readConfigDrive(ctx: ExecutionContext, params: ProvisionParameters): Promise<AgentConfigDrive | undefined> {
  const present = CONFIG_DRIVE_KEYS.filter((key) => params[key] !== undefined);
  if (present.length === 0) {
    return undefined;
  }
  return ctx.step(
    'ReadConfigDrive',
    async () => {
      const drive: AgentConfigDrive = {};
      for (const key of present) {
        drive[key] = await readConfigValue(ctx, key, params[key] ?? {});
      }
      return drive;
    },
    () => `${present.join(', ')} read from their secrets`,
  );
}

async function liveISO(ctx: ExecutionContext, connection: Connection, url: string): Promise<void> {
  const { driver, address } = connection;
  const mode = bootMode(ctx);
  if (address.capabilities.bootMethod === 'uefi-http') {
    await ensurePower(ctx, driver, 'off');
    await ctx.bmcStep(
      'SetBootDevice',
      () => driver.setBootDevice({ device: 'uefi-http', persistent: true, mode, httpBootURI: url }),
      () => `UefiHttp persistent, ${displayURL(url)}`,
    );
    await ensureSecureBoot(ctx, driver, wantsSecureBoot(ctx));
    await ensurePower(ctx, driver, 'on');
    return;
  }
  if (address.capabilities.bootMethod !== 'virtual-media') {
    throw permanent(
      'Unsupported',
      `live-iso needs a virtual-media BMC scheme (for example redfish-virtualmedia); ${address.baseScheme} boots over the network`,
    );
  }
  await ensurePower(ctx, driver, 'off');
  const media = await driver.getVirtualMedia();
  if (media.inserted && media.image === url) {
    await ctx.note('InsertVirtualMedia', `${displayURL(url)} already inserted`);
  } else {
    await replaceVirtualMedia(ctx, driver, url, displayURL(url));
  }
  await ctx.bmcStep(
    'SetBootDevice',
    () => driver.setBootDevice({ device: 'cdrom', persistent: true, mode }),
    () => `Cd persistent, ${mode}`,
  );
  await ensureSecureBoot(ctx, driver, wantsSecureBoot(ctx));
  await ensurePower(ctx, driver, 'on');
}

async function diskImage(ctx: ExecutionContext, connection: Connection, image: Image, params: ProvisionParameters): Promise<void> {
  const configDrive = await readConfigDrive(ctx, params);
  if (ctx.resumed && ctx.completedEarlier('WriteImage')) {
    await ctx.note('WriteImage', 'written before the pool restarted; not written again');
    await stopAgent(ctx, connection, undefined);
  } else {
    const handle = await bootAgent(ctx, connection);
    const { checksum, checksumType, format } = image;
    const agentImage = { url: image.url, checksum, checksumType, format, rootDeviceHints: params.rootDeviceHints };
    const options = { signal: ctx.signal, timeoutMs: ctx.services.settings.agentCommandTimeoutMs };
    await ctx.progress(`writing ${displayURL(image.url)}`);
    await ctx.step(
      'WriteImage',
      () => ctx.services.agent.writeImage(handle, agentImage, configDrive, options),
      () => `${displayURL(image.url)} written`,
    );
    await stopAgent(ctx, connection, handle);
  }
  const { driver } = connection;
  await ctx.bmcStep(
    'SetBootDevice',
    () => driver.setBootDevice({ device: 'disk', persistent: true, mode: bootMode(ctx) }),
    () => `Hdd persistent, ${bootMode(ctx)}`,
  );
  await ensureSecureBoot(ctx, driver, wantsSecureBoot(ctx));
  await ensurePower(ctx, driver, 'on');
}

export const provisionExecutor: Executor = async (ctx) => {
  const params = ctx.op.spec.provision ?? {};
  const method = params.customDeploy?.method;
  if (method !== undefined && method !== '') {
    throw permanent('Unsupported', `custom deploy method "${method}" is not supported by the Ironhook driver pool (only disk images and live-iso are)`);
  }
  const image = params.image;
  if (image === undefined || image.url === '') {
    throw permanent('InvalidImage', 'the provision request carries no image URL');
  }
  await ctx.services.guard.checkURL(image.url, 'image URL');
  const connection = await ctx.connection();
  if (image.format === 'live-iso') {
    await liveISO(ctx, connection, image.url);
  } else {
    await diskImage(ctx, connection, image, params);
  }
  return { poweredOn: true };
};
