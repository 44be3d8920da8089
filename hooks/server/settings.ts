// Start-up settings from the environment. Secrets come from files named by the environment;
// their contents never appear in errors or logs.
import { DEFAULT_HOOK_CONFIG, type HookConfig } from '../types.js';
import { parseBasicAuthFile, parseBearerFile, type HookAuth } from './auth.js';
import { DEFAULT_BODY_LIMIT } from './app.js';
import { LOG_LEVELS } from './logging.js';

export interface TlsFiles {
  cert: string;
  key: string;
  /** PEM of the CA that signs Metacontroller's client certificate (clientTLS). */
  clientCa?: string;
}

/**
 * The second listener that serves only the CRD conversion webhook (and probes) over HTTPS: the API
 * server calls conversion webhooks over HTTPS only, while Metacontroller's hook listener may stay
 * plain HTTP. The file paths are kept so a renewed certificate (cert-manager) is picked up.
 */
interface ConversionListenerSettings {
  port: number;
  certFile: string;
  keyFile: string;
  tls: TlsFiles;
}

export interface ServerSettings {
  port: number;
  host: string;
  bodyLimit: string;
  logLevel: string;
  hookConfig: HookConfig;
  tls?: TlsFiles;
  auth?: HookAuth;
  conversion?: ConversionListenerSettings;
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
}

export type Env = Readonly<Record<string, string | undefined>>;
export type ReadTextFile = (path: string) => string;

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function integer(env: Env, name: string, fallback: number, range: { min: number; max: number }): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new SettingsError(`${name} must be an integer from ${range.min} to ${range.max}, got "${raw}"`);
  }
  return n;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new SettingsError(`${name} must be true or false, got "${raw}"`);
}

function bodyLimit(env: Env): string {
  const raw = value(env, 'HOOK_BODY_LIMIT') ?? DEFAULT_BODY_LIMIT;
  if (!/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i.test(raw)) {
    throw new SettingsError(`HOOK_BODY_LIMIT must be a size like "64mb" or a byte count, got "${raw}"`);
  }
  return raw;
}

function logLevel(env: Env): string {
  const raw = value(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(raw)) {
    throw new SettingsError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw;
}

function readSecretFile(read: ReadTextFile, name: string, path: string): string {
  try {
    return read(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new SettingsError(`cannot read ${name} (${path}): ${typeof code === 'string' ? code : 'read failed'}`);
  }
}

function withName<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new SettingsError(`${name}: ${err instanceof Error ? err.message : 'invalid'}`);
  }
}

function auth(env: Env, read: ReadTextFile): HookAuth | undefined {
  const bearerPath = value(env, 'HOOK_BEARER_TOKEN_FILE');
  const basicPath = value(env, 'HOOK_BASIC_AUTH_FILE');
  if (bearerPath !== undefined && basicPath !== undefined) {
    throw new SettingsError('set HOOK_BEARER_TOKEN_FILE or HOOK_BASIC_AUTH_FILE, not both');
  }
  if (bearerPath !== undefined) {
    const text = readSecretFile(read, 'HOOK_BEARER_TOKEN_FILE', bearerPath);
    return withName('HOOK_BEARER_TOKEN_FILE', () => parseBearerFile(text));
  }
  if (basicPath !== undefined) {
    const text = readSecretFile(read, 'HOOK_BASIC_AUTH_FILE', basicPath);
    return withName('HOOK_BASIC_AUTH_FILE', () => parseBasicAuthFile(text));
  }
  return undefined;
}

function tls(env: Env, read: ReadTextFile): TlsFiles | undefined {
  const certPath = value(env, 'TLS_CERT_FILE');
  const keyPath = value(env, 'TLS_KEY_FILE');
  const caPath = value(env, 'TLS_CLIENT_CA_FILE');
  if (certPath === undefined && keyPath === undefined) {
    if (caPath !== undefined) throw new SettingsError('TLS_CLIENT_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE');
    return undefined;
  }
  if (certPath === undefined || keyPath === undefined) {
    throw new SettingsError('set both TLS_CERT_FILE and TLS_KEY_FILE, or neither');
  }
  const files: TlsFiles = {
    cert: readSecretFile(read, 'TLS_CERT_FILE', certPath),
    key: readSecretFile(read, 'TLS_KEY_FILE', keyPath),
  };
  if (caPath !== undefined) files.clientCa = readSecretFile(read, 'TLS_CLIENT_CA_FILE', caPath);
  return files;
}

function conversionFiles(env: Env): { certFile: string; keyFile: string } | undefined {
  const certFile = value(env, 'CONVERSION_TLS_CERT_FILE');
  const keyFile = value(env, 'CONVERSION_TLS_KEY_FILE');
  if (value(env, 'CONVERSION_TLS_PORT') === undefined) {
    if (certFile !== undefined || keyFile !== undefined)
      throw new SettingsError('CONVERSION_TLS_CERT_FILE and CONVERSION_TLS_KEY_FILE need CONVERSION_TLS_PORT');
    return undefined;
  }
  if (certFile === undefined || keyFile === undefined) {
    throw new SettingsError(
      'CONVERSION_TLS_PORT needs CONVERSION_TLS_CERT_FILE and CONVERSION_TLS_KEY_FILE (the API server calls conversion webhooks over HTTPS only)',
    );
  }
  return { certFile, keyFile };
}

function conversion(env: Env, read: ReadTextFile, hookPort: number): ConversionListenerSettings | undefined {
  const files = conversionFiles(env);
  if (files === undefined) return undefined;
  const port = integer(env, 'CONVERSION_TLS_PORT', 0, { min: 0, max: 65535 });
  if (port !== 0 && port === hookPort) throw new SettingsError(`CONVERSION_TLS_PORT must differ from PORT (${String(port)})`);
  const tlsFiles = {
    cert: readSecretFile(read, 'CONVERSION_TLS_CERT_FILE', files.certFile),
    key: readSecretFile(read, 'CONVERSION_TLS_KEY_FILE', files.keyFile),
  };
  return { port, ...files, tls: tlsFiles };
}

/** Reads every setting, failing with one clear message on the first bad one. */
export function loadSettings(env: Env, read: ReadTextFile): ServerSettings {
  const settings: ServerSettings = {
    port: integer(env, 'PORT', 8080, { min: 0, max: 65535 }),
    host: value(env, 'HOST') ?? '0.0.0.0',
    bodyLimit: bodyLimit(env),
    logLevel: logLevel(env),
    hookConfig: {
      maxProvisioningRetries: integer(env, 'MAX_PROVISIONING_RETRIES', DEFAULT_HOOK_CONFIG.maxProvisioningRetries, { min: 0, max: 1_000_000 }),
      monitorIntervalSeconds: integer(env, 'BMC_MONITOR_INTERVAL_SECONDS', DEFAULT_HOOK_CONFIG.monitorIntervalSeconds, { min: 1, max: 86_400 }),
      remediationOutOfServiceTaint: boolean(env, 'REMEDIATION_OUT_OF_SERVICE_TAINT', false),
    },
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_SECONDS', 2, { min: 0, max: 300 }) * 1000,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, { min: 1, max: 3600 }) * 1000,
  };
  const tlsFiles = tls(env, read);
  if (tlsFiles !== undefined) settings.tls = tlsFiles;
  const hookAuth = auth(env, read);
  if (hookAuth !== undefined) settings.auth = hookAuth;
  const conversionListener = conversion(env, read, settings.port);
  if (conversionListener !== undefined) settings.conversion = conversionListener;
  return settings;
}
