// Stand-in configuration: flags like upstream's, Go durations, hook URLs and timeouts,
// endpoint settings (endpointConfigs by host, hook settings replacing them), credentials from
// Secret references, discovery indexing, and Secret redaction in logs.
import { describe, expect, it } from 'vitest';
import { parseAddress, parseDuration, parseFlags, parseLevel } from '../support/metacontroller/flags.js';
import { endpointSettings, hookTimeoutMs, hookURL, resolveEndpoint } from '../support/metacontroller/hooks/endpoint.js';
import type { RefReader } from '../support/metacontroller/hooks/endpoint.js';
import { indexResourceList, resourcePath } from '../support/metacontroller/kube/discovery.js';
import { redact } from '../support/metacontroller/log.js';
import type { Hook } from '../support/metacontroller/core/types.js';

describe('parseDuration', () => {
  it.each([
    ['10s', 10_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['-2s', -2000],
    ['500us', 0.5],
  ])('%s -> %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '10', 's', '10x', '1m 30s'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow('time: invalid duration');
  });
});

describe('parseFlags', () => {
  it('has upstream defaults', () => {
    expect(parseFlags([])).toEqual({
      discoveryIntervalMs: 30_000,
      cacheFlushIntervalMs: 1_800_000,
      workers: 5,
      healthProbeBindAddress: ':8081',
      metricsAddress: ':9999',
      verbosity: 0,
      targetLabelSelector: '',
    });
  });

  it('reads both flag forms', () => {
    const options = parseFlags(['--kubeconfig', '/k', '--discovery-interval=2s', '-workers=3', '--zap-log-level=6', '--metrics-address=0', '--apply-strategy=dynamic-apply']);
    expect(options).toMatchObject({ kubeconfig: '/k', discoveryIntervalMs: 2000, workers: 3, verbosity: 6, metricsAddress: '0' });
  });

  it.each([
    [['--leader-election'], /unsupported flag/u],
    [['--workers=0'], /positive integer/u],
    [['--apply-strategy=server-side-apply'], /only dynamic-apply/u],
    [['--kubeconfig'], /needs a value/u],
  ])('refuses %j', (argv, error) => {
    expect(() => parseFlags(argv)).toThrow(error);
  });

  it.each([
    ['info', 0],
    ['debug', 1],
    ['4', 4],
  ])('log level %s -> %d', (text, level) => {
    expect(parseLevel(text)).toBe(level);
  });

  it.each([
    ['0', undefined],
    [':8081', { host: '', port: 8081 }],
    ['127.0.0.1:9', { host: '127.0.0.1', port: 9 }],
  ])('address %j', (text, expected) => {
    expect(parseAddress(text)).toEqual(expected);
  });
});

describe('hook endpoints', () => {
  it.each<[Hook, string]>([
    [{ webhook: { url: 'http://h/sync', service: { name: 'x', namespace: 'y' }, path: '/ignored' } }, 'http://h/sync'],
    [{ webhook: { service: { name: 'hooks', namespace: 'sys' }, path: '/sync' } }, 'http://hooks.sys:80/sync'],
    [{ webhook: { service: { name: 'hooks', namespace: 'sys', port: 8443, protocol: 'https' }, path: '/s' } }, 'https://hooks.sys:8443/s'],
  ])('URL of %j', (hook, url) => {
    expect(hookURL(hook, 'sync')).toBe(url);
  });

  it('needs a webhook with url or service and path', () => {
    expect(() => hookURL({}, 'sync')).toThrow('sync hook has no webhook');
    expect(() => hookURL({ webhook: { service: { name: 'a', namespace: 'b' } } }, 'sync')).toThrow('url, or service and path');
  });

  it.each([
    [undefined, 10_000],
    ['', 10_000],
    ['0s', 10_000],
    ['-1s', 10_000],
    ['1m30s', 90_000],
    ['500ms', 500],
  ])('timeout %j -> %d ms', (timeout, ms) => {
    expect(hookTimeoutMs(timeout)).toBe(ms);
  });

  const configs = [
    { host: 'hooks.sys', caBundle: { inline: 'from-config' } },
    { host: 'HOOKS.sys:8443', caBundle: { inline: 'from-config-8443' } },
  ];

  it.each<[Hook, string, string | undefined]>([
    [{ webhook: { url: 'http://hooks.sys/sync' } }, 'by host, default port', 'from-config'],
    [{ webhook: { url: 'http://hooks.sys:80/sync' } }, 'explicit default port', 'from-config'],
    [{ webhook: { url: 'https://hooks.sys:8443/sync' } }, 'case-insensitive, other port', 'from-config-8443'],
    [{ webhook: { url: 'http://other/sync' } }, 'no entry', undefined],
    [{ webhook: { url: 'http://hooks.sys/sync', authorization: { secretRef: { name: 'a', namespace: 'b' } } } }, 'hook settings replace the entry wholesale', undefined],
  ])('endpointConfigs: %s', (hook, _what, ca) => {
    expect(endpointSettings(hook, hookURL(hook, 'sync'), configs).caBundle?.inline).toBe(ca);
  });

  const secrets: Record<string, Record<string, string>> = { 'sys/token': { token: ' s3cr3t\n' }, 'sys/basic': { username: 'u', password: 'p' }, 'sys/ca': { 'ca.crt': 'PEM' } };
  const read: RefReader = (_kind, namespace, name) => Promise.resolve(secrets[`${namespace}/${name}`] ?? {});

  it('resolves bearer auth, caBundle refs, and strict decoding for v2', async () => {
    const hook: Hook = { version: 'v2', webhook: { url: 'https://h/s', timeout: '3s', authorization: { secretRef: { name: 'token', namespace: 'sys' } }, caBundle: { secretRef: { name: 'ca', namespace: 'sys' } } } };
    expect(await resolveEndpoint(hook, 'sync', undefined, read)).toEqual({
      url: 'https://h/s',
      timeoutMs: 3000,
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cr3t' },
      tls: { ca: 'PEM' },
      strict: true,
      version: 'v2',
    });
  });

  it('resolves basic auth and loose decoding for v1 unless asked', async () => {
    const hook: Hook = { webhook: { url: 'http://h/s', basicAuth: { secretRef: { name: 'basic', namespace: 'sys' } } } };
    const endpoint = await resolveEndpoint(hook, 'sync', undefined, read);
    expect(endpoint).toMatchObject({ headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }, strict: false, version: 'v1' });
    const strict = await resolveEndpoint({ webhook: { url: 'http://h/s', responseUnMarshallMode: 'strict' } }, 'sync', undefined, read);
    expect(strict.strict).toBe(true);
  });

  it.each<[Hook, RegExp]>([
    [{ webhook: { url: 'http://h', authorization: { type: 'Basic', secretRef: { name: 'token', namespace: 'sys' } } } }, /type Basic is not allowed/u],
    [{ webhook: { url: 'http://h', authorization: { secretRef: { name: 'token', namespace: 'sys' } }, basicAuth: { secretRef: { name: 'basic', namespace: 'sys' } } } }, /mutually exclusive/u],
    [{ webhook: { url: 'http://h', caBundle: { secretRef: { name: 'token', namespace: 'sys' } } } }, /key "ca.crt" not found in Secret sys\/token/u],
  ])('refuses %j', async (hook, error) => {
    await expect(resolveEndpoint(hook, 'sync', undefined, read)).rejects.toThrow(error);
  });
});

describe('discovery', () => {
  it('indexes resources, scope and the status subresource', () => {
    const list = {
      groupVersion: 'metal3.io/v1alpha1',
      resources: [
        { name: 'baremetalhosts', kind: 'BareMetalHost', namespaced: true },
        { name: 'baremetalhosts/status', kind: 'BareMetalHost', namespaced: true },
        { name: 'hardwaredata', kind: 'HardwareData', namespaced: true },
      ],
    };
    expect(indexResourceList(list)).toEqual([
      { apiVersion: 'metal3.io/v1alpha1', group: 'metal3.io', version: 'v1alpha1', resource: 'baremetalhosts', kind: 'BareMetalHost', namespaced: true, hasStatus: true },
      { apiVersion: 'metal3.io/v1alpha1', group: 'metal3.io', version: 'v1alpha1', resource: 'hardwaredata', kind: 'HardwareData', namespaced: true, hasStatus: false },
    ]);
  });

  it.each([
    [{ apiVersion: 'v1', resource: 'configmaps', namespaced: true }, ['ns', 'a'], '/api/v1/namespaces/ns/configmaps/a'],
    [{ apiVersion: 'v1', resource: 'configmaps', namespaced: true }, [], '/api/v1/configmaps'],
    [{ apiVersion: 'v1', resource: 'namespaces', namespaced: false }, ['ignored', 'x'], '/api/v1/namespaces/x'],
    [{ apiVersion: 'metal3.io/v1alpha1', resource: 'baremetalhosts', namespaced: true }, ['m', 'h', 'status'], '/apis/metal3.io/v1alpha1/namespaces/m/baremetalhosts/h/status'],
  ])('path of %j %j', (info, args, path) => {
    expect(resourcePath(info, ...(args as [string?, string?, string?]))).toBe(path);
  });
});

describe('redact', () => {
  it('hides the values of Secrets anywhere in a hook body, nothing else', () => {
    const body = {
      parent: { apiVersion: 'v1', kind: 'ConfigMap', data: { visible: 'yes' } },
      related: { 'Secret.v1': { 'ns/s': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: 'c2VjcmV0' }, stringData: { token: 't' } } } },
    };
    expect(redact(body)).toEqual({
      parent: { apiVersion: 'v1', kind: 'ConfigMap', data: { visible: 'yes' } },
      related: { 'Secret.v1': { 'ns/s': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: '<redacted>' }, stringData: { token: '<redacted>' } } } },
    });
  });
});
