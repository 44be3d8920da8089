// `ironhook bmc` on the real drivers against real peers on loopback: Ironhook's Redfish
// emulator (HTTP and HTTPS), sushy-tools (when installed) and OpenIPMI ipmi_sim. check gives a
// clear verdict for a usable BMC, a wrong password, an unreachable address (a closed 127.0.0.1
// port) and an unknown scheme; power and boot land in the peer's own state; the password never
// shows up in the output. One run goes through bin/ironhook.js, as `npx ironhook` does.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../drivers/cli/main.js';
import { runCLI } from '../../drivers/cli/run.js';
import { IPMISimulator } from '../../emulators/ipmi/simulator.js';
import { startRedfishEmulator, type RedfishEmulator } from '../../emulators/redfish/index.js';
import { startSushy, SUSHY_PEER, type RunningSushy } from '../support/sushy.js';
import { missingPeer } from '../support/peers.js';

const PASSWORD = 'cli-canary-Pa55w0rd';
const LOOPBACK = '127.0.0.0/8';

let plain: RedfishEmulator;
let tls: RedfishEmulator;
let sim: IPMISimulator;
let dir = '';
let closedPort = 0;

async function freeTCPPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return typeof address === 'object' && address !== null ? address.port : 0;
}

interface Result {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<Result> {
  const out: string[] = [];
  const err: string[] = [];
  const deps = { ...defaultDeps(), out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
  deps.env = { ALLOWED_BMC_NETWORKS: LOOPBACK, BMC_USERNAME: 'admin', BMC_PASSWORD: PASSWORD, ...env };
  const code = await runCLI(argv, deps);
  const result = { code, out: out.join('\n'), err: err.join('\n') };
  expect(`${result.out}\n${result.err}`).not.toContain(PASSWORD);
  return result;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ironhook-cli-'));
  const system = { username: 'admin', password: PASSWORD, macs: ['52:54:00:cc:00:01'], memoryGiB: 32 };
  plain = await startRedfishEmulator({
    http: true,
    systems: [
      { id: 'host-0', ...system },
      { id: 'no-vmedia', ...system, virtualMedia: false },
    ],
  });
  tls = await startRedfishEmulator({ systems: [{ id: 'host-0', ...system }] });
  await writeFile(join(dir, 'ca.pem'), tls.ca ?? '');
  await writeFile(join(dir, 'creds'), `admin\n${PASSWORD}\n`, { mode: 0o600 });
  sim = await IPMISimulator.start({ credentials: { username: 'admin', password: PASSWORD } });
  closedPort = await freeTCPPort();
}, 120_000);

afterAll(async () => {
  await plain.stop();
  await tls.stop();
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('check against Ironhook’s Redfish emulator', () => {
  it.each([
    { name: 'usable', address: () => plain.address('host-0', 'redfish-virtualmedia'), env: {}, code: 0, message: /✓ usable/ },
    {
      name: 'wrong password',
      address: () => plain.address('host-0', 'redfish'),
      env: { BMC_PASSWORD: 'not-the-password' },
      code: 6,
      message: /✗ credentials rejected: .* refused user "admin"/,
    },
    {
      name: 'unreachable (closed port)',
      address: () => `redfish+http://127.0.0.1:${String(closedPort)}/redfish/v1/Systems/host-0`,
      env: {},
      code: 5,
      message: /✗ unreachable: no answer .*ECONNREFUSED/,
    },
    {
      name: 'unknown scheme',
      address: () => `redfish-foo://127.0.0.1:${String(closedPort)}/redfish/v1/Systems/host-0`,
      env: {},
      code: 3,
      message: /✗ unknown BMC scheme: Unknown BMC type 'redfish-foo'/,
    },
    {
      name: 'missing virtual media for a virtual-media scheme',
      address: () => plain.address('no-vmedia', 'redfish-virtualmedia'),
      env: {},
      code: 7,
      message: /✗ missing capability: .*VirtualMedia/,
    },
    {
      name: 'outside the allowed networks',
      address: () => plain.address('host-0', 'redfish'),
      env: { ALLOWED_BMC_NETWORKS: '10.0.0.0/8' },
      code: 4,
      message: /✗ not allowed: .*outside the networks/,
    },
  ])('$name → exit $code', async (row) => {
    const result = await cli(['bmc', 'check', row.address()], row.env);
    expect(result.code).toBe(row.code);
    expect(row.code === 0 ? result.out : result.err).toMatch(row.message);
  });

  it('HTTPS: refused without trust, usable with --ca-file or --insecure', async () => {
    const address = tls.address('host-0', 'redfish');
    const untrusted = await cli(['bmc', 'check', address]);
    expect(untrusted.code).toBe(5);
    expect(untrusted.err).toMatch(/TLS verification failed[\s\S]*--ca-file/);
    expect((await cli(['bmc', 'check', address, '--ca-file', join(dir, 'ca.pem')])).code).toBe(0);
    expect((await cli(['bmc', 'check', address, '--insecure'])).code).toBe(0);
  });

  it('power, boot and inventory land in the emulator', async () => {
    const address = plain.address('host-0', 'redfish');
    const system = plain.system('host-0');
    expect((await cli(['bmc', 'power', 'on', address, '--credentials-file', join(dir, 'creds')])).out).toMatch(/reports power on/);
    expect(system.powerState).toBe('On');
    expect((await cli(['bmc', 'power', 'status', address])).out).toBe('on');
    expect((await cli(['bmc', 'boot', address, '--device', 'pxe'])).code).toBe(0);
    expect(system.boot).toMatchObject({ target: 'Pxe', enabled: 'Once', mode: 'UEFI' });
    expect((await cli(['bmc', 'power', 'off', address])).code).toBe(0);
    expect(system.powerState).toBe('Off');
    const inventory = await cli(['bmc', 'inventory', address]);
    const hardware = JSON.parse(inventory.out) as { nics: { mac: string }[]; ramMebibytes: number };
    expect(hardware.nics.map((nic) => nic.mac)).toContain('52:54:00:cc:00:01');
    expect(hardware.ramMebibytes).toBe(32 * 1024);
  });
});

describe('check against ipmi_sim', () => {
  it.each([
    { name: 'usable', address: () => sim.address, env: {}, code: 0, message: /✓ usable: the ipmi BMC at 127\.0\.0\.1:\d+ answered/ },
    { name: 'wrong password', address: () => sim.address, env: { BMC_PASSWORD: 'wrong-password' }, code: 6, message: /✗ credentials rejected/ },
    { name: 'unknown scheme', address: () => sim.address.replace('ipmi://', 'ipmi2://'), env: {}, code: 3, message: /✗ unknown BMC scheme/ },
  ])('$name → exit $code', async (row) => {
    const result = await cli(['bmc', 'check', row.address()], row.env);
    expect(result.code).toBe(row.code);
    expect(row.code === 0 ? result.out : result.err).toMatch(row.message);
  });

  it('unreachable (nothing listens on the UDP port) → exit 5', async () => {
    const result = await cli(['bmc', 'check', `ipmi://127.0.0.1:${String(closedPort)}`, '--timeout', '20']);
    expect(result.code).toBe(5);
    expect(result.err).toMatch(/✗ unreachable: [\s\S]*UDP port/);
  });

  it('power on lands in the simulator’s own state', async () => {
    expect((await cli(['bmc', 'power', 'on', sim.address])).code).toBe(0);
    expect((await sim.state()).power).toBe('on');
    expect((await cli(['bmc', 'boot', sim.address, '--device', 'pxe', '--mode', 'legacy'])).code).toBe(0);
    expect((await sim.state()).bootDevice).toBe('pxe');
  });
});

describe.skipIf(missingPeer(SUSHY_PEER))('check against sushy-tools', () => {
  let sushy: RunningSushy;
  beforeAll(async () => {
    sushy = await startSushy({
      username: 'admin',
      password: PASSWORD,
      tls: false,
      systems: [{ uuid: '27946b59-9e44-4fa7-8e91-f3527a1ef094', name: 'node-0', powerState: 'Off', nics: [{ mac: '00:5c:52:31:3a:9c', ip: '127.0.0.1' }] }],
    });
  }, 120_000);
  afterAll(async () => {
    await sushy.stop();
  });

  it.each([
    { name: 'usable', env: {}, code: 0 },
    { name: 'wrong password', env: { BMC_PASSWORD: 'nope-nope' }, code: 6 },
  ])('$name → exit $code', async (row) => {
    const result = await cli(['bmc', 'check', sushy.address('27946b59-9e44-4fa7-8e91-f3527a1ef094', 'redfish')], row.env);
    expect(result.code).toBe(row.code);
  });
});

describe('bin/ironhook.js (npx ironhook)', () => {
  function run(argv: string[], env: Record<string, string>): Promise<Result> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['bin/ironhook.js', ...argv],
        { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, out: stdout, err: stderr });
        },
      );
    });
  }

  it('check a usable BMC → exit 0; a wrong password → exit 6; never the password in the output', async () => {
    const address = plain.address('host-0', 'redfish');
    const env = { ALLOWED_BMC_NETWORKS: LOOPBACK, BMC_USERNAME: 'admin' };
    const ok = await run(['bmc', 'check', address], { ...env, BMC_PASSWORD: PASSWORD });
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/✓ usable/);
    const wrong = await run(['bmc', 'check', address], { ...env, BMC_PASSWORD: `${PASSWORD}-wrong` });
    expect(wrong.code).toBe(6);
    expect(`${ok.out}${ok.err}${wrong.out}${wrong.err}`).not.toContain(PASSWORD);
  });

  it('--help → exit 0 with the usage', async () => {
    const help = await run(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Usage: ironhook bmc <command>/);
  });
});
