// AgentStateStore on Kubernetes Secrets: one Secret per armed host, in the host's namespace,
// owned by the BareMetalHost (garbage-collected with it), labelled for listing after a restart.
// data.token is the token; data.record the rest (MACs, callback URL, agent_verify_ca).
import { V1Secret, type CoreV1Api } from '@kubernetes/client-node';
import { labelValue, shortHash } from '../../domain/naming.js';
import { isConflict, isNotFound } from '../kube/errors.js';
import type { AgentHostRef } from './port.js';
import type { AgentRecord } from './state.js';
import type { AgentStateStore } from './store.js';
import { checkAgentVerifyCA } from './tls.js';

export const AGENT_SECRET_LABEL = 'ironhook.dev/agent-token';
const HOST_LABEL = 'ironhook.dev/host';
const SUFFIX = '-agent-token';
const MAX_NAME = 253;

/** The methods of CoreV1Api the store uses (a fake in unit tests). */
export type SecretsAPI = Pick<CoreV1Api, 'createNamespacedSecret' | 'replaceNamespacedSecret' | 'deleteNamespacedSecret' | 'listSecretForAllNamespaces'>;

/** `<host>-agent-token`, the host part cut and hashed when the name would be too long. */
export function agentSecretName(host: string): string {
  const full = `${host}${SUFFIX}`;
  if (full.length <= MAX_NAME) {
    return full;
  }
  const hash = shortHash(host);
  return `${host.slice(0, MAX_NAME - SUFFIX.length - hash.length - 1).replace(/[-.]+$/u, '')}-${hash}${SUFFIX}`;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function unb64(text: string | undefined): string {
  return text === undefined ? '' : Buffer.from(text, 'base64').toString('utf8');
}

interface SecretBody {
  apiVersion: 'v1';
  kind: 'Secret';
  type: 'Opaque';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  data: Record<string, string>;
}

function secretFor(record: AgentRecord): SecretBody {
  const { token, ...rest } = record;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: agentSecretName(record.name),
      namespace: record.namespace,
      labels: { [AGENT_SECRET_LABEL]: 'true', [HOST_LABEL]: labelValue(record.name) },
      ownerReferences: [{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: record.name, uid: record.uid }],
    },
    data: { token: b64(token), record: b64(JSON.stringify(rest)) },
  };
}

/** A stored agent_verify_ca that is not a valid certificate any more is dropped (the system CAs apply). */
function withValidCA(record: AgentRecord): AgentRecord {
  const { agentVerifyCA, ...rest } = record;
  if (agentVerifyCA === undefined) return record;
  const check = checkAgentVerifyCA(agentVerifyCA);
  return check.ok ? { ...rest, agentVerifyCA: check.pem } : rest;
}

function recordOfSecret(secret: V1Secret): AgentRecord | undefined {
  try {
    const rest = JSON.parse(unb64(secret.data?.record)) as Omit<AgentRecord, 'token'>;
    const token = unb64(secret.data?.token);
    return token === '' || typeof rest.uid !== 'string' ? undefined : withValidCA({ ...rest, token });
  } catch {
    return undefined;
  }
}

export class SecretAgentStateStore implements AgentStateStore {
  constructor(private readonly api: SecretsAPI) {}

  async save(record: AgentRecord): Promise<void> {
    const body = secretFor(record);
    const name = agentSecretName(record.name);
    try {
      await this.api.createNamespacedSecret({ namespace: record.namespace, body: Object.assign(new V1Secret(), body) });
    } catch (err) {
      if (!isConflict(err)) throw err;
      await this.api.replaceNamespacedSecret({ name, namespace: record.namespace, body: Object.assign(new V1Secret(), body) });
    }
  }

  async remove(host: AgentHostRef): Promise<void> {
    try {
      await this.api.deleteNamespacedSecret({ name: agentSecretName(host.name), namespace: host.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async list(): Promise<AgentRecord[]> {
    const secrets = await this.api.listSecretForAllNamespaces({ labelSelector: `${AGENT_SECRET_LABEL}=true` });
    return secrets.items.map(recordOfSecret).filter((record) => record !== undefined);
  }
}
