// BMC credentials: the Secret named by spec.bmc.credentialsName in
// the host's namespace, keys username/password, values trimmed. Register claims it like BMO: the
// label environment.metal3.io=baremetal, a non-controller ownerReference to the host, and the
// finalizer baremetalhost.metal3.io/secret (not on a Secret that is being deleted); Delete
// releases the finalizer. The password never leaves this module except to the driver.
import type { OwnerReference } from '../../domain/k8s.js';
import type { CredentialsReport } from '../../domain/operations.js';
import type { BMCCredentials } from '../bmc/types.js';
import { permanent } from './errors.js';
import { isConflict } from '../kube/errors.js';
import type { KubePort, Secret, SecretMetadataPatch } from '../kube/port.js';

export const SECRET_LABEL = 'environment.metal3.io';
export const SECRET_LABEL_VALUE = 'baremetal';
const SECRET_FINALIZER = 'baremetalhost.metal3.io/secret';
const CONFLICT_RETRIES = 3;

export interface HostIdentity {
  namespace: string;
  name: string;
  uid: string;
}

export interface ReadCredentials {
  credentials: BMCCredentials;
  report: CredentialsReport;
  secret: Secret;
}

/** A Secret's value for `key`, base64-decoded and trimmed; undefined when absent or blank. */
function secretValue(secret: Secret, key: string): string | undefined {
  const raw = secret.data?.[key];
  if (raw === undefined) {
    return undefined;
  }
  const value = Buffer.from(raw, 'base64').toString('utf8').trim();
  return value === '' ? undefined : value;
}

export function credentialsReport(secret: Secret): CredentialsReport {
  return { name: secret.metadata.name ?? '', namespace: secret.metadata.namespace ?? '', credentialsVersion: secret.metadata.resourceVersion ?? '' };
}

/** Why a key gives no value: absent (naming the keys that are there, never a value) or blank. */
function missingDetail(secret: Secret, key: string): string {
  const keys = Object.keys(secret.data ?? {}).sort();
  if (secret.data?.[key] !== undefined) {
    return `the key "${key}" is empty`;
  }
  return `there is no key "${key}" (keys: ${keys.length === 0 ? 'none' : keys.join(', ')}; both username and password are needed)`;
}

/** The credentials from a Secret already read; permanent CredentialsInvalid naming the missing or empty key. */
export function credentialsFrom(secret: Secret): ReadCredentials {
  const where = `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  const username = secretValue(secret, 'username');
  const password = secretValue(secret, 'password');
  for (const [key, value] of [['username', username] as const, ['password', password] as const]) {
    if (value === undefined) {
      throw permanent(
        'CredentialsInvalid',
        `Validation error with BMC credentials: Missing BMC connection detail '${key}' in secret ${where}: ${missingDetail(secret, key)}`,
      );
    }
  }
  return { credentials: { username: username ?? '', password: password ?? '' }, report: credentialsReport(secret), secret };
}

export function missingSecret(namespace: string, name: string): Error {
  if (name === '') {
    return permanent('CredentialsNotFound', 'No BMC CredentialsName defined for the host');
  }
  return permanent('CredentialsNotFound', `BMC CredentialsName secret doesn't exist: ${namespace}/${name} does not exist`);
}

/**
 * A credentials name with a '/' (namespace/name) is refused before any API call: the pool reads
 * BMC Secrets only from the host's own namespace (the CRD and the hook refuse it too).
 */
export function refuseNamespacedName(name: string): void {
  if (name.includes('/')) {
    throw permanent(
      'CredentialsInvalid',
      `BMC CredentialsName ${name} is not the name of a Secret in the host's namespace: cross-namespace Secret references are not allowed`,
    );
  }
}

/** Reads the Secret fresh from the apiserver. */
export async function readCredentials(kube: KubePort, namespace: string, name: string): Promise<ReadCredentials> {
  refuseNamespacedName(name);
  const secret = name === '' ? undefined : await kube.getSecret(namespace, name);
  if (secret === undefined) {
    throw missingSecret(namespace, name);
  }
  return credentialsFrom(secret);
}

function hostOwnerReference(host: HostIdentity): OwnerReference {
  return { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: host.name, uid: host.uid, controller: false };
}

/** An owner reference to the host that is not a controller reference (older BMO used one). */
function ownedByHost(secret: Secret, host: HostIdentity): boolean {
  const mine = (secret.metadata.ownerReferences ?? []).find((ref) => ref.uid === host.uid);
  return mine !== undefined && mine.controller !== true;
}

/** The metadata a claimed Secret must carry, or undefined when it already does. */
function claimPatch(secret: Secret, host: HostIdentity): Omit<SecretMetadataPatch, 'resourceVersion'> | undefined {
  const meta = secret.metadata;
  const finalizers = meta.finalizers ?? [];
  const labelled = meta.labels?.[SECRET_LABEL] === SECRET_LABEL_VALUE;
  const addFinalizer = meta.deletionTimestamp === undefined && !finalizers.includes(SECRET_FINALIZER);
  if (labelled && ownedByHost(secret, host) && !addFinalizer) {
    return undefined;
  }
  const owners = (meta.ownerReferences ?? []).filter((ref) => ref.uid !== host.uid);
  return {
    labels: { ...meta.labels, [SECRET_LABEL]: SECRET_LABEL_VALUE },
    ownerReferences: [...owners, hostOwnerReference(host)],
    ...(addFinalizer && { finalizers: [...finalizers, SECRET_FINALIZER] }),
  };
}

/** Label, own and finalize the Secret (retrying on conflicts); returns the Secret as stored. */
export async function claimSecret(kube: KubePort, secret: Secret, host: HostIdentity): Promise<Secret> {
  let current = secret;
  for (let attempt = 0; ; attempt += 1) {
    const patch = claimPatch(current, host);
    if (patch === undefined) {
      return current;
    }
    try {
      return await kube.patchSecretMetadata(host.namespace, current.metadata.name ?? '', { ...patch, resourceVersion: current.metadata.resourceVersion ?? '' });
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_RETRIES) {
        throw error;
      }
      current = (await kube.getSecret(host.namespace, current.metadata.name ?? '')) ?? current;
    }
  }
}

async function removeFinalizer(kube: KubePort, namespace: string, name: string): Promise<boolean> {
  // A namespace/name was never read, so never claimed: nothing to release, and nothing is asked for.
  const secret = name === '' || name.includes('/') ? undefined : await kube.getSecret(namespace, name);
  const finalizers = secret?.metadata.finalizers ?? [];
  if (secret === undefined || !finalizers.includes(SECRET_FINALIZER)) {
    return false;
  }
  const remaining = finalizers.filter((item) => item !== SECRET_FINALIZER);
  await kube.patchSecretMetadata(namespace, name, { finalizers: remaining, resourceVersion: secret.metadata.resourceVersion ?? '' });
  return true;
}

/** Remove the pool's finalizer (retrying on conflicts); a missing Secret is already released. */
export async function releaseSecret(kube: KubePort, namespace: string, name: string): Promise<boolean> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await removeFinalizer(kube, namespace, name);
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_RETRIES) {
        throw error;
      }
    }
  }
}
