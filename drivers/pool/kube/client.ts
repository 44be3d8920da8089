// The real KubePort: @kubernetes/client-node 1.4 for lists, writes and the watch stream, with
// the pool's own reflector (reflector.ts) around the stream for relists and liveness.
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, V1LeaseSpec, V1ObjectMeta, Watch, setHeaderOptions } from '@kubernetes/client-node';
import type { CoreV1Event, V1Lease, V1Secret } from '@kubernetes/client-node';
import type { KObject } from '../../../domain/k8s.js';
import type { Clock } from '../clock.js';
import { Reflector } from './reflector.js';
import type { ListResult, ReflectorTransport, RestartReason, WatchStream } from './reflector.js';
import { isNotFound } from './port.js';
import type { CoreEvent, KubePort, KubeWatch, Lease, Secret, SecretMetadataPatch, StatusResource, WatchEvent, WatchOptions, WatchedResource } from './port.js';

const GROUP = 'ironhook.dev';
const VERSION = 'v1alpha1';
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface KubeClientOptions {
  clock: Clock;
  livenessMs: number;
  watchTimeoutSeconds: number;
  onWatchRestart?: (resource: WatchedResource, reason: RestartReason, error?: unknown) => void;
}

export function loadKubeConfig(path: string | undefined): KubeConfig {
  const config = new KubeConfig();
  if (path === undefined) {
    config.loadFromDefault();
  } else {
    config.loadFromFile(path);
  }
  return config;
}

function watchPath(resource: WatchedResource, namespace: string | undefined): string {
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  return resource === 'secrets' ? `/api/v1${scope}/secrets` : `/apis/${GROUP}/${VERSION}${scope}/${resource}`;
}

/** A client-node typed Secret as plain JSON (only the fields the pool reads). */
function secretJSON(secret: V1Secret): Secret {
  const { name, namespace, uid, resourceVersion, labels, finalizers, ownerReferences, deletionTimestamp } = secret.metadata ?? new V1ObjectMeta();
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      uid,
      resourceVersion,
      labels,
      finalizers,
      ownerReferences,
      ...(deletionTimestamp && { deletionTimestamp: new Date(deletionTimestamp).toISOString() }),
    },
    ...(secret.data && { data: secret.data }),
    ...(secret.type !== undefined && { type: secret.type }),
  };
}

function leaseJSON(lease: V1Lease): Lease {
  const { holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions } = lease.spec ?? new V1LeaseSpec();
  const { name = '', namespace = '', resourceVersion } = lease.metadata ?? new V1ObjectMeta();
  // MicroTime: the apiserver parses exactly six fractional digits.
  const time = (value: Date | string | undefined): string | undefined => (value === undefined ? undefined : new Date(value).toISOString().replace(/Z$/, '000Z'));
  return {
    metadata: { name, namespace, resourceVersion },
    spec: { holderIdentity, leaseDurationSeconds, acquireTime: time(acquireTime), renewTime: time(renewTime), leaseTransitions },
  };
}

function leaseBody(lease: Lease): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: lease.metadata,
    spec: lease.spec,
  } as unknown as V1Lease;
}

export class KubeClient implements KubePort {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly watcher: Watch;

  constructor(
    private readonly config: KubeConfig,
    private readonly options: KubeClientOptions,
  ) {
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.core = config.makeApiClient(CoreV1Api);
    this.coordination = config.makeApiClient(CoordinationV1Api);
    this.watcher = new Watch(config);
  }

  watch(resource: WatchedResource, options: WatchOptions, onEvent: (event: WatchEvent) => void): KubeWatch {
    const reflector = new Reflector(this.transport(resource, options), onEvent, {
      clock: this.options.clock,
      livenessMs: this.options.livenessMs,
      onRestart: (reason, error) => {
        this.options.onWatchRestart?.(resource, reason, error);
      },
    });
    return {
      start: () => reflector.start(),
      stop: () => {
        reflector.stop();
      },
    };
  }

  private transport(resource: WatchedResource, options: WatchOptions): ReflectorTransport {
    return {
      list: () => this.list(resource, options),
      watch: async (resourceVersion, onEvent, onDone): Promise<WatchStream> => {
        const query = { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.options.watchTimeoutSeconds, labelSelector: options.labelSelector };
        const controller = await this.watcher.watch(watchPath(resource, options.namespace), query, (type: string, object: KObject) => {
          onEvent(type, object);
        }, onDone);
        return {
          abort: () => {
            controller.abort();
          },
        };
      },
    };
  }

  private async list(resource: WatchedResource, options: WatchOptions): Promise<ListResult> {
    const { namespace, labelSelector } = options;
    if (resource === 'secrets') {
      const list = namespace === undefined ? await this.core.listSecretForAllNamespaces({ labelSelector }) : await this.core.listNamespacedSecret({ namespace, labelSelector });
      return { items: list.items.map(secretJSON), resourceVersion: list.metadata?.resourceVersion ?? '' };
    }
    const request = { group: GROUP, version: VERSION, plural: resource, labelSelector };
    const list = (namespace === undefined ? await this.custom.listClusterCustomObject(request) : await this.custom.listNamespacedCustomObject({ ...request, namespace })) as {
      items: KObject[];
      metadata?: { resourceVersion?: string };
    };
    return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async patchStatus(resource: StatusResource, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace, plural: resource, name, body: { status } }, MERGE_PATCH);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    try {
      return secretJSON(await this.core.readNamespacedSecret({ namespace, name }));
    } catch (error) {
      if (isNotFound(error)) {
        return undefined;
      }
      throw error;
    }
  }

  async patchSecretMetadata(namespace: string, name: string, patch: SecretMetadataPatch): Promise<Secret> {
    return secretJSON(await this.core.patchNamespacedSecret({ namespace, name, body: { metadata: patch } }, MERGE_PATCH));
  }

  async createEvent(namespace: string, event: CoreEvent): Promise<string> {
    const created = await this.core.createNamespacedEvent({ namespace, body: { apiVersion: 'v1', kind: 'Event', ...event } as unknown as CoreV1Event });
    return created.metadata.name ?? '';
  }

  async patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<void> {
    await this.core.patchNamespacedEvent({ namespace, name, body: patch }, MERGE_PATCH);
  }

  async getLease(namespace: string, name: string): Promise<Lease | undefined> {
    try {
      return leaseJSON(await this.coordination.readNamespacedLease({ namespace, name }));
    } catch (error) {
      if (isNotFound(error)) {
        return undefined;
      }
      throw error;
    }
  }

  async createLease(lease: Lease): Promise<Lease> {
    return leaseJSON(await this.coordination.createNamespacedLease({ namespace: lease.metadata.namespace, body: leaseBody(lease) }));
  }

  async replaceLease(lease: Lease): Promise<Lease> {
    return leaseJSON(await this.coordination.replaceNamespacedLease({ namespace: lease.metadata.namespace, name: lease.metadata.name, body: leaseBody(lease) }));
  }

  /** The kubeconfig in use (for logs: server only). */
  server(): string {
    return this.config.getCurrentCluster()?.server ?? '';
  }
}
