// List + watch of ObjectPatches and NodeOperations through the pool's Reflector (relists, watch
// liveness, back-off: drivers/pool/kube/reflector.ts), with client-node's Watch for the stream
// and its CustomObjectsApi for the lists.
import { Watch } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KObject } from '../../domain/k8s.js';
import type { Clock } from '../pool/clock.js';
import { Reflector } from '../pool/kube/reflector.js';
import type { ListResult, ReflectorTransport, RestartReason, WatchStream } from '../pool/kube/reflector.js';
import type { KubeWatch, WatchEvent } from '../pool/kube/port.js';
import type { ClusterApi } from './api.js';

export const REQUEST_GROUP = 'ironhook.dev';
export const REQUEST_VERSION = 'v1alpha1';
export type RequestResource = 'objectpatches' | 'nodeoperations';

export function collectionPath(resource: RequestResource, namespace: string | undefined): string {
  const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `/apis/${REQUEST_GROUP}/${REQUEST_VERSION}${scope}/${resource}`;
}

export interface RequestWatchOptions {
  kubeConfig: KubeConfig;
  api: ClusterApi;
  clock: Clock;
  livenessMs: number;
  watchTimeoutSeconds: number;
  onRestart?: (resource: RequestResource, reason: RestartReason, error?: unknown) => void;
}

function transport(options: RequestWatchOptions, resource: RequestResource, namespace: string | undefined): ReflectorTransport {
  const watcher = new Watch(options.kubeConfig);
  const path = collectionPath(resource, namespace);
  return {
    list: async (): Promise<ListResult> => {
      const { api } = options;
      const request = { group: REQUEST_GROUP, version: REQUEST_VERSION, plural: resource };
      const list = (await api.call(`list ${path}`, (call) =>
        namespace === undefined ? api.custom.listClusterCustomObject(request, call) : api.custom.listNamespacedCustomObject({ ...request, namespace }, call),
      )) as { items: KObject[]; metadata?: { resourceVersion?: string } };
      return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    watch: async (resourceVersion, onEvent, onDone): Promise<WatchStream> => {
      const query = { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: options.watchTimeoutSeconds };
      const controller = await watcher.watch(path, query, (type: string, object: KObject) => {
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

/** A watch of one request kind in one namespace (all namespaces when undefined). */
export function watchRequests(options: RequestWatchOptions, resource: RequestResource, namespace: string | undefined, onEvent: (event: WatchEvent) => void): KubeWatch {
  const reflector = new Reflector(transport(options, resource, namespace), onEvent, {
    clock: options.clock,
    livenessMs: options.livenessMs,
    onRestart: (reason, error) => {
      options.onRestart?.(resource, reason, error);
    },
  });
  return {
    start: () => reflector.start(),
    stop: () => {
      reflector.stop();
    },
  };
}
