// `ironhook bmc` end to end against a fake driver, guard, files and Secrets: the verdicts and
// exit codes of check, power/boot/inventory, and a canary password that never reaches output.
import { describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import type { BMCCheck, BMCConnectionOptions, BMCDriver, BootOptions, PowerAction, PowerState } from '../../drivers/bmc/types.js';
import { runCLI } from '../../drivers/cli/run.js';
import type { CLIDeps, HostGuard } from '../../drivers/cli/run.js';
import type { ImageFetch, ImageResponse } from '../../drivers/cli/image-check.js';

const CANARY = 'canary-Pa55w0rd-9d1e';
const REDFISH = 'redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/host-0';
const IPMI = 'ipmi://127.0.0.1:6230';
const IMAGE = 'http://127.0.0.1:18080/images/os.qcow2';
const QCOW2 = new Uint8Array([0x51, 0x46, 0x49, 0xfb, 0, 0, 0, 3]);
const b64 = (text: string): string => Buffer.from(text).toString('base64');

class FakeDriver implements BMCDriver {
  readonly family = 'redfish' as const;
  actions: PowerAction[] = [];
  boots: BootOptions[] = [];
  closed = false;
  power: PowerState = 'off';
  /** getPower answers the old state this many more times after setPower. */
  settleAfter = 1;
  constructor(
    readonly options: BMCConnectionOptions,
    private readonly checkResult: BMCCheck | Error,
    private readonly failWith?: Error,
  ) {}
  getSecureBoot(): Promise<boolean | undefined> {
    return Promise.resolve(undefined);
  }
  setSecureBoot(): Promise<boolean> {
    return Promise.reject(new Error('not used by the CLI'));
  }
  check(): Promise<BMCCheck> {
    return this.checkResult instanceof Error ? Promise.reject(this.checkResult) : Promise.resolve(this.checkResult);
  }
  getPower(): Promise<PowerState> {
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    if (this.pending !== undefined && this.settleAfter-- <= 0) this.power = this.pending;
    return Promise.resolve(this.power);
  }
  private pending: PowerState | undefined;
  setPower(action: PowerAction): Promise<void> {
    this.actions.push(action);
    this.pending = action === 'off' || action === 'soft-off' ? 'off' : 'on';
    return Promise.resolve();
  }
  setBootDevice(options: BootOptions): Promise<void> {
    this.boots.push(options);
    return Promise.resolve();
  }
  insertVirtualMedia(): Promise<void> {
    return Promise.resolve();
  }
  ejectVirtualMedia(): Promise<void> {
    return Promise.resolve();
  }
  getVirtualMedia(): Promise<{ inserted: boolean }> {
    return Promise.resolve({ inserted: false });
  }
  inventory(): Promise<{ ramMebibytes: number }> {
    return this.failWith === undefined ? Promise.resolve({ ramMebibytes: 65536 }) : Promise.reject(this.failWith);
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

const USABLE: BMCCheck = {
  reachable: true,
  authenticated: true,
  powerState: 'on',
  identity: { manufacturer: 'Dell Inc.', model: 'PowerEdge R650' },
  missing: [],
};

interface Options {
  check?: BMCCheck | Error;
  failWith?: Error;
  env?: Record<string, string | undefined>;
  files?: Record<string, string>;
  secrets?: Record<string, Record<string, string> | Error>;
  guard?: (host: string) => Promise<string[]>;
  power?: PowerState;
  settleAfter?: number;
  /** What the image server answers, per URL (every method); an Error is a failed connection. */
  image?: Record<string, ImageResponse | Error>;
}

function fakeImageFetch(answers: Options['image'] = {}): ImageFetch {
  return (url) => {
    const answer = answers[url] ?? { status: 404, url, headers: {} };
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
}

async function run(argv: string[], options: Options = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const drivers: FakeDriver[] = [];
  const guards: string[] = [];
  let now = 0;
  const deps: CLIDeps = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: options.env ?? { ALLOWED_BMC_NETWORKS: '127.0.0.0/8', BMC_USERNAME: 'admin', BMC_PASSWORD: CANARY },
    readFile: (path) =>
      options.files?.[path] === undefined ? Promise.reject(Object.assign(new Error('nope'), { code: 'ENOENT' })) : Promise.resolve(options.files[path]),
    readSecret: (namespace, name) => {
      const found = options.secrets?.[`${namespace}/${name}`];
      return found instanceof Error ? Promise.reject(found) : Promise.resolve(found);
    },
    createDriver: (connection) => {
      const driver = new FakeDriver(connection, options.check ?? USABLE, options.failWith);
      driver.power = options.power ?? 'off';
      driver.settleAfter = options.settleAfter ?? 1;
      drivers.push(driver);
      return driver;
    },
    createGuard: (text): HostGuard => {
      if (text.includes('bogus')) throw new Error('invalid network "bogus"');
      guards.push(text);
      return { checkHost: options.guard ?? ((host) => Promise.resolve([host])) };
    },
    createImageFetch: () => ({ fetch: fakeImageFetch(options.image), close: () => Promise.resolve() }),
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    now: () => now,
  };
  const code = await runCLI(argv, deps);
  return { code, out: out.join('\n'), err: err.join('\n'), drivers, guards, all: [...out, ...err].join('\n') };
}

const notAllowed = Object.assign(new Error('BMC 10.0.0.5 is outside the networks the driver pool may contact (127.0.0.0/8)'), {
  reason: 'AddressNotAllowed',
  kind: 'Permanent',
});

describe('check verdicts', () => {
  interface Row {
    name: string;
    argv: string[];
    options?: Options;
    code: number;
    stream: 'out' | 'err';
    message: RegExp;
    driver: boolean;
  }
  const rows: Row[] = [
    { name: 'usable', argv: ['bmc', 'check', REDFISH], code: 0, stream: 'out', message: /✓ usable: .*power on/, driver: true },
    {
      name: 'unreachable (Redfish, with the problem)',
      argv: ['bmc', 'check', REDFISH],
      options: {
        check: {
          reachable: false,
          authenticated: false,
          identity: {},
          missing: [],
          problem: { kind: 'Transient', reason: 'BMCUnreachable', message: 'GET /redfish/v1/: ECONNREFUSED' },
        } as BMCCheck,
      },
      code: 5,
      stream: 'err',
      message: /✗ unreachable: no answer from the redfish-virtualmedia\+http BMC at 127\.0\.0\.1:8000: GET \/redfish\/v1\/: ECONNREFUSED/,
      driver: true,
    },
    {
      name: 'unreachable (IPMI)',
      argv: ['bmc', 'check', IPMI],
      options: { check: { reachable: false, authenticated: false, identity: {}, missing: [] } },
      code: 5,
      stream: 'err',
      message: /UDP port 6230/,
      driver: true,
    },
    {
      name: 'TLS verification failed',
      argv: ['bmc', 'check', REDFISH],
      options: {
        check: {
          reachable: false,
          authenticated: false,
          identity: {},
          missing: [],
          problem: { kind: 'Permanent', reason: 'TLSVerificationFailed', message: 'self-signed certificate' },
        } as BMCCheck,
      },
      code: 5,
      stream: 'err',
      message: /TLS verification failed[\s\S]*--ca-file[\s\S]*--insecure/,
      driver: true,
    },
    {
      name: 'wrong credentials',
      argv: ['bmc', 'check', IPMI],
      options: { check: { reachable: true, authenticated: false, identity: {}, missing: [] } },
      code: 6,
      stream: 'err',
      message: /✗ credentials rejected: .* refused user "admin"[\s\S]*privilege level/,
      driver: true,
    },
    {
      name: 'missing capability',
      argv: ['bmc', 'check', REDFISH],
      options: { check: { ...USABLE, missing: ['VirtualMedia'] } },
      code: 7,
      stream: 'err',
      message: /✗ missing capability: .*redfish-virtualmedia scheme needs: VirtualMedia/,
      driver: true,
    },
    {
      name: 'check throws',
      argv: ['bmc', 'check', REDFISH],
      options: { check: new BMCError('Transient', 'BMCServerError', 'GET /redfish/v1/Systems/host-0: HTTP 500') },
      code: 1,
      stream: 'err',
      message: /BMCServerError: GET/,
      driver: true,
    },
    {
      name: 'unknown scheme',
      argv: ['bmc', 'check', 'foo://127.0.0.1'],
      code: 3,
      stream: 'err',
      message: /✗ unknown BMC scheme: Unknown BMC type 'foo'[\s\S]*known schemes: .*redfish-virtualmedia/,
      driver: false,
    },
    { name: 'invalid address', argv: ['bmc', 'check', 'ipmi://[10.0.0.5]'], code: 3, stream: 'err', message: /✗ invalid BMC address/, driver: false },
    {
      name: 'no allowed networks configured: usable, but the pool would refuse it',
      argv: ['bmc', 'check', REDFISH],
      options: { env: { BMC_USERNAME: 'a', BMC_PASSWORD: CANARY } },
      code: 4,
      stream: 'err',
      message: /✗ not allowed: the BMC is usable from here, but the driver pool would refuse it: no allowed networks are configured/,
      driver: true,
    },
    {
      name: 'outside the allowed networks: usable, but the pool would refuse it',
      argv: ['bmc', 'check', 'ipmi://10.0.0.5'],
      options: { guard: () => Promise.reject(notAllowed) },
      code: 4,
      stream: 'err',
      message: /✗ not allowed: the BMC is usable from here, but the driver pool would refuse it: BMC 10\.0\.0\.5 is outside/,
      driver: true,
    },
    {
      name: 'refused credentials outside the allowed networks: the BMC verdict, and the pool as a hint',
      argv: ['bmc', 'check', 'ipmi://10.0.0.5'],
      options: { guard: () => Promise.reject(notAllowed), check: { reachable: true, authenticated: false, identity: {}, missing: [] } },
      code: 6,
      stream: 'err',
      message: /✗ credentials rejected[\s\S]*- pool: the driver pool would refuse it: BMC 10\.0\.0\.5 is outside/,
      driver: true,
    },
    {
      name: 'usable and inside the allowed networks: the pool would accept it',
      argv: ['bmc', 'check', REDFISH],
      code: 0,
      stream: 'out',
      message: /✓ usable[\s\S]*- pool: the driver pool would accept it: 127\.0\.0\.1 is inside 127\.0\.0\.0\/8/,
      driver: true,
    },
    {
      name: 'malformed network list',
      argv: ['bmc', 'check', REDFISH, '--allowed-networks', 'bogus'],
      code: 2,
      stream: 'err',
      message: /invalid network "bogus"/,
      driver: false,
    },
    {
      name: 'usable BMC, image reachable',
      argv: ['bmc', 'check', REDFISH, '--image', IMAGE],
      options: { image: { [IMAGE]: { status: 206, url: IMAGE, headers: { 'content-range': 'bytes 0-34815/2147483648' }, bytes: QCOW2 } } },
      code: 0,
      stream: 'out',
      message: /✓ usable[\s\S]*✓ image reachable: 2\.0 GiB, qcow2/,
      driver: true,
    },
    {
      name: 'usable BMC, image missing: the image decides',
      argv: ['bmc', 'check', REDFISH, '--image', IMAGE],
      code: 8,
      stream: 'err',
      message: /✗ image not available: HTTP 404/,
      driver: true,
    },
    {
      name: 'image only, no address and no credentials needed',
      argv: ['bmc', 'check', '--image', IMAGE],
      options: { env: {}, image: { [IMAGE]: new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }) } },
      code: 5,
      stream: 'err',
      message: /✗ image unreachable: .*ECONNREFUSED/,
      driver: false,
    },
    {
      name: 'image only, oci:// is not checked from here',
      argv: ['bmc', 'check', '--image', 'oci://registry.example/os:1'],
      options: { env: {} },
      code: 2,
      stream: 'err',
      message: /oci:\/\/ images are pulled from their registry by the agent/,
      driver: false,
    },
    {
      name: 'no credentials',
      argv: ['bmc', 'check', REDFISH],
      options: { env: { ALLOWED_BMC_NETWORKS: '127.0.0.1/32' } },
      code: 2,
      stream: 'err',
      message: /no credentials: pass --credentials-secret/,
      driver: false,
    },
  ];

  it.each(rows)('$name → exit $code', async (row) => {
    const result = await run(row.argv, row.options);
    expect(result.code).toBe(row.code);
    expect(row.stream === 'out' ? result.out : result.err).toMatch(row.message);
    expect(result.drivers.length > 0).toBe(row.driver);
    for (const driver of result.drivers) expect(driver.closed).toBe(true);
  });

  it('usable check prints the identity and the connection options reach the driver', async () => {
    const result = await run(['bmc', 'check', REDFISH, '--insecure', '--timeout', '7', '--ca-file', '/ca.pem'], { files: { '/ca.pem': 'PEM' } });
    expect(result.out).toContain('  manufacturer: Dell Inc.');
    expect(result.drivers[0]!.options).toMatchObject({
      credentials: { username: 'admin', password: CANARY },
      disableCertificateVerification: true,
      caBundle: 'PEM',
      timeoutMs: 7_000,
    });
    expect(result.drivers[0]!.options.address).toMatchObject({
      scheme: 'redfish-virtualmedia+http',
      host: '127.0.0.1',
      port: 8000,
      systemId: '/redfish/v1/Systems/host-0',
    });
  });

  it('--json prints one document with the verdict and the check', async () => {
    const result = await run(['bmc', 'check', IPMI, '--json'], { check: { reachable: true, authenticated: false, identity: {}, missing: [] } });
    expect(result.code).toBe(6);
    expect(JSON.parse(result.out)).toMatchObject({
      verdict: 'credentials',
      exitCode: 6,
      check: { reachable: true, authenticated: false },
      pool: { accepted: true },
    });
  });

  it('--json with --image carries both verdicts, the exit code of the first failure', async () => {
    const result = await run(['bmc', 'check', REDFISH, '--image', IMAGE, '--json']);
    expect(result.code).toBe(8);
    expect(JSON.parse(result.out)).toMatchObject({ verdict: 'usable', exitCode: 8, image: { verdict: 'image-unavailable', exitCode: 8 } });
  });

  it('--allowed-networks wins over ALLOWED_BMC_NETWORKS', async () => {
    const result = await run(['bmc', 'check', REDFISH, '--allowed-networks', '127.0.0.1/32']);
    expect(result.guards).toEqual(['127.0.0.1/32']);
  });
});

describe('a BMC named by a host name: the CLI contacts the addresses the guard checked (DNS rebinding)', () => {
  const rebindingGuard = (host: string) => (host === 'bmc.example.test' ? Promise.resolve(['127.0.0.1']) : Promise.reject(notAllowed));
  it.each([
    {
      name: 'HTTPS Redfish accepted: the name stays for TLS, the connection is pinned',
      argv: ['bmc', 'check', 'redfish://bmc.example.test/redfish/v1/Systems/1'],
      env: undefined,
      expected: { host: 'bmc.example.test', pinnedAddresses: ['127.0.0.1'] },
    },
    {
      name: 'IPMI accepted: the checked address replaces the name',
      argv: ['bmc', 'power', 'status', 'ipmi://bmc.example.test'],
      env: undefined,
      expected: { host: '127.0.0.1', pinnedAddresses: undefined },
    },
    {
      name: 'plain-HTTP Redfish accepted: same',
      argv: ['bmc', 'inventory', 'redfish+http://bmc.example.test/redfish/v1/Systems/1'],
      env: undefined,
      expected: { host: '127.0.0.1', pinnedAddresses: undefined },
    },
    {
      name: 'refused by the guard: contacted as typed (explicit intent), the verdict says the pool would refuse it',
      argv: ['bmc', 'check', 'redfish://other.example.test/redfish/v1/Systems/1'],
      env: undefined,
      expected: { host: 'other.example.test', pinnedAddresses: undefined },
    },
    {
      name: 'no allowed networks: contacted as typed',
      argv: ['bmc', 'check', 'redfish://bmc.example.test/redfish/v1/Systems/1'],
      env: { BMC_USERNAME: 'admin', BMC_PASSWORD: CANARY },
      expected: { host: 'bmc.example.test', pinnedAddresses: undefined },
    },
  ])('$name', async ({ argv, env, expected }) => {
    const result = await run(argv, { guard: rebindingGuard, ...(env === undefined ? {} : { env }) });
    const options = result.drivers[0]!.options;
    expect({ host: options.address.host, pinnedAddresses: options.pinnedAddresses }).toEqual(expected);
  });
});

describe('credential sources', () => {
  const env = { ALLOWED_BMC_NETWORKS: '127.0.0.0/8' };
  interface Row {
    name: string;
    argv: string[];
    options: Options;
    code: number;
    username?: string;
    message?: RegExp;
  }
  it.each<Row>([
    { name: 'file, two lines', argv: ['--credentials-file', '/c'], options: { env, files: { '/c': `root\n${CANARY}\n` } }, code: 0, username: 'root' },
    {
      name: 'file, YAML',
      argv: ['--credentials-file', '/c'],
      options: { env, files: { '/c': `username: ops\npassword: ${CANARY}\n` } },
      code: 0,
      username: 'ops',
    },
    { name: 'file missing', argv: ['--credentials-file', '/nope'], options: { env }, code: 2, message: /credentials file \/nope cannot be read \(ENOENT\)/ },
    { name: 'file malformed', argv: ['--credentials-file', '/c'], options: { env, files: { '/c': 'just-one-line' } }, code: 2, message: /two lines/ },
    {
      name: 'Secret',
      argv: ['--credentials-secret', 'metal3/host-0-bmc'],
      options: { env, secrets: { 'metal3/host-0-bmc': { username: b64('admin'), password: b64(CANARY) } } },
      code: 0,
      username: 'admin',
    },
    { name: 'Secret not found', argv: ['--credentials-secret', 'metal3/none'], options: { env }, code: 2, message: /Secret metal3\/none not found/ },
    {
      name: 'Secret without password',
      argv: ['--credentials-secret', 'metal3/s'],
      options: { env, secrets: { 'metal3/s': { username: b64('admin') } } },
      code: 2,
      message: /needs both "username" and "password"/,
    },
    {
      name: 'Secret forbidden',
      argv: ['--credentials-secret', 'metal3/s'],
      options: { env, secrets: { 'metal3/s': Object.assign(new Error('Forbidden'), { code: 403 }) } },
      code: 2,
      message: /forbidden/,
    },
    {
      name: 'flag beats environment',
      argv: ['--credentials-file', '/c'],
      options: { env: { ...env, BMC_USERNAME: 'envuser', BMC_PASSWORD: 'x' }, files: { '/c': `fileuser\n${CANARY}` } },
      code: 0,
      username: 'fileuser',
    },
  ])('$name', async (row) => {
    const result = await run(['bmc', 'check', REDFISH, ...row.argv], row.options);
    expect(result.code).toBe(row.code);
    if (row.username !== undefined) expect(result.drivers[0]!.options.credentials).toEqual({ username: row.username, password: CANARY });
    if (row.message !== undefined) expect(result.err).toMatch(row.message);
  });
});

describe('power, boot, inventory', () => {
  it.each([
    { name: 'status', argv: ['status'], power: 'on' as const, actions: [], out: /^on$/, code: 0 },
    { name: 'on waits until on', argv: ['on'], actions: ['on'], out: /power on: the BMC reports power on/, code: 0 },
    { name: 'off (hard)', argv: ['off'], power: 'on' as const, actions: ['off'], out: /power off: the BMC reports power off/, code: 0 },
    { name: 'off --soft', argv: ['off', '--soft'], power: 'on' as const, actions: ['soft-off'], out: /power soft-off: the BMC reports power off/, code: 0 },
    { name: 'reboot', argv: ['reboot'], power: 'on' as const, actions: ['reboot'], out: /power reboot: the BMC reports power on/, code: 0 },
    { name: 'reboot --soft', argv: ['reboot', '--soft'], power: 'on' as const, actions: ['soft-reboot'], out: /power soft-reboot/, code: 0 },
    { name: 'on --no-wait', argv: ['on', '--no-wait'], actions: ['on'], out: /accepted by the BMC/, code: 0 },
  ])('power $name', async (row) => {
    const result = await run(['bmc', 'power', row.argv[0]!, REDFISH, ...row.argv.slice(1)], { power: row.power ?? 'off' });
    expect(result.code).toBe(row.code);
    expect(result.out).toMatch(row.out);
    expect(result.drivers[0]!.actions).toEqual(row.actions);
  });

  it('power that never settles → exit 1 after --timeout (virtual clock)', async () => {
    const result = await run(['bmc', 'power', 'on', REDFISH, '--timeout', '5'], { settleAfter: 1_000 });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/power on: accepted; waiting up to 5 s for the BMC to report power on\n[\s\S]*did not report power on within 5 s/);
  });

  it('power status --json', async () => {
    const result = await run(['bmc', 'power', 'status', REDFISH, '--json'], { power: 'on' });
    expect(JSON.parse(result.out)).toEqual({ powerState: 'on' });
  });

  it('boot passes device, persistence and mode', async () => {
    const result = await run(['bmc', 'boot', REDFISH, '--device', 'cdrom', '--persistent', '--mode', 'legacy']);
    expect(result.code).toBe(0);
    expect(result.drivers[0]!.boots).toEqual([{ device: 'cdrom', persistent: true, mode: 'legacy' }]);
    expect(result.out).toBe('boot device set: cdrom (persistent, legacy)');
  });

  it('inventory prints status.hardware as JSON', async () => {
    const result = await run(['bmc', 'inventory', REDFISH]);
    expect(JSON.parse(result.out)).toEqual({ ramMebibytes: 65536 });
  });

  it.each([
    { name: 'credentials', error: new BMCError('Permanent', 'CredentialsInvalid', 'GET /redfish/v1/Systems/host-0: HTTP 401'), code: 6 },
    { name: 'unreachable', error: new BMCError('Transient', 'BMCUnreachable', 'ipmitool: timeout'), code: 5 },
    { name: 'unsupported', error: new BMCError('Permanent', 'Unsupported', 'no virtual media'), code: 7 },
    { name: 'anything else', error: new Error('boom'), code: 1 },
  ])('a failing call is classified: $name', async ({ error, code }) => {
    const result = await run(['bmc', 'inventory', REDFISH], { failWith: error });
    expect(result.code).toBe(code);
    expect(result.err).toContain(error.message);
    expect(result.drivers[0]!.closed).toBe(true);
  });
});

const LEAKY_CHECK: BMCCheck = {
  reachable: true,
  authenticated: false,
  identity: { note: CANARY },
  missing: [],
  problem: { kind: 'Permanent', reason: 'CredentialsInvalid', message: `bad ${CANARY}` },
};

describe('canary: the password never reaches stdout or stderr', () => {
  const leaky = new BMCError('Permanent', 'CredentialsInvalid', `login as admin:${CANARY} refused`);
  it.each([
    { name: 'check usable', argv: ['bmc', 'check', REDFISH], options: {} },
    {
      name: 'check credentials (problem echoes the password)',
      argv: ['bmc', 'check', REDFISH],
      options: {
        check: LEAKY_CHECK,
      },
    },
    { name: 'failing inventory whose error carries it', argv: ['bmc', 'inventory', REDFISH], options: { failWith: leaky } },
    { name: 'JSON check', argv: ['bmc', 'check', REDFISH, '--json'], options: { check: { ...USABLE, identity: { echo: CANARY } } } },
    { name: 'power', argv: ['bmc', 'power', 'on', REDFISH], options: {} },
  ])('$name', async ({ argv, options }) => {
    const result = await run(argv, options);
    expect(result.all).not.toContain(CANARY);
  });
});
