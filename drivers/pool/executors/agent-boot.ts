// Booting the IPA-compatible agent: arm the host with the
// agent service, then either PXE once (schemes that boot over the network; the agent side serves
// the kernel/ramdisk boot configuration) or the agent ISO as virtual CD once (ISO-booting
// schemes, Ironic's vmedia sequence: power off, eject, insert, boot Cd once), power on, and wait
// for the agent's lookup and heartbeat. The ISO URL carries ipa-api-url and BOOTIF; the agent
// token is never put into a URL: the agent receives it once at lookup.
import type { AgentHandle } from '../../agent/port.js';
import type { BootOptions, BMCDriver } from '../../bmc/types.js';
import type { Connection } from '../connect.js';
import { OperationFailure, permanent } from '../errors.js';
import type { ExecutionContext } from './context.js';
import { displayURL } from './context.js';
import { replaceVirtualMedia } from './vmedia.js';
import { ensurePower, waitForPower } from './power.js';

/** Ironic's post_deploy_get_power_state_retries x interval: how long the agent gets to power off. */
const AGENT_POWER_OFF_WAIT_MS = 30_000;
/** How long a resumed request listens for the agent it had already booted before booting again. */
const RESUMED_AGENT_WAIT_MS = 30_000;

export function bootMode(ctx: ExecutionContext): BootOptions['mode'] {
  return ctx.op.spec.bootMode === 'legacy' ? 'legacy' : 'UEFI';
}

function agentISOURL(base: string, apiURL: string, mac: string | undefined): string {
  const url = new URL(base);
  url.searchParams.set('ipa-api-url', apiURL);
  if (mac !== undefined) {
    url.searchParams.set('BOOTIF', mac);
  }
  return url.toString();
}

/** The agent boot medium this pool is configured with, checked against the network guard. */
async function bootMedium(ctx: ExecutionContext, iso: boolean): Promise<string | undefined> {
  const { settings, guard } = ctx.services;
  if (iso) {
    if (settings.deployISOURL === undefined) {
      throw permanent('AgentBootNotConfigured', 'the host boots the agent from virtual media, but DEPLOY_ISO_URL is not set');
    }
    await guard.checkURL(settings.deployISOURL, 'agent ISO URL');
    return settings.deployISOURL;
  }
  if (settings.deployKernelURL === undefined || settings.deployRamdiskURL === undefined) {
    throw permanent('AgentBootNotConfigured', 'the host boots the agent over PXE, but DEPLOY_KERNEL_URL and DEPLOY_RAMDISK_URL are not set');
  }
  await guard.checkURL(settings.deployKernelURL, 'agent kernel URL');
  await guard.checkURL(settings.deployRamdiskURL, 'agent ramdisk URL');
  return undefined;
}

async function insertAgentISO(ctx: ExecutionContext, driver: BMCDriver, url: string): Promise<void> {
  await ensurePower(ctx, driver, 'off', { name: 'PowerOffForAgent' });
  await replaceVirtualMedia(ctx, driver, url, `agent ISO ${displayURL(url)}`);
  await ctx.bmcStep(
    'SetBootDevice',
    () => driver.setBootDevice({ device: 'cdrom', persistent: false, mode: bootMode(ctx) }),
    () => `Cd once, ${bootMode(ctx)}`,
  );
}

/**
 * A resumed request (the pool restarted) whose host is still armed from the agent state store:
 * the agent booted before the restart heartbeats again and is used as it is, so resuming does
 * not power-cycle the host into a second agent boot. Not armed or no heartbeat in time: boot.
 */
async function resumedAgent(ctx: ExecutionContext): Promise<AgentHandle | undefined> {
  if (!ctx.resumed) {
    return undefined;
  }
  const { agent, guard, settings } = ctx.services;
  await ctx.progress('resumed: listening for the agent booted before the restart');
  let handle: AgentHandle;
  try {
    handle = await agent.waitForAgent(ctx.host, { signal: ctx.signal, timeoutMs: Math.min(RESUMED_AGENT_WAIT_MS, settings.agentBootTimeoutMs) });
  } catch (error) {
    if (ctx.signal.aborted) {
      throw error;
    }
    return undefined;
  }
  await guard.checkURL(handle.callbackURL, 'agent callback URL');
  return ctx.step(
    'WaitForAgent',
    () => Promise.resolve(handle),
    (found) => `agent at ${displayURL(found.callbackURL)} (still running after the restart)`,
  );
}

/** Boots the agent and waits for it; returns the handle of a host whose agent heartbeated. */
export async function bootAgent(ctx: ExecutionContext, connection: Connection): Promise<AgentHandle> {
  const running = await resumedAgent(ctx);
  if (running !== undefined) {
    return running;
  }
  const { agent, guard, settings } = ctx.services;
  const { driver, address } = connection;
  const iso = address.capabilities.bootsISO;
  const medium = await bootMedium(ctx, iso);
  const mac = ctx.op.spec.bootMACAddress;
  const boot = await ctx.step(
    'PrepareAgent',
    async () => {
      const parameters = await agent.expect(ctx.host, mac === undefined ? [] : [mac]);
      ctx.keepSecret(parameters.token);
      return parameters;
    },
    (parameters) => `agent API ${displayURL(parameters.apiURL)}`,
  );
  if (medium === undefined) {
    await ctx.bmcStep(
      'SetBootDevice',
      () => driver.setBootDevice({ device: 'pxe', persistent: false, mode: bootMode(ctx) }),
      () => `Pxe once, ${bootMode(ctx)}`,
    );
    await ensurePower(ctx, driver, 'off', { name: 'PowerOffForAgent' });
  } else {
    await insertAgentISO(ctx, driver, agentISOURL(medium, boot.apiURL, mac));
  }
  await ensurePower(ctx, driver, 'on', { name: 'PowerOnAgent' });
  await ctx.progress('waiting for the agent to look up and heartbeat');
  const handle = await ctx.step(
    'WaitForAgent',
    () => agent.waitForAgent(ctx.host, { signal: ctx.signal, timeoutMs: settings.agentBootTimeoutMs }),
    (found) => `agent at ${displayURL(found.callbackURL)}`,
  );
  await guard.checkURL(handle.callbackURL, 'agent callback URL');
  return handle;
}

/**
 * Shuts the agent down (standby.power_off) and makes sure the host is off: like Ironic's
 * tear_down_agent, a host still on after the settle timeout is powered off out of band.
 * Ejects the agent ISO on ISO-booting schemes.
 */
export async function stopAgent(ctx: ExecutionContext, connection: Connection, handle: AgentHandle | undefined): Promise<void> {
  const { driver, address } = connection;
  if (handle !== undefined) {
    await ctx.step(
      'AgentPowerOff',
      async () => {
        await ctx.services.agent.powerOff(handle, { signal: ctx.signal, timeoutMs: ctx.services.settings.agentCommandTimeoutMs });
        try {
          await waitForPower(ctx, driver, 'off', AGENT_POWER_OFF_WAIT_MS);
          return 'the agent powered the host off';
        } catch (error) {
          if (error instanceof OperationFailure && error.reason === 'PowerStateTimeout') {
            return 'the host was still on 30s after standby.power_off';
          }
          throw error;
        }
      },
      (message) => message,
    );
  }
  await ensurePower(ctx, driver, 'off', { name: 'PowerOffAfterAgent' });
  if (address.capabilities.bootsISO) {
    await ctx.bmcStep(
      'EjectVirtualMedia',
      () => driver.ejectVirtualMedia(),
      () => 'agent ISO ejected',
    );
  }
}
