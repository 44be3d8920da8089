// Environment → server settings. Secrets come from files; errors never quote their contents.
import { describe, expect, it } from 'vitest';
import { loadSettings, type Env, type ServerSettings } from '../../hooks/server/settings.js';

const files: Record<string, string> = {
  '/run/token': 'tok-123\n',
  '/run/basic': 'metacontroller:hunter2\n',
  '/run/empty': '',
  '/run/bad-basic': 'no-colon-secret-value',
  '/tls/crt': 'CERT',
  '/tls/key': 'KEY',
  '/tls/ca': 'CA',
};

function read(path: string): string {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return text;
}

const defaults: ServerSettings = {
  port: 8080,
  host: '0.0.0.0',
  bodyLimit: '64mb',
  logLevel: 'info',
  hookConfig: { maxProvisioningRetries: 5, monitorIntervalSeconds: 60, remediationOutOfServiceTaint: false },
  shutdownDelayMs: 2000,
  shutdownTimeoutMs: 25000,
};

const good: { name: string; env: Env; expected: Partial<ServerSettings> }[] = [
  { name: 'defaults', env: {}, expected: {} },
  { name: 'blank values mean unset', env: { PORT: '', HOST: '  ' }, expected: {} },
  { name: 'port and host', env: { PORT: '9443', HOST: '127.0.0.1' }, expected: { port: 9443, host: '127.0.0.1' } },
  { name: 'port 0 picks a free port', env: { PORT: '0' }, expected: { port: 0 } },
  { name: 'body limit', env: { HOOK_BODY_LIMIT: '128mb' }, expected: { bodyLimit: '128mb' } },
  { name: 'body limit in bytes', env: { HOOK_BODY_LIMIT: '1048576' }, expected: { bodyLimit: '1048576' } },
  { name: 'log level', env: { LOG_LEVEL: 'debug' }, expected: { logLevel: 'debug' } },
  {
    name: 'hook config',
    env: { MAX_PROVISIONING_RETRIES: '0', BMC_MONITOR_INTERVAL_SECONDS: '30' },
    expected: { hookConfig: { maxProvisioningRetries: 0, monitorIntervalSeconds: 30, remediationOutOfServiceTaint: false } },
  },
  {
    name: 'remediation out-of-service taint mode',
    env: { REMEDIATION_OUT_OF_SERVICE_TAINT: 'true' },
    expected: { hookConfig: { maxProvisioningRetries: 5, monitorIntervalSeconds: 60, remediationOutOfServiceTaint: true } },
  },
  {
    name: 'shutdown timings',
    env: { SHUTDOWN_DELAY_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '10' },
    expected: { shutdownDelayMs: 0, shutdownTimeoutMs: 10000 },
  },
  { name: 'bearer token file', env: { HOOK_BEARER_TOKEN_FILE: '/run/token' }, expected: { auth: { kind: 'bearer', token: 'tok-123' } } },
  {
    name: 'basic auth file',
    env: { HOOK_BASIC_AUTH_FILE: '/run/basic' },
    expected: { auth: { kind: 'basic', username: 'metacontroller', password: 'hunter2' } },
  },
  { name: 'TLS', env: { TLS_CERT_FILE: '/tls/crt', TLS_KEY_FILE: '/tls/key' }, expected: { tls: { cert: 'CERT', key: 'KEY' } } },
  {
    name: 'TLS with client CA',
    env: { TLS_CERT_FILE: '/tls/crt', TLS_KEY_FILE: '/tls/key', TLS_CLIENT_CA_FILE: '/tls/ca' },
    expected: { tls: { cert: 'CERT', key: 'KEY', clientCa: 'CA' } },
  },
  {
    name: 'conversion listener',
    env: { CONVERSION_TLS_PORT: '9443', CONVERSION_TLS_CERT_FILE: '/tls/crt', CONVERSION_TLS_KEY_FILE: '/tls/key' },
    expected: { conversion: { port: 9443, certFile: '/tls/crt', keyFile: '/tls/key', tls: { cert: 'CERT', key: 'KEY' } } },
  },
  {
    name: 'conversion listener on a free port next to HTTPS hooks',
    env: {
      PORT: '0',
      CONVERSION_TLS_PORT: '0',
      CONVERSION_TLS_CERT_FILE: '/tls/crt',
      CONVERSION_TLS_KEY_FILE: '/tls/key',
      TLS_CERT_FILE: '/tls/crt',
      TLS_KEY_FILE: '/tls/key',
    },
    expected: {
      port: 0,
      tls: { cert: 'CERT', key: 'KEY' },
      conversion: { port: 0, certFile: '/tls/crt', keyFile: '/tls/key', tls: { cert: 'CERT', key: 'KEY' } },
    },
  },
];

const bad: { name: string; env: Env; message: RegExp }[] = [
  { name: 'port not a number', env: { PORT: 'http' }, message: /^PORT must be an integer from 0 to 65535/ },
  { name: 'port too large', env: { PORT: '70000' }, message: /^PORT/ },
  { name: 'negative retries', env: { MAX_PROVISIONING_RETRIES: '-1' }, message: /^MAX_PROVISIONING_RETRIES/ },
  { name: 'zero monitor interval', env: { BMC_MONITOR_INTERVAL_SECONDS: '0' }, message: /^BMC_MONITOR_INTERVAL_SECONDS/ },
  { name: 'fractional interval', env: { BMC_MONITOR_INTERVAL_SECONDS: '1.5' }, message: /^BMC_MONITOR_INTERVAL_SECONDS/ },
  { name: 'body limit garbage', env: { HOOK_BODY_LIMIT: 'lots' }, message: /^HOOK_BODY_LIMIT/ },
  { name: 'unknown log level', env: { LOG_LEVEL: 'verbose' }, message: /^LOG_LEVEL must be one of/ },
  {
    name: 'out-of-service taint mode not a boolean',
    env: { REMEDIATION_OUT_OF_SERVICE_TAINT: 'yes' },
    message: /^REMEDIATION_OUT_OF_SERVICE_TAINT must be true or false/,
  },
  { name: 'both auth kinds', env: { HOOK_BEARER_TOKEN_FILE: '/run/token', HOOK_BASIC_AUTH_FILE: '/run/basic' }, message: /not both/ },
  { name: 'missing token file', env: { HOOK_BEARER_TOKEN_FILE: '/run/nope' }, message: /cannot read HOOK_BEARER_TOKEN_FILE \(\/run\/nope\): ENOENT/ },
  { name: 'empty token file', env: { HOOK_BEARER_TOKEN_FILE: '/run/empty' }, message: /HOOK_BEARER_TOKEN_FILE: the bearer token file is empty/ },
  { name: 'basic file without colon', env: { HOOK_BASIC_AUTH_FILE: '/run/bad-basic' }, message: /HOOK_BASIC_AUTH_FILE: the basic auth file must contain/ },
  { name: 'cert without key', env: { TLS_CERT_FILE: '/tls/crt' }, message: /both TLS_CERT_FILE and TLS_KEY_FILE/ },
  {
    name: 'conversion port without certificate',
    env: { CONVERSION_TLS_PORT: '9443' },
    message: /CONVERSION_TLS_PORT needs CONVERSION_TLS_CERT_FILE and CONVERSION_TLS_KEY_FILE/,
  },
  { name: 'conversion key without port', env: { CONVERSION_TLS_KEY_FILE: '/tls/key' }, message: /need CONVERSION_TLS_PORT/ },
  {
    name: 'conversion port equal to the hook port',
    env: { PORT: '8443', CONVERSION_TLS_PORT: '8443', CONVERSION_TLS_CERT_FILE: '/tls/crt', CONVERSION_TLS_KEY_FILE: '/tls/key' },
    message: /CONVERSION_TLS_PORT must differ from PORT/,
  },
  {
    name: 'conversion port out of range',
    env: { CONVERSION_TLS_PORT: '65536', CONVERSION_TLS_CERT_FILE: '/tls/crt', CONVERSION_TLS_KEY_FILE: '/tls/key' },
    message: /^CONVERSION_TLS_PORT must be an integer/,
  },
  {
    name: 'missing conversion certificate file',
    env: { CONVERSION_TLS_PORT: '9443', CONVERSION_TLS_CERT_FILE: '/tls/nope', CONVERSION_TLS_KEY_FILE: '/tls/key' },
    message: /cannot read CONVERSION_TLS_CERT_FILE \(\/tls\/nope\): ENOENT/,
  },
  { name: 'client CA without TLS', env: { TLS_CLIENT_CA_FILE: '/tls/ca' }, message: /TLS_CLIENT_CA_FILE needs/ },
];

describe('loadSettings', () => {
  it.each(good)('$name', ({ env, expected }) => {
    expect(loadSettings(env, read)).toEqual({ ...defaults, ...expected });
  });

  it.each(bad)('$name is refused', ({ env, message }) => {
    expect(() => loadSettings(env, read)).toThrow(message);
  });

  it('errors never quote a secret file', () => {
    let message = '';
    try {
      loadSettings({ HOOK_BASIC_AUTH_FILE: '/run/bad-basic' }, read);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toContain('no-colon-secret-value');
  });
});
