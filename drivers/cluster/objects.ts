// Read, JSON-patch and replace an ObjectPatch target through client-node: CustomObjectsApi for the
// custom kinds (its *Status calls address the status subresource, which KubernetesObjectApi
// cannot), CoreV1Api for the one core kind, Secret. KubernetesObjectApi is not used: its patch
// sends the object it is given as the body, so an RFC 6902 operation list cannot go through it.
import type { ConfigurationOptions, V1Secret } from '@kubernetes/client-node';
import type { JsonPatchOperation } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { JSON_PATCH } from '../kube/api.js';
import type { KubeApi } from '../kube/api.js';
import { refPath } from './targets.js';
import type { TargetRef } from './targets.js';

interface CustomParams {
  group: string;
  version: string;
  namespace: string;
  plural: string;
  name: string;
}

const custom = (ref: TargetRef): CustomParams => ({ group: ref.group, version: ref.version, namespace: ref.namespace, plural: ref.plural, name: ref.name });

/** The one core kind targets.ts allows; anything else is a programming error, not a request's. */
function assertSecret(ref: TargetRef): void {
  if (ref.plural !== 'secrets') {
    throw new Error(`no client call for core ${ref.plural}`);
  }
}

/** A typed Secret as the plain JSON the API server sent (the executors compare JSON values). */
const plain = (secret: V1Secret): KObject => JSON.parse(JSON.stringify(secret)) as KObject;

/** CustomObjectsApi answers untyped JSON: the object as the API server sent it. */
async function customObject(api: KubeApi, what: string, send: (options: ConfigurationOptions) => Promise<unknown>, contentType?: string): Promise<KObject> {
  return (await api.call(what, send, contentType)) as KObject;
}

export async function readTarget(api: KubeApi, ref: TargetRef): Promise<KObject> {
  const what = `GET ${refPath(ref)}`;
  if (ref.group === '') {
    assertSecret(ref);
    return plain(await api.call(what, (options) => api.core.readNamespacedSecret({ namespace: ref.namespace, name: ref.name }, options)));
  }
  return customObject(api, what, (options) =>
    ref.status ? api.custom.getNamespacedCustomObjectStatus(custom(ref), options) : api.custom.getNamespacedCustomObject(custom(ref), options),
  );
}

/** One application/json-patch+json PATCH: atomic, its `test` operations are preconditions. */
export async function jsonPatchTarget(api: KubeApi, ref: TargetRef, operations: JsonPatchOperation[]): Promise<KObject> {
  const what = `PATCH ${refPath(ref)}`;
  if (ref.group === '') {
    assertSecret(ref);
    return plain(
      await api.call(what, (options) => api.core.patchNamespacedSecret({ namespace: ref.namespace, name: ref.name, body: operations }, options), JSON_PATCH),
    );
  }
  const params = { ...custom(ref), body: operations };
  return customObject(
    api,
    what,
    (options) => (ref.status ? api.custom.patchNamespacedCustomObjectStatus(params, options) : api.custom.patchNamespacedCustomObject(params, options)),
    JSON_PATCH,
  );
}

/** PUT of the whole object; its metadata.resourceVersion guards against lost updates (409). */
export async function replaceTarget(api: KubeApi, ref: TargetRef, object: KObject): Promise<KObject> {
  const what = `PUT ${refPath(ref)}`;
  if (ref.group === '') {
    assertSecret(ref);
    return plain(
      await api.call(what, (options) =>
        api.core.replaceNamespacedSecret({ namespace: ref.namespace, name: ref.name, body: object as unknown as V1Secret }, options),
      ),
    );
  }
  const params = { ...custom(ref), body: object };
  return customObject(api, what, (options) =>
    ref.status ? api.custom.replaceNamespacedCustomObjectStatus(params, options) : api.custom.replaceNamespacedCustomObject(params, options),
  );
}
