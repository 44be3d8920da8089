// `ironhook explain`: reads the host's objects from the apiserver named by KUBECONFIG (or the
// in-cluster config): the BareMetalHost, its HostOperations (label ironhook.dev/host), its
// BMCMonitor and the core Events about it.
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import { labelValue } from '../../domain/naming.js';
import { HOST_LABEL } from '../../domain/operations.js';
import type { BMCMonitor, HostOperation } from '../../domain/operations.js';
import type { EventView, ExplainObjects } from './explain-facts.js';

export class HostNotFoundError extends Error {}

export interface ExplainSource {
  /** The kubeconfig context's namespace, or "default". */
  defaultNamespace(): string;
  read(namespace: string, name: string): Promise<ExplainObjects>;
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 404;
}

interface CoreEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: Date | string;
  eventTime?: Date | string;
  metadata?: { creationTimestamp?: Date | string };
}

function iso(value: Date | string | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.toISOString().replace('.000Z', 'Z');
}

function eventView(event: CoreEvent): EventView {
  return {
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: event.count ?? 1,
    lastTimestamp: iso(event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp),
  };
}

export async function kubernetesExplainSource(): Promise<ExplainSource> {
  const { CoreV1Api, CustomObjectsApi, KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  config.loadFromDefault();
  const custom = config.makeApiClient(CustomObjectsApi);
  const core = config.makeApiClient(CoreV1Api);
  const get = (group: string, plural: string, namespace: string, name: string): Promise<unknown> =>
    custom.getNamespacedCustomObject({ group, version: 'v1alpha1', plural, namespace, name });
  return {
    defaultNamespace: () => config.getContextObject(config.getCurrentContext())?.namespace ?? 'default',
    async read(namespace, name) {
      let host: BareMetalHost;
      try {
        host = (await get('metal3.io', 'baremetalhosts', namespace, name)) as BareMetalHost;
      } catch (error) {
        if (isNotFound(error)) throw new HostNotFoundError(`BareMetalHost ${namespace}/${name} not found`);
        throw error;
      }
      const selector = `${HOST_LABEL}=${labelValue(name)}`;
      const operations = (await custom.listNamespacedCustomObject({
        group: 'ironhook.dev',
        version: 'v1alpha1',
        plural: 'hostoperations',
        namespace,
        labelSelector: selector,
      })) as { items: HostOperation[] };
      const monitor = (await get('ironhook.dev', 'bmcmonitors', namespace, name).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      })) as BMCMonitor | undefined;
      const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=BareMetalHost,involvedObject.name=${name}` });
      return { host, operations: operations.items, monitor, events: events.items.map(eventView) };
    },
  };
}
