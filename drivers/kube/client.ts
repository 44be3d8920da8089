// The real KubePort: @kubernetes/client-node 1.4 (through api.ts: deadlines, KubeStatusError) for
// lists and writes, client-node's Watch for the stream, with the pool's own reflector
// (reflector.ts) around the stream for relists and liveness.
import { KubeConfig, V1DeleteOptions, V1LeaseSpec, V1ObjectMeta, V1Preconditions, Watch } from '@kubernetes/client-node';
import type { ConfigurationOptions, CoreV1Event, V1Lease, V1Secret } from '@kubernetes/client-node';
import type { KObject } from '../../domain/k8s.js';
import type { Clock } from '../pool/clock.js';
import { KubeApi, MERGE_PATCH } from './api.js';
import { unlessNotFound } from './errors.js';
import { Reflector } from './reflector.js';
import type { ListResult, ReflectorTransport, RestartReason, WatchStream } from './reflector.js';
import { groupVersionOf, REQUEST_GROUP, REQUEST_VERSION } from './port.js';
import type {
  AdoptedResource,
  CoreEvent,
  KubePort,
  KubeWatch,
  Lease,
  Secret,
  SecretMetadataPatch,
  StatusResource,
  WatchEvent,
  WatchOptions,
  WatchedResource,
} from './port.js';

export interface KubeClientOptions {
  clock: Clock;
  livenessMs: number;
  watchTimeoutSeconds: number;
  /** Deadline of one call (not of a watch stream); none when absent. */
  callTimeoutMs?: number;
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
  const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  if (resource === 'secrets') {
    return `/api/v1${scope}/secrets`;
  }
  const { group, version } = groupVersionOf(resource);
  return `/apis/${group}/${version}${scope}/${resource}`;
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
  const time = (value: Date | string | undefined): string | undefined =>
    value === undefined ? undefined : new Date(value).toISOString().replace(/Z$/, '000Z');
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
  private readonly api: KubeApi;
  private readonly watcher: Watch;

  constructor(
    private readonly config: KubeConfig,
    private readonly options: KubeClientOptions,
  ) {
    this.api = new KubeApi(config, options.callTimeoutMs);
    this.watcher = new Watch(config);
  }

  private call<T>(what: string, send: (options: ConfigurationOptions) => Promise<T>, contentType?: string): Promise<T> {
    return this.api.call(what, send, contentType);
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
      list: async () => {
        const listed = await this.list(resource, options);
        const project = options.project;
        return project === undefined ? listed : { ...listed, items: listed.items.map((item) => project(item)) };
      },
      watch: async (resourceVersion, onEvent, onDone): Promise<WatchStream> => {
        const query = { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.options.watchTimeoutSeconds, labelSelector: options.labelSelector };
        const controller = await this.watcher.watch(
          watchPath(resource, options.namespace),
          query,
          (type: string, object: KObject) => {
            onEvent(type, options.project === undefined ? object : options.project(object));
          },
          onDone,
        );
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
    const what = `list ${watchPath(resource, namespace)}`;
    if (resource === 'secrets') {
      const list = await this.call(what, (call) =>
        namespace === undefined
          ? this.api.core.listSecretForAllNamespaces({ labelSelector }, call)
          : this.api.core.listNamespacedSecret({ namespace, labelSelector }, call),
      );
      return { items: list.items.map(secretJSON), resourceVersion: list.metadata?.resourceVersion ?? '' };
    }
    const request = { ...groupVersionOf(resource), plural: resource, labelSelector };
    const list = (await this.call(what, (call) =>
      namespace === undefined
        ? this.api.custom.listClusterCustomObject(request, call)
        : this.api.custom.listNamespacedCustomObject({ ...request, namespace }, call),
    )) as {
      items: KObject[];
      metadata?: { resourceVersion?: string };
    };
    return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async patchStatus(resource: StatusResource, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
    const params = { group: REQUEST_GROUP, version: REQUEST_VERSION, namespace, plural: resource, name, body: { status } };
    await this.call(
      `PATCH ${watchPath(resource, namespace)}/${name}/status`,
      (call) => this.api.custom.patchNamespacedCustomObjectStatus(params, call),
      MERGE_PATCH,
    );
  }

  async patchLabels(resource: AdoptedResource, namespace: string, name: string, labels: Record<string, string>): Promise<void> {
    const params = { ...groupVersionOf(resource), namespace, plural: resource, name, body: { metadata: { labels } } };
    await this.call(`PATCH ${watchPath(resource, namespace)}/${name}`, (call) => this.api.custom.patchNamespacedCustomObject(params, call), MERGE_PATCH);
  }

  async deleteRequest(resource: StatusResource, namespace: string, name: string, uid: string): Promise<void> {
    const params = { group: REQUEST_GROUP, version: REQUEST_VERSION, namespace, plural: resource, name, body: { preconditions: { uid } } };
    await unlessNotFound(
      this.call(`DELETE ${watchPath(resource, namespace)}/${name}`, (call) => this.api.custom.deleteNamespacedCustomObject(params, call)),
      undefined,
    );
  }

  async servedRequestResources(): Promise<string[]> {
    const list = await unlessNotFound(
      this.call(`discovery of ${REQUEST_GROUP}/${REQUEST_VERSION}`, (call) =>
        this.api.custom.getAPIResources({ group: REQUEST_GROUP, version: REQUEST_VERSION }, call),
      ),
      undefined,
    );
    return list?.resources.map((resource) => resource.name) ?? [];
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const secret = await unlessNotFound(
      this.call(`GET Secret ${namespace}/${name}`, (call) => this.api.core.readNamespacedSecret({ namespace, name }, call)),
      undefined,
    );
    return secret === undefined ? undefined : secretJSON(secret);
  }

  async patchSecretMetadata(namespace: string, name: string, patch: SecretMetadataPatch): Promise<Secret> {
    return secretJSON(
      await this.call(
        `PATCH Secret ${namespace}/${name}`,
        (call) => this.api.core.patchNamespacedSecret({ namespace, name, body: { metadata: patch } }, call),
        MERGE_PATCH,
      ),
    );
  }

  async createEvent(namespace: string, event: CoreEvent): Promise<string> {
    const body = { apiVersion: 'v1', kind: 'Event', ...event } as unknown as CoreV1Event;
    const created = await this.call(`POST Event in ${namespace}`, (call) => this.api.core.createNamespacedEvent({ namespace, body }, call));
    return created.metadata.name ?? '';
  }

  async patchEvent(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<void> {
    await this.call(`PATCH Event ${namespace}/${name}`, (call) => this.api.core.patchNamespacedEvent({ namespace, name, body: patch }, call), MERGE_PATCH);
  }

  async getLease(namespace: string, name: string): Promise<Lease | undefined> {
    const lease = await unlessNotFound(
      this.call(`GET Lease ${namespace}/${name}`, (call) => this.api.coordination.readNamespacedLease({ namespace, name }, call)),
      undefined,
    );
    return lease === undefined ? undefined : leaseJSON(lease);
  }

  async createLease(lease: Lease): Promise<Lease> {
    const { namespace, name } = lease.metadata;
    return leaseJSON(
      await this.call(`POST Lease ${namespace}/${name}`, (call) => this.api.coordination.createNamespacedLease({ namespace, body: leaseBody(lease) }, call)),
    );
  }

  async replaceLease(lease: Lease): Promise<Lease> {
    const { namespace, name } = lease.metadata;
    return leaseJSON(
      await this.call(`PUT Lease ${namespace}/${name}`, (call) =>
        this.api.coordination.replaceNamespacedLease({ namespace, name, body: leaseBody(lease) }, call),
      ),
    );
  }

  async deleteLease(lease: Lease): Promise<void> {
    const { namespace, name, resourceVersion } = lease.metadata;
    const body = new V1DeleteOptions();
    body.preconditions = new V1Preconditions();
    body.preconditions.resourceVersion = resourceVersion;
    await this.call(`DELETE Lease ${namespace}/${name}`, (call) => this.api.coordination.deleteNamespacedLease({ namespace, name, body }, call));
  }

  /** The kubeconfig in use (for logs: server only). */
  server(): string {
    return this.config.getCurrentCluster()?.server ?? '';
  }
}
