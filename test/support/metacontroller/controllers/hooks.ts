// Hook clients for one controller object, built when its loop starts (webhook credentials and
// CA bundles referenced by Secret/ConfigMap are read once, as upstream does).
import type { EndpointConfig, HookName, Hooks } from '../core/types.js';
import { resolveEndpoint } from '../hooks/endpoint.js';
import { HookClient } from '../hooks/webhook.js';
import type { Runtime } from './runtime.js';

export type ResolvedHooks = Partial<Record<HookName, HookClient>>;

export async function resolveHooks(runtime: Runtime, hooks: Hooks, configs: EndpointConfig[] | undefined): Promise<ResolvedHooks> {
  const resolved: ResolvedHooks = {};
  const read = runtime.ops.readRef.bind(runtime.ops);
  for (const name of ['sync', 'finalize', 'customize'] as const) {
    const hook = hooks[name];
    if (hook === undefined) continue;
    const endpoint = await resolveEndpoint(hook, name, configs, read);
    resolved[name] = new HookClient(name, endpoint, runtime.log, runtime.metrics);
  }
  return resolved;
}
