// The IPMI driver against a fake ipmitool and a virtual clock (drivers/ipmi/driver.ts,
// transport.ts): the password never on argv, cipher fallback, busy retries, power and boot
// mapping, check and inventory, the canary. No test sleeps and nothing touches the network.
import { stat, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import type { BMCConnectionOptions, BMCDriver, PowerAction } from '../../drivers/bmc/types.js';
import { createIPMIDriver, createIPMIDriverFactory } from '../../drivers/ipmi/driver.js';
import { FakeClock, FakeIpmitool, connection } from '../support/fake-ipmi.js';
import type { FakeCall } from '../support/fake-ipmi.js';
import { GateRegistry } from '../../drivers/ipmi/gate.js';
import type { IPMICommandEvent, IPMISettings } from '../../drivers/ipmi/settings.js';
import { rejectionOf } from '../support/rejection.js';

const PASSWORD = 'Canary-Pw-7781';

function rig(options: { settings?: Partial<IPMISettings>; connection?: BMCConnectionOptions } = {}) {
  const clock = new FakeClock();
  const ipmitool = new FakeIpmitool(clock);
  const events: IPMICommandEvent[] = [];
  const settings: Partial<IPMISettings> = {
    clock,
    exec: ipmitool.exec,
    gates: new GateRegistry(),
    minCommandIntervalMs: 0,
    observer: (event) => events.push(event),
    ...options.settings,
  };
  const driver = createIPMIDriver(options.connection ?? connection(), settings);
  return { clock, ipmitool, driver, events, settings };
}

const caught = (promise: Promise<unknown>): Promise<BMCError> => rejectionOf(promise, BMCError);

const CIPHER_ERROR = {
  exitCode: 1,
  stderr: 'Error in open session response message : invalid authentication algorithm\n\nError: Unable to establish IPMI v2 / RMCP+ session\n',
};
const BUSY = {
  exitCode: 1,
  stderr: 'RAKP 2 message indicates an error : insufficient resources for session\nError: Unable to establish IPMI v2 / RMCP+ session\n',
};
const WRONG_PASSWORD = { exitCode: 1, stderr: `Loading IANA PEN Registry...\n> RAKP 2 HMAC is invalid\nError: Unable to establish IPMI v2 / RMCP+ session\n` };
const UNREACHABLE = {
  exitCode: 1,
  stderr: 'Get Auth Capabilities error\nError issuing Get Channel Authentication Capabilities request\nError: Unable to establish IPMI v2 / RMCP+ session\n',
};

/** Every driver operation once, failures ignored: for argv and canary checks. */
async function everything(driver: ReturnType<typeof createIPMIDriver>): Promise<void> {
  const operations: (() => Promise<unknown>)[] = [
    () => driver.check(),
    () => driver.getPower(),
    ...(['on', 'off', 'soft-off', 'reboot', 'soft-reboot'] as PowerAction[]).map((action) => () => driver.setPower(action)),
    () => driver.setBootDevice({ device: 'pxe', persistent: true, mode: 'UEFI' }),
    () => driver.setBootDevice({ device: 'disk', persistent: false, mode: 'legacy' }),
    () => driver.getBootParameters(),
    () => driver.inventory(),
  ];
  for (const operation of operations) {
    await operation().catch(() => undefined);
  }
}

describe('the password never reaches argv', () => {
  it('environment mode: -E with IPMI_PASSWORD, a minimal environment, every operation', async () => {
    const { driver, ipmitool } = rig();
    await everything(driver);
    expect(ipmitool.calls.length).toBeGreaterThan(10);
    for (const call of ipmitool.calls) {
      expect(call.args.join(' ')).not.toContain(PASSWORD);
      expect(call.args).toContain('-E');
      expect(call.args).not.toContain('-P');
      expect(call.env.IPMI_PASSWORD).toBe(PASSWORD);
      expect(Object.keys(call.env).sort()).toEqual(['IPMI_PASSWORD', 'LANG', 'LC_ALL', 'PATH']);
    }
  });

  it('file mode: -f names a 0600 file in a 0700 directory, removed afterwards; no password in the environment', async () => {
    const seen: { path: string; content: string; fileMode: number; dirMode: number }[] = [];
    const { driver, ipmitool } = rig({ settings: { passwordMode: 'file' } });
    ipmitool.responder = async (call) => {
      const path = call.args[call.args.indexOf('-f') + 1]!;
      const dir = path.slice(0, path.lastIndexOf('/'));
      seen.push({ path, content: await readFile(path, 'utf8'), fileMode: (await stat(path)).mode & 0o777, dirMode: (await stat(dir)).mode & 0o777 });
      return undefined;
    };
    await everything(driver);
    expect(seen.length).toBe(ipmitool.calls.length);
    for (const [index, file] of seen.entries()) {
      expect(file).toMatchObject({ content: PASSWORD, fileMode: 0o600, dirMode: 0o700 });
      await expect(stat(file.path)).rejects.toThrow();
      expect(ipmitool.calls[index]!.env.IPMI_PASSWORD).toBeUndefined();
      expect(ipmitool.calls[index]!.args.join(' ')).not.toContain(PASSWORD);
    }
  });

  it('file mode: an empty password is written as one NUL, and the file goes even when ipmitool fails', async () => {
    const { driver, ipmitool } = rig({ settings: { passwordMode: 'file' }, connection: connection('ipmi://127.0.0.1:6230', '') });
    let path = '';
    ipmitool.responder = async (call) => {
      path = call.args[call.args.indexOf('-f') + 1]!;
      expect(await readFile(path, 'utf8')).toBe('\0');
      return WRONG_PASSWORD;
    };
    expect((await caught(driver.getPower())).reason).toBe('CredentialsInvalid');
    await expect(stat(path)).rejects.toThrow();
  });
});

describe('connection details on argv', () => {
  const rows = [
    { name: 'port from the address', address: 'ipmi://127.0.0.1:6230', flags: { '-p': '6230', '-L': 'ADMINISTRATOR' } },
    { name: 'default port 623', address: 'ipmi://127.0.0.1', flags: { '-p': '623', '-L': 'ADMINISTRATOR' } },
    { name: 'privilege level from the query', address: 'ipmi://127.0.0.1:6230?privilegelevel=OPERATOR', flags: { '-L': 'OPERATOR' } },
    { name: 'privilege level in lower case', address: 'ipmi://127.0.0.1:6230?privilegelevel=user', flags: { '-L': 'USER' } },
    { name: 'libvirt scheme uses the IPMI driver', address: 'libvirt://127.0.0.1:6233', flags: { '-p': '6233', '-H': '127.0.0.1' } },
  ];
  it.each(rows)('$name', async ({ address, flags }) => {
    const { driver, ipmitool } = rig({ connection: connection(address) });
    await driver.getPower();
    const args = ipmitool.calls[0]!.args;
    for (const [name, value] of Object.entries(flags)) {
      expect(args[args.indexOf(name) + 1]).toBe(value);
    }
    expect(args[args.indexOf('-C') + 1]).toBe('3');
  });

  it('rejects a privilege level ipmitool does not know, before running anything', () => {
    expect(() => createIPMIDriver(connection('ipmi://127.0.0.1:6230?privilegelevel=ROOT'))).toThrow(
      expect.objectContaining({ kind: 'Permanent', reason: 'InvalidPrivilegeLevel' }),
    );
  });

  it('rejects a Redfish address', () => {
    expect(() => createIPMIDriver(connection('redfish://127.0.0.1/redfish/v1/Systems/1'))).toThrow(expect.objectContaining({ reason: 'UnknownDriver' }));
  });

  it('passes the derived timeout, capped by the per-call timeout', async () => {
    const derived = rig({ settings: { retries: 1, retryIntervalSeconds: 1, timeoutSlackMs: 3000 } });
    await derived.driver.getPower();
    expect(derived.ipmitool.calls[0]!.timeoutMs).toBe(5000);
    const capped = rig({ connection: connection('ipmi://127.0.0.1:6230', PASSWORD, 4000) });
    await capped.driver.getPower();
    expect(capped.ipmitool.calls[0]!.timeoutMs).toBe(4000);
  });
});

describe('cipher suites', () => {
  it('falls back from 3 to 17 on a cipher error and remembers 17 for the BMC', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = (call) => (call.suite === 3 ? CIPHER_ERROR : undefined);
    expect(await driver.getPower()).toBe('off');
    await driver.getPower();
    expect(ipmitool.calls.map((call) => call.suite)).toEqual([3, 17, 17]);
    expect((await driver.check()).identity.cipherSuite).toBe('17');
  });

  it('a permanent CipherSuiteUnsupported when no suite works, naming the suites tried', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => CIPHER_ERROR;
    const error = await caught(driver.getPower());
    expect([error.kind, error.reason]).toEqual(['Permanent', 'CipherSuiteUnsupported']);
    expect(error.message).toContain('cipher suites tried: 3, 17');
  });

  it('does not walk the suites for other errors', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => WRONG_PASSWORD;
    expect((await caught(driver.getPower())).reason).toBe('CredentialsInvalid');
    expect(ipmitool.calls.map((call) => call.suite)).toEqual([3]);
  });

  it('honours a configured order', async () => {
    const { driver, ipmitool } = rig({ settings: { cipherSuites: [17, 3] } });
    ipmitool.responder = (call) => (call.suite === 17 ? CIPHER_ERROR : undefined);
    await driver.getPower();
    expect(ipmitool.calls.map((call) => call.suite)).toEqual([17, 3]);
  });
});

describe('errors from ipmitool', () => {
  const rows = [
    { name: 'wrong password', answer: WRONG_PASSWORD, kind: 'Permanent', reason: 'CredentialsInvalid', calls: 1 },
    { name: 'unreachable', answer: UNREACHABLE, kind: 'Transient', reason: 'BMCUnreachable', calls: 1 },
    { name: 'killed at the timeout', answer: { exitCode: null, timedOut: true }, kind: 'Transient', reason: 'Timeout', calls: 1 },
    { name: 'busy on every attempt', answer: BUSY, kind: 'Transient', reason: 'BMCBusy', calls: 3 },
    { name: 'garbage instead of a power status', answer: { stdout: 'Chassis Power is maybe\n' }, kind: 'Transient', reason: 'UnexpectedResponse', calls: 1 },
    { name: 'ipmitool missing', answer: { exitCode: null, spawnError: 'ENOENT' }, kind: 'Permanent', reason: 'IPMIToolMissing', calls: 1 },
  ];
  it.each(rows)('$name → $kind $reason after $calls run(s)', async ({ answer, kind, reason, calls }) => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => answer;
    const error = await caught(driver.getPower());
    expect([error.kind, error.reason]).toEqual([kind, reason]);
    expect(ipmitool.calls).toHaveLength(calls);
  });

  it('retries a busy BMC and succeeds', async () => {
    const { driver, ipmitool } = rig();
    let busy = 2;
    ipmitool.responder = () => (busy-- > 0 ? BUSY : undefined);
    expect(await driver.getPower()).toBe('off');
    expect(ipmitool.calls).toHaveLength(3);
  });
});

describe('power', () => {
  const rows: { name: string; action: PowerAction; initial: 'on' | 'off'; softOffPolls?: number; expected: string[]; final: 'on' | 'off' }[] = [
    { name: 'on', action: 'on', initial: 'off', expected: ['chassis power on'], final: 'on' },
    { name: 'off', action: 'off', initial: 'on', expected: ['chassis power off'], final: 'off' },
    { name: 'soft-off', action: 'soft-off', initial: 'on', expected: ['chassis power soft'], final: 'off' },
    {
      name: 'reboot from on: off, wait for off, on',
      action: 'reboot',
      initial: 'on',
      expected: ['chassis power status', 'chassis power off', 'chassis power status', 'chassis power on'],
      final: 'on',
    },
    { name: 'reboot from off: just on', action: 'reboot', initial: 'off', expected: ['chassis power status', 'chassis power on'], final: 'on' },
    {
      name: 'soft-reboot from on',
      action: 'soft-reboot',
      initial: 'on',
      expected: ['chassis power status', 'chassis power soft', 'chassis power status', 'chassis power on'],
      final: 'on',
    },
    {
      name: 'soft-reboot waits for the OS to shut down',
      action: 'soft-reboot',
      initial: 'on',
      softOffPolls: 2,
      expected: ['chassis power status', 'chassis power soft', 'chassis power status', 'chassis power status', 'chassis power on'],
      final: 'on',
    },
  ];
  it.each(rows)('$name', async ({ action, initial, softOffPolls, expected, final }) => {
    const { driver, ipmitool } = rig();
    ipmitool.power = initial;
    ipmitool.softOffPolls = softOffPolls ?? 0;
    await driver.setPower(action);
    expect(ipmitool.commands).toEqual(expected);
    expect(ipmitool.power).toBe(final);
  });

  it('soft-reboot falls back to a hard power off after the soft timeout', async () => {
    const { driver, ipmitool, clock } = rig({ settings: { softPowerOffTimeoutMs: 3000, powerPollIntervalMs: 1000 } });
    ipmitool.power = 'on';
    ipmitool.softOffPolls = Number.POSITIVE_INFINITY;
    await driver.setPower('soft-reboot');
    const commands = ipmitool.commands;
    expect(commands.slice(0, 2)).toEqual(['chassis power status', 'chassis power soft']);
    expect(commands.slice(-3)).toEqual(['chassis power off', 'chassis power status', 'chassis power on']);
    expect(clock.sleeps.every((ms) => ms === 1000)).toBe(true);
  });

  it('a reboot whose host never turns off is a transient PowerTimeout and does not power on', async () => {
    const { driver, ipmitool } = rig({ settings: { powerOffTimeoutMs: 5000, powerPollIntervalMs: 1000 } });
    ipmitool.power = 'on';
    ipmitool.hardOffPolls = Number.POSITIVE_INFINITY;
    const error = await caught(driver.setPower('reboot'));
    expect([error.kind, error.reason]).toEqual(['Transient', 'PowerTimeout']);
    expect(ipmitool.commands).not.toContain('chassis power on');
  });

  it('an acknowledgement for the wrong control is an UnexpectedResponse', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = (call) => (call.command === 'chassis power off' ? { stdout: 'Chassis Power Control: Up/On\n' } : undefined);
    expect((await caught(driver.setPower('off'))).reason).toBe('UnexpectedResponse');
  });
});

describe('boot device', () => {
  it('UEFI disk on a Supermicro BMC uses 0x24 (vendor from mc info, read once)', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.manufacturerId = 10876;
    await driver.setBootDevice({ device: 'disk', persistent: true, mode: 'UEFI' });
    await driver.setBootDevice({ device: 'disk', persistent: false, mode: 'UEFI' });
    expect(ipmitool.commands).toEqual([
      'mc info',
      'raw 0x00 0x08 0x03 0x08',
      'raw 0x00 0x08 0x05 0xe0 0x24 0x00 0x00 0x00',
      'raw 0x00 0x08 0x03 0x08',
      'raw 0x00 0x08 0x05 0xa0 0x24 0x00 0x00 0x00',
    ]);
  });

  it('efiboot style sends bootdev with options and checks the acknowledgement', async () => {
    const { driver, ipmitool } = rig({ settings: { uefiBootMethod: 'efiboot', disableBootTimeout: false } });
    await driver.setBootDevice({ device: 'cdrom', persistent: true, mode: 'UEFI' });
    expect(ipmitool.commands).toEqual(['chassis bootdev cdrom options=efiboot,persistent']);
    expect(ipmitool.bootDevice).toBe('cdrom');
  });

  it('stops at the first failing step', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = (call) =>
      call.command.startsWith('raw 0x00 0x08 0x03')
        ? { exitCode: 1, stderr: 'Unable to send RAW command (channel=0x0 netfn=0x0 lun=0x0 cmd=0x8 rsp=0xc1): Invalid command\n' }
        : undefined;
    const error = await caught(driver.setBootDevice({ device: 'pxe', persistent: false, mode: 'legacy' }));
    expect([error.kind, error.reason]).toEqual(['Permanent', 'Unsupported']);
    expect(ipmitool.commands).toEqual(['raw 0x00 0x08 0x03 0x08']);
  });

  it('UEFI HTTP boot is unsupported without running ipmitool', async () => {
    const { driver, ipmitool } = rig();
    expect((await caught(driver.setBootDevice({ device: 'uefi-http', persistent: false, mode: 'UEFI' }))).reason).toBe('Unsupported');
    expect(ipmitool.calls).toHaveLength(0);
  });
});

describe('virtual media is not IPMI', () => {
  const rows = [
    { name: 'insert', run: (d: BMCDriver) => d.insertVirtualMedia('http://127.0.0.1/x.iso') },
    { name: 'eject', run: (d: BMCDriver) => d.ejectVirtualMedia() },
    { name: 'state', run: (d: BMCDriver) => d.getVirtualMedia() },
  ];
  it.each(rows)('$name → Permanent Unsupported, no ipmitool run', async ({ run }) => {
    const { driver, ipmitool } = rig();
    const error = await caught(run(driver));
    expect([error.kind, error.reason]).toEqual(['Permanent', 'Unsupported']);
    expect(ipmitool.calls).toHaveLength(0);
  });
});

describe('secure boot is not IPMI', () => {
  it('getSecureBoot answers undefined and setSecureBoot is Permanent Unsupported, no ipmitool run; check() lists SecureBoot when needed', async () => {
    const { driver, ipmitool } = rig();
    expect(await driver.getSecureBoot()).toBeUndefined();
    const error = await caught((driver as BMCDriver).setSecureBoot(true));
    expect([error.kind, error.reason]).toEqual(['Permanent', 'Unsupported']);
    expect(ipmitool.calls).toHaveLength(0);
    expect((await driver.check({ secureBoot: true })).missing).toEqual(['SecureBoot (spec.bootMode is UEFISecureBoot)']);
  });
});

describe('check and inventory', () => {
  it('check: mc info then power status, identity from mc info', async () => {
    const { driver, ipmitool } = rig();
    const check = await driver.check();
    expect(ipmitool.commands).toEqual(['mc info', 'chassis power status']);
    expect(check).toMatchObject({ reachable: true, authenticated: true, powerState: 'off', missing: [] });
    expect(check.identity).toMatchObject({
      manufacturer: 'Example Vendor',
      manufacturerId: '4753',
      firmwareRevision: '9.08',
      ipmiVersion: '2.0',
      cipherSuite: '3',
    });
  });

  const failing = [
    { name: 'unreachable', answer: UNREACHABLE, expected: { reachable: false, authenticated: false } },
    { name: 'wrong password', answer: WRONG_PASSWORD, expected: { reachable: true, authenticated: false } },
    { name: 'no cipher suite works', answer: CIPHER_ERROR, expected: { reachable: true, authenticated: false } },
    { name: 'killed at the timeout', answer: { exitCode: null, timedOut: true }, expected: { reachable: false, authenticated: false } },
  ];
  it.each(failing)('check: $name is a verdict, not an exception', async ({ answer, expected }) => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => answer;
    const check = await driver.check();
    expect(check).toMatchObject(expected);
    expect(check.powerState).toBeUndefined();
  });

  it('check: other failures are thrown', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => ({ exitCode: 1, stderr: 'Get Device ID command failed: Unspecified error\n' });
    expect((await caught(driver.check())).reason).toBe('BMCCommandFailed');
  });

  it('inventory: vendor, product and serial from FRU 0; nothing IPMI cannot know', async () => {
    const { driver } = rig();
    expect(await driver.inventory()).toEqual({ systemVendor: { manufacturer: 'Ironhook Labs', productName: 'IH-1000', serialNumber: 'SN-0042' } });
  });

  it('inventory: without FRU data, the manufacturer from mc info', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = (call) =>
      call.command === 'fru print 0' ? { exitCode: 1, stderr: ' Device not present (Invalid data field in request)\n' } : undefined;
    expect(await driver.inventory()).toEqual({ systemVendor: { manufacturer: 'Example Vendor' } });
  });

  it('inventory: an unreachable BMC is an error, not an empty inventory', async () => {
    const { driver, ipmitool } = rig();
    ipmitool.responder = () => UNREACHABLE;
    expect((await caught(driver.inventory())).reason).toBe('BMCUnreachable');
  });
});

describe('the canary password appears nowhere', () => {
  const answers = [
    { name: 'success', answer: undefined },
    { name: 'password echoed by a broken ipmitool', answer: { exitCode: 1, stderr: `error near ${PASSWORD}\n` } },
    { name: 'wrong password', answer: WRONG_PASSWORD },
    { name: 'timeout', answer: { exitCode: null, timedOut: true } },
  ];
  it.each(answers)('$name: errors, observer events, argv', async ({ answer }) => {
    const { driver, ipmitool, events } = rig();
    ipmitool.responder = () => answer;
    const errors: unknown[] = [];
    for (const run of [() => driver.getPower(), () => driver.setPower('reboot'), () => driver.inventory(), () => driver.check()]) {
      await run().catch((error: unknown) => errors.push(error));
    }
    const captured = JSON.stringify([
      errors.map((e) => (e instanceof Error ? [e.message, e.stack, String(e)] : e)),
      events,
      ipmitool.calls.map((c: FakeCall) => c.args),
    ]);
    expect(captured).not.toContain(PASSWORD);
    expect(events.length).toBeGreaterThan(0);
  });
});

describe('factory', () => {
  it('resolves settings once and rejects bad ones at once', () => {
    expect(() => createIPMIDriverFactory({ cipherSuites: [0] })).toThrow(expect.objectContaining({ reason: 'InvalidSettings' }));
    const factory = createIPMIDriverFactory({ minCommandIntervalMs: 0 });
    expect(factory(connection()).family).toBe('ipmi');
  });

  it('close() has nothing to release', async () => {
    const { driver, ipmitool } = rig();
    await driver.close();
    expect(ipmitool.calls).toHaveLength(0);
  });
});
