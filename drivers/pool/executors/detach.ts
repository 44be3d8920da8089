// Detach: stop managing the host without touching it: forget its agent state and stop
// refreshing its BMCMonitor (the hook removes the monitor while the host is detached).
import type { Executor } from './context.js';

export const detachExecutor: Executor = async (ctx) => {
  ctx.services.agent.forget(ctx.host);
  await ctx.note('ForgetAgent', 'agent token and callback URL forgotten');
  ctx.services.suspendMonitoring(ctx.host.namespace, ctx.host.name);
  await ctx.note('StopMonitoring', 'BMC polling stopped until the monitor is recreated');
  return {};
};
