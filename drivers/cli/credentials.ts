// Where `ironhook bmc` gets BMC credentials: a Secret (the same username/password keys the pool
// reads), a file, or BMC_USERNAME/BMC_PASSWORD. Never flags. Messages name the source, never
// the values.
import { parse as parseYAML } from 'yaml';
import type { BMCCredentials } from '../bmc/types.js';
import type { CommonOptions } from './args.js';

/** The Secret's data as the API returns it (base64 values). */
export type SecretReader = (namespace: string, name: string) => Promise<Record<string, string> | undefined>;

export interface CredentialSources {
  env: Readonly<Record<string, string | undefined>>;
  readFile: (path: string) => Promise<string>;
  readSecret: SecretReader;
}

export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

function fromYAML(text: string): BMCCredentials | undefined {
  let parsed: unknown;
  try {
    parsed = parseYAML(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { username, password } = parsed as Record<string, unknown>;
  return typeof username === 'string' && typeof password === 'string' ? { username, password } : undefined;
}

/** "username\npassword" (the first two non-empty lines) or YAML/JSON with username and password. */
export function parseCredentialsFile(text: string): BMCCredentials | undefined {
  const yaml = fromYAML(text);
  if (yaml !== undefined) return yaml;
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const [username, password] = lines;
  if (lines.length !== 2 || username === undefined || password === undefined) return undefined;
  return { username: username.trim(), password: password.replace(/\s+$/, '') };
}

async function fromFile(path: string, sources: CredentialSources): Promise<BMCCredentials> {
  let text: string;
  try {
    text = await sources.readFile(path);
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unreadable';
    throw new CredentialsError(`credentials file ${path} cannot be read (${code})`);
  }
  const credentials = parseCredentialsFile(text);
  if (credentials === undefined) {
    throw new CredentialsError(`credentials file ${path} must hold two lines (username, then password) or YAML with username and password`);
  }
  return credentials;
}

function decode(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function readError(reference: string, err: unknown): CredentialsError {
  const status = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'error';
  const detail = status === '403' ? 'forbidden: the kubeconfig user may not get Secrets there' : status;
  return new CredentialsError(`Secret ${reference} cannot be read (${detail})`);
}

async function fromSecret(reference: string, sources: CredentialSources): Promise<BMCCredentials> {
  const [namespace = '', name = ''] = reference.split('/');
  const data = await sources.readSecret(namespace, name).catch((err: unknown) => {
    throw readError(reference, err);
  });
  if (data === undefined) throw new CredentialsError(`Secret ${reference} not found`);
  const username = decode(data.username);
  const password = decode(data.password);
  if (username === undefined || password === undefined) {
    throw new CredentialsError(`Secret ${reference} needs both "username" and "password" keys, as a BareMetalHost's credentials Secret does`);
  }
  return { username, password };
}

function fromEnvironment(env: CredentialSources['env']): BMCCredentials {
  const username = env.BMC_USERNAME;
  const password = env.BMC_PASSWORD;
  if (username === undefined || password === undefined) {
    throw new CredentialsError(
      'no credentials: pass --credentials-secret <namespace>/<name> or --credentials-file <path>, or set BMC_USERNAME and BMC_PASSWORD',
    );
  }
  return { username, password };
}

export async function resolveCredentials(
  options: Pick<CommonOptions, 'credentialsSecret' | 'credentialsFile'>,
  sources: CredentialSources,
): Promise<BMCCredentials> {
  if (options.credentialsSecret !== undefined) return fromSecret(options.credentialsSecret, sources);
  if (options.credentialsFile !== undefined) return fromFile(options.credentialsFile, sources);
  return fromEnvironment(sources.env);
}

/** Reads a Secret through @kubernetes/client-node with KUBECONFIG (or in-cluster) settings. */
export const kubernetesSecretReader: SecretReader = async (namespace, name) => {
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  config.loadFromDefault();
  try {
    const secret = await config.makeApiClient(CoreV1Api).readNamespacedSecret({ name, namespace });
    return secret.data ?? {};
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'code' in err && err.code === 404) return undefined;
    throw err;
  }
};
