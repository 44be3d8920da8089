// The pool's pure parts: the network guard (and the connections pinned to what it checked),
// configuration parsing and error classification.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { pinnedLookup } from '../../drivers/pinned-lookup.js';
import { BMCError } from '../../drivers/bmc/types.js';
import { loadConfig } from '../../drivers/pool/config.js';
import { pinTo } from '../../drivers/pool/connect.js';
import { classify, OperationFailure, scrub, TimeoutFailure } from '../../drivers/pool/errors.js';
import { createNetworkGuard, parseNetworkList } from '../../drivers/pool/network-guard.js';
import { KubeStatusError } from '../../drivers/kube/errors.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

describe('network guard', () => {
  const guard = createNetworkGuard({ allowed: [...LOOPBACK, '192.0.2.0/24', 'fd00:1::/64'] });
  it.each([
    { ip: '127.0.0.1', allowed: true },
    { ip: '127.255.0.9', allowed: true },
    { ip: '::1', allowed: true },
    { ip: '::ffff:127.0.0.1', allowed: true },
    { ip: '192.0.2.77', allowed: true },
    { ip: 'fd00:1::abcd', allowed: true },
    { ip: '10.0.0.5', allowed: false },
    { ip: '192.168.1.1', allowed: false },
    { ip: 'fd00:2::1', allowed: false },
    { ip: '::ffff:10.0.0.5', allowed: false },
    { ip: 'not-an-ip', allowed: false },
  ])('$ip allowed: $allowed', ({ ip, allowed }) => {
    expect(guard.allows(ip)).toBe(allowed);
  });

  it('allows nothing when no networks are configured (the safe default), and says how to fix it', async () => {
    const none = createNetworkGuard({ allowed: [] });
    expect(none.allows('127.0.0.1')).toBe(false);
    await expect(none.checkHost('127.0.0.1', 'BMC address')).rejects.toThrow('none are configured; set ALLOWED_BMC_NETWORKS or --allowed-bmc-networks');
  });

  it('refuses cloud metadata addresses even inside an allowed range, unless listed exactly', () => {
    expect(createNetworkGuard({ allowed: ['0.0.0.0/0'] }).allows('169.254.169.254')).toBe(false);
    expect(createNetworkGuard({ allowed: ['169.254.169.254/32'] }).allows('169.254.169.254')).toBe(true);
  });

  it.each([
    { name: 'every resolved address inside', resolved: ['127.0.0.1', '::1'], error: undefined },
    { name: 'one resolved address outside', resolved: ['127.0.0.1', '10.0.0.1'], error: 'AddressNotAllowed' },
  ])('host names: $name', async ({ resolved, error }) => {
    const named = createNetworkGuard({ allowed: LOOPBACK, resolve: () => Promise.resolve(resolved) });
    const check = named.checkHost('bmc.local', 'BMC address');
    if (error === undefined) {
      await expect(check).resolves.toEqual(resolved);
    } else {
      await expect(check).rejects.toMatchObject({ kind: 'Permanent', reason: error });
    }
  });

  it('a name that does not resolve is Transient (DNS may come back)', async () => {
    const named = createNetworkGuard({ allowed: LOOPBACK, resolve: () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })) });
    await expect(named.checkHost('bmc.local', 'BMC address')).rejects.toMatchObject({ kind: 'Transient', reason: 'BMCUnreachable' });
  });

  it('checks URLs by their host and strips IPv6 brackets', async () => {
    await expect(guard.checkURL('http://[::1]:8080/x.iso', 'image URL')).resolves.toEqual(['::1']);
    await expect(guard.checkURL('http://10.1.1.1/x.iso', 'image URL')).rejects.toThrow('image URL 10.1.1.1 is outside');
    await expect(guard.checkURL('not a url', 'image URL')).rejects.toMatchObject({ reason: 'InvalidURL' });
  });

  it('rejects invalid CIDRs at configuration time', () => {
    expect(parseNetworkList(' 127.0.0.0/8 , ::1 ')).toEqual(['127.0.0.0/8', '::1']);
    expect(() => parseNetworkList('10.0.0.0/33')).toThrow('invalid network "10.0.0.0/33"');
  });
});

describe('connections pinned to the checked addresses (DNS rebinding, test/unit/bmc-rebinding.test.ts)', () => {
  function parsed(address: string): ReturnType<typeof pinTo>['address'] {
    const result = parseBMCAddress(address);
    if (result.kind !== 'parsed') throw new Error(`${address} does not parse`);
    return result.bmc;
  }

  it.each([
    { name: 'IPMI by name: the checked address replaces the name', address: 'ipmi://bmc.example.test:6230', host: '127.0.0.1', pinned: undefined },
    { name: 'plain-HTTP Redfish by name: same', address: 'redfish+http://bmc.example.test/redfish/v1/Systems/1', host: '127.0.0.1', pinned: undefined },
    {
      name: 'HTTPS Redfish by name: the name stays (SNI, certificate), the socket is pinned',
      address: 'redfish://bmc.example.test/redfish/v1/Systems/1',
      host: 'bmc.example.test',
      pinned: ['127.0.0.1', '::1'],
    },
    {
      name: 'HTTPS virtual media by name: same',
      address: 'redfish-virtualmedia+https://bmc.example.test/redfish/v1/Systems/1',
      host: 'bmc.example.test',
      pinned: ['127.0.0.1', '::1'],
    },
    { name: 'HTTPS by address: nothing to pin', address: 'redfish://127.0.0.1/redfish/v1/Systems/1', host: '127.0.0.1', pinned: undefined },
  ])('$name', ({ address, host, pinned }) => {
    const checked = address.includes('bmc.example.test') ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    const options = pinTo(parsed(address), checked);
    expect({ host: options.address.host, pinned: options.pinnedAddresses }).toEqual({ host, pinned });
  });

  const lookup = pinnedLookup((host) => (host === 'bmc.example.test' ? ['127.0.0.1', '::1'] : undefined));
  type Answer = { error?: string; answer?: string | LookupAddress[]; family?: number };
  function ask(host: string, options: { all?: boolean; family?: number }): Promise<Answer> {
    return new Promise((resolve) => {
      lookup(host, options, (error, answer, family) => {
        resolve(error === null ? { answer, ...(family === undefined ? {} : { family }) } : { error: `${String(error.code)}: ${error.message}` });
      });
    });
  }
  it.each([
    {
      name: 'all addresses (net with autoSelectFamily)',
      host: 'bmc.example.test',
      options: { all: true },
      expected: {
        answer: [
          { address: '127.0.0.1', family: 4 },
          { address: '::1', family: 6 },
        ],
      },
    },
    { name: 'one address', host: 'bmc.example.test', options: {}, expected: { answer: '127.0.0.1', family: 4 } },
    { name: 'only the family asked for', host: 'bmc.example.test', options: { family: 6 }, expected: { answer: '::1', family: 6 } },
    {
      name: 'a name the guard did not check: no address at all',
      host: 'other.example.test',
      options: { all: true },
      expected: { error: 'ENOTFOUND: other.example.test: no address checked by the network guard' },
    },
  ])('the pinned lookup: $name', async ({ host, options, expected }) => {
    await expect(ask(host, options)).resolves.toEqual(expected);
  });
});

describe('configuration', () => {
  it('defaults', () => {
    const config = loadConfig([], {});
    expect(config).toMatchObject({
      namespaces: [],
      allowedNetworks: [],
      deniedNetworks: ['169.254.169.254/32', 'fd00:ec2::254/128'],
      concurrency: 20,
      provisioningLimit: 20,
      bmcTimeoutMs: 30_000,
      powerSettleTimeoutMs: 60_000,
      softPowerOffTimeoutMs: 180_000,
      metricsPort: 9090,
      watchLivenessMs: 150_000,
    });
    expect(config.leaderElection).toMatchObject({ enabled: true, name: 'ironhook-driver-pool', namespace: 'default', leaseDurationMs: 15_000 });
  });

  it('reads the chart environment and lets flags win', () => {
    const env = {
      WATCH_NAMESPACE: 'a, b',
      ALLOWED_BMC_NETWORKS: '10.0.0.0/8',
      PROVISIONING_LIMIT: '5',
      PORT: '9191',
      LEADER_ELECTION_NAMESPACE: 'ironhook',
      POD_NAME: 'pool-0',
      POD_UID: '5b0c6d2e-0000-4000-8000-000000000001',
    };
    const config = loadConfig(['--allowed-bmc-networks=127.0.0.0/8,::1/128', '--namespace=c', '--leader-elect=false'], env);
    expect(config.namespaces).toEqual(['c']);
    expect(config.allowedNetworks).toEqual(LOOPBACK);
    expect(config.provisioningLimit).toBe(5);
    expect(config.metricsPort).toBe(9191);
    expect(config.leaderElection).toMatchObject({
      enabled: false,
      namespace: 'ironhook',
      identity: 'pool-0',
      pod: { name: 'pool-0', uid: '5b0c6d2e-0000-4000-8000-000000000001' },
    });
  });

  it.each([
    { name: 'non-integer PROVISIONING_LIMIT', env: { PROVISIONING_LIMIT: 'lots' }, error: 'PROVISIONING_LIMIT must be an integer >= 1' },
    { name: 'zero POOL_CONCURRENCY', env: { POOL_CONCURRENCY: '0' }, error: 'POOL_CONCURRENCY must be an integer >= 1' },
    {
      name: 'kernel without ramdisk',
      env: { DEPLOY_KERNEL_URL: 'http://127.0.0.1/k' },
      error: 'DEPLOY_KERNEL_URL and DEPLOY_RAMDISK_URL must be set together',
    },
    { name: 'bad CIDR', env: { ALLOWED_BMC_NETWORKS: '10.0.0.0/99' }, error: 'invalid network' },
    { name: 'bad URL', env: { DEPLOY_ISO_URL: 'no url' }, error: 'DEPLOY_ISO_URL must be a URL' },
  ])('refuses $name', ({ env, error }) => {
    expect(() => loadConfig([], env)).toThrow(error);
  });

  it('refuses unknown flags', () => {
    expect(() => loadConfig(['--no-such-flag'], {})).toThrow();
  });
});

describe('error classification', () => {
  it.each([
    {
      name: 'driver BMCError keeps its kind and reason',
      error: new BMCError('Permanent', 'CredentialsInvalid', 'bad'),
      kind: 'Permanent',
      reason: 'CredentialsInvalid',
    },
    { name: 'pool failure', error: new OperationFailure('Permanent', 'AddressNotAllowed', 'no'), kind: 'Permanent', reason: 'AddressNotAllowed' },
    { name: 'timeout', error: new TimeoutFailure('BMC call getPower', 30_000), kind: 'Transient', reason: 'Timeout' },
    {
      name: 'connection refused',
      error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      kind: 'Transient',
      reason: 'BMCUnreachable',
    },
    {
      name: 'undici connect timeout in the cause',
      error: new Error('fetch failed', { cause: { code: 'UND_ERR_CONNECT_TIMEOUT' } }),
      kind: 'Transient',
      reason: 'BMCUnreachable',
    },
    { name: 'apiserver error', error: new KubeStatusError(500, 'InternalError', 'etcd down'), kind: 'Transient', reason: 'KubernetesAPIError' },
    {
      name: 'classified error from elsewhere (agent side)',
      error: Object.assign(new Error('x'), { kind: 'Permanent', reason: 'ImageChecksumMismatch' }),
      kind: 'Permanent',
      reason: 'ImageChecksumMismatch',
    },
    {
      name: 'kind with a malformed reason is not trusted',
      error: Object.assign(new Error('x'), { kind: 'Permanent', reason: 'not camel' }),
      kind: 'Transient',
      reason: 'Unexpected',
    },
    { name: 'anything else', error: new TypeError('undefined is not a function'), kind: 'Transient', reason: 'Unexpected' },
  ])('$name → $kind $reason', ({ error, kind, reason }) => {
    expect(classify(error)).toMatchObject({ kind, reason });
  });

  it('scrubs secrets from messages and caps their length', () => {
    expect(scrub('login with s3cr3t-pw failed (s3cr3t-pw)', ['s3cr3t-pw'])).toBe('login with [REDACTED] failed ([REDACTED])');
    expect(scrub('x'.repeat(5000), []).length).toBe(1024);
    expect(classify(new Error('token abcd1234 rejected'), ['abcd1234']).message).toBe('token [REDACTED] rejected');
  });
});
