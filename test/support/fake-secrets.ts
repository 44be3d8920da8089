// A CoreV1Api stand-in for SecretAgentStateStore: Secrets in a map, create answering 409 when
// the Secret exists and delete 404 when it does not, every call recorded.
import type { SecretsAPI } from '../../drivers/agent/secret-store.js';

interface StoredSecret {
  metadata: { name: string; namespace: string; labels: Record<string, string>; ownerReferences: unknown[] };
  data: Record<string, string>;
}

export function fakeSecretsAPI() {
  const secrets = new Map<string, StoredSecret>();
  const calls: string[] = [];
  const conflict = Object.assign(new Error('exists'), { code: 409 });
  const notFound = Object.assign(new Error('missing'), { code: 404 });
  const api = {
    createNamespacedSecret: ({ namespace, body }: { namespace: string; body: { metadata: { name: string } } }) => {
      calls.push('create');
      const key = `${namespace}/${body.metadata.name}`;
      if (secrets.has(key)) return Promise.reject(conflict);
      secrets.set(key, structuredClone(body) as never);
      return Promise.resolve(body);
    },
    replaceNamespacedSecret: ({ name, namespace, body }: { name: string; namespace: string; body: unknown }) => {
      calls.push('replace');
      secrets.set(`${namespace}/${name}`, structuredClone(body) as never);
      return Promise.resolve(body);
    },
    deleteNamespacedSecret: ({ name, namespace }: { name: string; namespace: string }) => {
      calls.push('delete');
      return secrets.delete(`${namespace}/${name}`) ? Promise.resolve({}) : Promise.reject(notFound);
    },
    listSecretForAllNamespaces: ({ labelSelector }: { labelSelector: string }) => {
      calls.push(`list ${labelSelector}`);
      return Promise.resolve({ items: [...secrets.values()] });
    },
  } as unknown as SecretsAPI;
  return { api, secrets, calls };
}
