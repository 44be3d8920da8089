// Where and how a hook is called (§3 of the reference): URL from `url` or `service` + `path`,
// timeout (Go duration, default 10 s), and the 4.16 endpoint settings: caBundle (inline,
// secretRef, configMapRef), authorization (secretRef, type default Bearer), basicAuth and
// clientTLS, either on the hook or from spec.endpointConfigs[] by host. A hook's own settings
// replace the endpoint entry wholesale. References are read once, when the controller starts.
import { parseDuration } from '../flags.js';
import type { Authorization, BasicAuth, EndpointConfig, EndpointSettings, Hook, SecretRef } from '../core/types.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Reads the data of a Secret (base64-decoded) or ConfigMap. */
export type RefReader = (kind: 'secrets' | 'configmaps', namespace: string, name: string) => Promise<Record<string, string>>;

export interface Endpoint {
  url: string;
  timeoutMs: number;
  headers: Record<string, string>;
  tls: { ca?: string; cert?: string; key?: string };
  strict: boolean;
  version: 'v1' | 'v2';
}

export function hookURL(hook: Hook, name: string): string {
  const webhook = hook.webhook;
  if (webhook === undefined) throw new Error(`${name} hook has no webhook`);
  if (webhook.url !== undefined && webhook.url !== '') return webhook.url;
  const service = webhook.service;
  if (service === undefined || webhook.path === undefined) throw new Error(`${name} hook: webhook needs url, or service and path`);
  return `${service.protocol ?? 'http'}://${service.name}.${service.namespace}:${String(service.port ?? 80)}${webhook.path}`;
}

/** Go duration; zero, negative or absent falls back to 10 s. */
export function hookTimeoutMs(timeout: string | undefined): number {
  if (timeout === undefined || timeout === '') return DEFAULT_TIMEOUT_MS;
  const ms = parseDuration(timeout);
  return ms > 0 ? ms : DEFAULT_TIMEOUT_MS;
}

function hostPort(host: string, protocol: string): string {
  const url = new URL(`${protocol}//${host.toLowerCase()}`);
  const port = url.port === '' ? (protocol === 'https:' ? '443' : '80') : url.port;
  return `${url.hostname}:${port}`;
}

const hasSettings = (settings: EndpointSettings): boolean =>
  settings.caBundle !== undefined || settings.authorization !== undefined || settings.basicAuth !== undefined || settings.clientTLS !== undefined;

/** The hook's own settings, else the endpointConfigs entry for the URL's host, else none. */
export function endpointSettings(hook: Hook, url: string, configs: EndpointConfig[] | undefined): EndpointSettings {
  const own = hook.webhook ?? {};
  if (hasSettings(own)) return own;
  const target = new URL(url);
  const wanted = hostPort(target.host, target.protocol);
  return (configs ?? []).find((config) => hostPort(config.host, target.protocol) === wanted) ?? {};
}

async function refValue(read: RefReader, kind: 'secrets' | 'configmaps', ref: { name: string; namespace: string }, key: string): Promise<string> {
  const data = await read(kind, ref.namespace, ref.name);
  const value = data[key];
  if (value === undefined) throw new Error(`key "${key}" not found in ${kind === 'secrets' ? 'Secret' : 'ConfigMap'} ${ref.namespace}/${ref.name}`);
  return value;
}

async function caBundle(settings: EndpointSettings, read: RefReader): Promise<string | undefined> {
  const bundle = settings.caBundle;
  if (bundle?.inline !== undefined) return bundle.inline;
  if (bundle?.secretRef !== undefined) return refValue(read, 'secrets', bundle.secretRef, bundle.secretRef.key ?? 'ca.crt');
  if (bundle?.configMapRef !== undefined) return refValue(read, 'configmaps', bundle.configMapRef, bundle.configMapRef.key ?? 'ca.crt');
  return undefined;
}

async function bearer(authorization: Authorization & { secretRef: SecretRef }, read: RefReader): Promise<string> {
  const type = authorization.type ?? 'Bearer';
  if (type.toLowerCase() === 'basic') throw new Error('authorization type Basic is not allowed; use basicAuth');
  return `${type} ${(await refValue(read, 'secrets', authorization.secretRef, authorization.secretRef.key ?? 'token')).trim()}`;
}

async function basic(basicAuth: BasicAuth & { secretRef: { name: string; namespace: string } }, read: RefReader): Promise<string> {
  const user = await refValue(read, 'secrets', basicAuth.secretRef, basicAuth.usernameKey ?? 'username');
  const password = await refValue(read, 'secrets', basicAuth.secretRef, basicAuth.passwordKey ?? 'password');
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function authorizationHeader(settings: EndpointSettings, read: RefReader): Promise<string | undefined> {
  const { authorization, basicAuth } = settings;
  if (authorization !== undefined && basicAuth !== undefined) throw new Error('authorization and basicAuth are mutually exclusive');
  if (authorization?.secretRef !== undefined) return bearer({ ...authorization, secretRef: authorization.secretRef }, read);
  if (basicAuth?.secretRef !== undefined) return basic({ ...basicAuth, secretRef: basicAuth.secretRef }, read);
  return undefined;
}

async function clientCertificate(settings: EndpointSettings, read: RefReader): Promise<{ cert?: string; key?: string }> {
  const tls = settings.clientTLS;
  if (tls?.secretRef === undefined) return {};
  return {
    cert: await refValue(read, 'secrets', tls.secretRef, tls.certKey ?? 'tls.crt'),
    key: await refValue(read, 'secrets', tls.secretRef, tls.privateKeyKey ?? 'tls.key'),
  };
}

/** Everything needed to call one hook, with references already read. */
export async function resolveEndpoint(hook: Hook, name: string, configs: EndpointConfig[] | undefined, read: RefReader): Promise<Endpoint> {
  const url = hookURL(hook, name);
  const settings = endpointSettings(hook, url, configs);
  const version = hook.version ?? 'v1';
  const mode = hook.webhook?.responseUnMarshallMode;
  const authorization = await authorizationHeader(settings, read);
  return {
    url,
    timeoutMs: hookTimeoutMs(hook.webhook?.timeout),
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    tls: { ca: await caBundle(settings, read), ...(await clientCertificate(settings, read)) },
    strict: mode === undefined ? version === 'v2' : mode === 'strict',
    version,
  };
}
