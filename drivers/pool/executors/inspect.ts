// Inspect: "fast" reads the BMC's out-of-band inventory; "agent" boots the agent, collects its
// in-band inventory and shuts it down again.
import { permanent } from '../errors.js';
import type { Executor } from './context.js';
import { bootAgent, stopAgent } from './agent-boot.js';

function summary(hardware: { cpu?: { count?: number }; ramMebibytes?: number; nics?: unknown[]; storage?: unknown[] }): string {
  return `${String(hardware.cpu?.count ?? 0)} CPUs, ${String(hardware.ramMebibytes ?? 0)} MiB RAM, ${String(hardware.nics?.length ?? 0)} NICs, ${String(hardware.storage?.length ?? 0)} disks`;
}

export const inspectExecutor: Executor = async (ctx) => {
  const connection = await ctx.connection();
  const { driver, address } = connection;
  if (ctx.op.spec.inspect?.mode === 'fast') {
    if (!address.capabilities.supportsFastInspection) {
      throw permanent('Unsupported', `out-of-band (fast) inspection is not available for ${address.baseScheme} BMCs`);
    }
    const hardware = await ctx.bmcStep('ReadInventory', () => driver.inventory(), summary);
    return { hardware, poweredOn: (await driver.getPower()) === 'on' };
  }
  const handle = await bootAgent(ctx, connection);
  const { agentCommandTimeoutMs } = ctx.services.settings;
  const hardware = await ctx.step(
    'CollectInventory',
    () => ctx.services.agent.inventory(handle, { signal: ctx.signal, timeoutMs: agentCommandTimeoutMs }),
    summary,
  );
  await stopAgent(ctx, connection, handle);
  return { hardware, poweredOn: false };
};
