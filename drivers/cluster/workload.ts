// Clients for workload clusters, built from the Cluster API Secret `<cluster>-kubeconfig` (key
// `value`) in the request's namespace. The kubeconfig is credentials: it is never logged and
// never put into a status; a client is cached per Secret resourceVersion, so a rotated
// kubeconfig is picked up on the next request.
import { KubeConfig } from '@kubernetes/client-node';
import { KUBECONFIG_SECRET_KEY, kubeconfigSecretName } from '../../domain/capi/requests.js';
import { KubeApi, verifiedTLS } from '../kube/api.js';
import type { KubePort, Secret } from '../kube/port.js';
import { transient } from '../pool/errors.js';

interface Cached {
  resourceVersion: string;
  client: KubeApi;
  secrets: string[];
}

export interface WorkloadClient {
  client: KubeApi;
  /** Values to scrub from messages (tokens, passwords of the kubeconfig's user). */
  secrets: string[];
}

/** The credentials inside a kubeconfig, so error messages can be scrubbed of them. */
function credentialsOf(config: KubeConfig): string[] {
  const user = config.getCurrentUser();
  return [user?.token, user?.password, user?.keyData].filter((value): value is string => typeof value === 'string' && value !== '');
}

export class WorkloadClients {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly management: KubePort,
    private readonly timeoutMs: number,
  ) {}

  private async readSecret(namespace: string, name: string): Promise<Secret> {
    const secret = await this.management.getSecret(namespace, name);
    if (secret === undefined) {
      // Cluster API writes it once the control plane is up: wait for it.
      throw transient('KubeconfigNotFound', `the Secret ${namespace}/${name} with the workload cluster's kubeconfig does not exist (yet)`);
    }
    return secret;
  }

  /** A client for the cluster's API server; transient failures while the Secret is missing. */
  async forCluster(namespace: string, cluster: string): Promise<WorkloadClient> {
    const name = kubeconfigSecretName(cluster);
    const secret = await this.readSecret(namespace, name);
    const resourceVersion = secret.metadata.resourceVersion ?? '';
    const key = `${namespace}/${name}`;
    const cached = this.cache.get(key);
    if (cached?.resourceVersion === resourceVersion) {
      return cached;
    }
    const encoded = secret.data?.[KUBECONFIG_SECRET_KEY];
    if (encoded === undefined || encoded === '') {
      throw transient('KubeconfigNotFound', `the Secret ${namespace}/${name} has no key "${KUBECONFIG_SECRET_KEY}" (yet)`);
    }
    const config = new KubeConfig();
    try {
      config.loadFromString(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch {
      throw transient('KubeconfigInvalid', `the Secret ${namespace}/${name} does not hold a readable kubeconfig`);
    }
    if (config.getCurrentCluster() === null) {
      throw transient('KubeconfigInvalid', `the kubeconfig in the Secret ${namespace}/${name} names no current cluster`);
    }
    const client = new KubeApi(verifiedTLS(config), this.timeoutMs);
    const entry = { resourceVersion, client, secrets: credentialsOf(config) };
    this.cache.set(key, entry);
    return entry;
  }

  /** Every credential of the kubeconfigs in use, for scrubbing messages. */
  secrets(): string[] {
    return [...this.cache.values()].flatMap((entry) => entry.secrets);
  }

  close(): void {
    this.cache.clear();
  }
}
