// Delete: release what Register claimed (the Secret finalizer; the label and ownerReference stay,
// so the Secret is garbage-collected with the host like upstream) and forget the host. No BMC
// call: a host may be deleted with its Secret already gone.
import { releaseSecret } from '../credentials.js';
import type { Executor } from './context.js';

export const deleteExecutor: Executor = async (ctx) => {
  const name = ctx.op.spec.bmc.credentialsName;
  await ctx.step(
    'ReleaseCredentials',
    () => releaseSecret(ctx.services.kube, ctx.host.namespace, name),
    (released) => (released ? `finalizer removed from secret ${ctx.host.namespace}/${name}` : 'no finalizer to remove'),
  );
  ctx.services.agent.forget(ctx.host);
  ctx.services.suspendMonitoring(ctx.host.namespace, ctx.host.name);
  await ctx.note('ForgetHost', 'agent state forgotten, BMC polling stopped');
  return {};
};
