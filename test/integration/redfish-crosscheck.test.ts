// Ironhook's Redfish emulator cross-checked with real Redfish clients from Debian:
// - redfishtool (basic and session auth) against the emulator started as a program
//   (emulators/redfish/main.ts with a YAML config), over HTTPS on 127.0.0.1;
// - python3-sushy (the library Ironic uses) against the emulator in process, with the emulator's
//   certificate pinned: power, boot override, virtual media through managers[0], and secure boot.
// Passwords reach the clients through 0600 files or the environment, never argv.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';
import type { RedfishEmulator } from '../../emulators/redfish/index.js';
import { emulatedConnection } from '../../emulators/redfish/testing.js';
import { RedfishClient, createRedfishDriver } from '../../drivers/redfish/index.js';
import { freePort, startProcess, stopProcess, waitFor } from '../../devenv/processes.js';
import { missingPeer } from '../support/peers.js';

const run = promisify(execFile);
const PASSWORD = 'crosscheck-Pa55-word';
const REDFISHTOOL = '/usr/bin/redfishtool';
const PYTHON = '/usr/bin/python3';
const REDFISHTOOL_PEER = { name: 'redfishtool', present: existsSync(REDFISHTOOL), install: 'apt-get install redfishtool' };
const SUSHY_LIBRARY_PEER = {
  name: 'python3-sushy',
  present: existsSync('/usr/lib/python3/dist-packages/sushy/__init__.py'),
  install: 'apt-get install python3-sushy',
};

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ironhook-redfish-crosscheck-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(missingPeer(REDFISHTOOL_PEER))('redfishtool against the emulator program (main.ts)', () => {
  let pid = 0;
  let port = 0;
  let ca = '';
  const toolConfig = (): string => join(dir, 'redfishtool.json');

  beforeAll(async () => {
    const config = join(dir, 'hosts.yaml');
    await writeFile(
      config,
      [
        'systems:',
        '  - {id: host-0, username: admin, password: PLACEHOLDER, macs: ["52:54:00:00:00:01"]}',
        '  - {id: host-1, username: admin, password: PLACEHOLDER, personality: dell}',
        '',
      ]
        .join('\n')
        .replaceAll('PLACEHOLDER', PASSWORD),
      { mode: 0o600 },
    );
    await writeFile(toolConfig(), JSON.stringify({ user: 'admin', password: PASSWORD }), { mode: 0o600 });
    port = await freePort();
    const caFile = join(dir, 'ca.pem');
    const started = startProcess({
      name: 'redfish-emulator',
      command: join(process.cwd(), 'node_modules', '.bin', 'tsx'),
      args: ['emulators/redfish/main.ts', '--config', config, '--port', String(port), '--ca-out', caFile],
      logDir: dir,
    });
    pid = started.pid;
    await waitFor('the emulator program', async () => (await readFile(started.log, 'utf8')).includes('host-1\t'), 60_000, 200);
    ca = await readFile(caFile, 'utf8');
  }, 90_000);

  afterAll(async () => {
    await stopProcess(pid, 5_000);
  });

  async function redfishtool(auth: 'Basic' | 'Session', ...args: string[]): Promise<string> {
    const { stdout } = await run(REDFISHTOOL, ['-r', `127.0.0.1:${port}`, '-S', 'Always', '-c', toolConfig(), '-A', auth, '-T', '10', ...args], {
      timeout: 60_000,
    });
    return stdout;
  }

  function driver(id: string): ReturnType<typeof createRedfishDriver> {
    const parsed = parseBMCAddress(`redfish+https://127.0.0.1:${port}/redfish/v1/Systems/${id}`);
    if (parsed.kind !== 'parsed') {
      throw new Error('address');
    }
    return createRedfishDriver({
      address: parsed.bmc,
      credentials: { username: 'admin', password: PASSWORD },
      disableCertificateVerification: false,
      caBundle: ca,
      timeoutMs: 5_000,
    });
  }

  it.each(['Basic', 'Session'] as const)('Systems list with %s auth', async (auth) => {
    const listed = JSON.parse(await redfishtool(auth, 'Systems', 'list')) as { Members: { '@odata.id': string }[] };
    expect(listed.Members.map((member) => member['@odata.id'])).toEqual(['/redfish/v1/Systems/host-0', '/redfish/v1/Systems/host-1']);
  });

  it('Systems get (session) shows the configured MAC through EthernetInterfaces', async () => {
    const system = JSON.parse(await redfishtool('Session', 'Systems', '-I', 'host-0', 'get')) as Record<string, unknown>;
    expect(system).toMatchObject({ Id: 'host-0', PowerState: 'Off' });
    const nics = await redfishtool('Basic', 'Systems', '-I', 'host-0', 'EthernetInterfaces', '-a');
    expect(nics.toUpperCase()).toContain('52:54:00:00:00:01');
  });

  it('reset On (session) and setBootOverride Once Pxe (basic) change the emulator as our driver sees it', async () => {
    await redfishtool('Session', 'Systems', '-I', 'host-1', 'reset', 'On');
    await redfishtool('Basic', 'Systems', '-I', 'host-1', 'setBootOverride', 'Once', 'Pxe');
    const check = driver('host-1');
    expect(await check.getPower()).toBe('on');
    const client = new RedfishClient({
      origin: `https://127.0.0.1:${port}`,
      credentials: { username: 'admin', password: PASSWORD },
      timeoutMs: 5_000,
      insecure: false,
      caBundle: ca,
    });
    const system = await client.load('/redfish/v1/Systems/host-1');
    expect(system.resource.Boot).toMatchObject({ BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once' });
    await client.close();
    await check.close();
  });

  it('Managers get shows the Dell personality', async () => {
    const manager = JSON.parse(await redfishtool('Basic', 'Managers', '-I', 'host-1', 'get')) as Record<string, unknown>;
    expect(manager).toMatchObject({ Id: 'host-1', Model: '15G Monolithic', VirtualMedia: { '@odata.id': '/redfish/v1/Managers/host-1/VirtualMedia' } });
  });
});

const SUSHY_SCRIPT = `
import json, os, sushy
from sushy import auth as sushy_auth
env = os.environ
auth = sushy_auth.SessionOrBasicAuth(username=env['RF_USER'], password=env['RF_PASSWORD'])
root = sushy.Sushy(env['RF_URL'] + '/redfish/v1', auth=auth, verify=env['RF_CA'])
system = root.get_system('/redfish/v1/Systems/' + env['RF_SYSTEM'])
out = {'power_before': str(system.power_state), 'allowed': sorted(str(v) for v in system.get_allowed_reset_system_values())}
system.reset_system(sushy.RESET_ON)
system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE, enabled=sushy.BOOT_SOURCE_ENABLED_ONCE, mode=sushy.BOOT_SOURCE_MODE_UEFI)
system.refresh()
out['power_after'] = str(system.power_state)
out['boot'] = [str(system.boot.target), str(system.boot.enabled), str(system.boot.mode)]
out['macs'] = sorted(nic.mac_address.lower() for nic in system.ethernet_interfaces.get_members())
manager = system.managers[0]
cds = [m for m in manager.virtual_media.get_members() if any('cd' in str(t).lower() for t in m.media_types)]
cds[0].insert_media(env['RF_IMAGE'])
cds[0].refresh()
out['media'] = [cds[0].image, cds[0].inserted]
sb = system.secure_boot
out['secure_boot_before'] = [sb.enabled, str(sb.current_boot), str(sb.mode)]
sb.set_enabled(True)
sb.refresh()
out['secure_boot_after'] = sb.enabled
auth.close()
print(json.dumps(out))
`;

describe.skipIf(missingPeer(SUSHY_LIBRARY_PEER))('python3-sushy against the emulator', () => {
  let emulator: RedfishEmulator;

  beforeAll(async () => {
    emulator = await startRedfishEmulator({
      systems: [{ id: 'sushy-0', username: 'admin', password: PASSWORD, personality: 'dell', macs: ['52:54:00:00:00:0a', '52:54:00:00:00:0b'] }],
    });
    await writeFile(join(dir, 'emulator-ca.pem'), emulator.ca ?? '');
  });

  afterAll(async () => {
    await emulator.stop();
  });

  it('reset, boot override, NICs, virtual media and secure boot through sushy.Sushy with SessionOrBasicAuth and a pinned CA', async () => {
    const image = 'http://127.0.0.1:9/images/agent.iso';
    const env = {
      PATH: '/usr/bin:/bin',
      RF_URL: emulator.url,
      RF_USER: 'admin',
      RF_PASSWORD: PASSWORD,
      RF_CA: join(dir, 'emulator-ca.pem'),
      RF_SYSTEM: 'sushy-0',
      RF_IMAGE: image,
    };
    const { stdout } = await run(PYTHON, ['-c', SUSHY_SCRIPT], { env, timeout: 60_000 });
    const out = JSON.parse(stdout) as {
      power_before: string;
      power_after: string;
      allowed: string[];
      boot: string[];
      macs: string[];
      media: [string, boolean];
      secure_boot_before: [boolean, string, string];
      secure_boot_after: boolean;
    };
    expect(out.power_before.toLowerCase()).toContain('off');
    expect(out.power_after.toLowerCase()).toContain('on');
    expect(out.allowed.length).toBeGreaterThanOrEqual(6);
    expect(out.boot.map((value) => value.toLowerCase()).join(' ')).toMatch(/pxe.*once.*uefi/);
    expect(out.macs).toEqual(['52:54:00:00:00:0a', '52:54:00:00:00:0b']);
    expect(out.media).toEqual([image, true]);
    expect(out.secure_boot_before[0]).toBe(false);
    expect(out.secure_boot_before.slice(1).join(' ').toLowerCase()).toMatch(/disabled.*deployed/);
    expect(out.secure_boot_after).toBe(true);
    const system = emulator.system('sushy-0');
    expect(system.secureBoot.enabled).toBe(true);
    expect([system.powerState, system.boot.target, system.boot.enabled, system.virtualMedia]).toEqual(['On', 'Pxe', 'Once', { inserted: true, image }]);
    expect(emulator.requests().some((request) => request.auth === 'session')).toBe(true);
    expect(emulator.sessionCount()).toBe(0);
  });

  it('our driver reads what sushy wrote', async () => {
    const driver = createRedfishDriver(emulatedConnection(emulator, 'sushy-0', { scheme: 'idrac-virtualmedia', username: 'admin', password: PASSWORD }));
    expect(await driver.getPower()).toBe('on');
    expect(await driver.getVirtualMedia()).toEqual({ inserted: true, image: 'http://127.0.0.1:9/images/agent.iso' });
    expect(await driver.getSecureBoot()).toBe(true);
    await driver.close();
  });
});
