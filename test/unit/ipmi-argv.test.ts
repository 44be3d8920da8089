// ipmitool's command line, the timeout derived from -R/-N, the settings checks and the boot
// commands (drivers/ipmi/argv.ts, settings.ts, boot.ts). Pure.
import { describe, expect, it } from 'vitest';
import type { BootOptions } from '../../drivers/bmc/types.js';
import { BOOT_PARAMETERS, FRU_PRINT, MC_INFO, POWER_STATUS, bootdev, buildArgv, powerControl, raw } from '../../drivers/ipmi/argv.js';
import type { IPMICommand, IPMITarget, SessionParameters } from '../../drivers/ipmi/argv.js';
import { bootSteps } from '../../drivers/ipmi/boot.js';
import type { BootStyle } from '../../drivers/ipmi/boot.js';
import { DEFAULT_IPMI_SETTINGS, execTimeoutMs, resolveIPMISettings } from '../../drivers/ipmi/settings.js';

const TARGET: IPMITarget = { host: '127.0.0.1', port: 6230, privilegeLevel: 'ADMINISTRATOR', username: 'admin' };
const SESSION: SessionParameters = { cipherSuite: 3, retries: 1, retryIntervalSeconds: 5, password: { mode: 'env' } };

/** The value after a flag, or undefined when the flag is absent. */
function flag(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index < 0 ? undefined : argv[index + 1];
}

describe('buildArgv', () => {
  const rows: {
    name: string;
    target?: Partial<IPMITarget>;
    session?: Partial<SessionParameters>;
    command?: IPMICommand;
    expected: Record<string, string | undefined>;
  }[] = [
    { name: 'defaults', expected: { '-I': 'lanplus', '-H': '127.0.0.1', '-p': '6230', '-L': 'ADMINISTRATOR', '-U': 'admin', '-C': '3', '-R': '1', '-N': '5' } },
    { name: 'default IPMI port', target: { port: 623 }, expected: { '-p': '623' } },
    { name: 'operator privilege', target: { privilegeLevel: 'OPERATOR' }, expected: { '-L': 'OPERATOR' } },
    { name: 'cipher suite 17', session: { cipherSuite: 17 }, expected: { '-C': '17' } },
    { name: 'ipmitool retries', session: { retries: 2, retryIntervalSeconds: 1 }, expected: { '-R': '2', '-N': '1' } },
    { name: 'IPv6 host without brackets', target: { host: 'fd00::5' }, expected: { '-H': 'fd00::5' } },
    { name: 'empty user name: no -U', target: { username: '' }, expected: { '-U': undefined } },
    { name: 'user name that looks like a flag stays a value', target: { username: '-P' }, expected: { '-U': '-P' } },
    { name: 'password from a file', session: { password: { mode: 'file', path: '/tmp/x/password' } }, expected: { '-f': '/tmp/x/password', '-E': undefined } },
  ];
  it.each(rows)('$name', ({ target, session, command, expected }) => {
    const argv = buildArgv({ ...TARGET, ...target }, { ...SESSION, ...session }, command ?? POWER_STATUS);
    for (const [name, value] of Object.entries(expected)) {
      if (value === undefined) {
        expect(argv).not.toContain(name);
      } else {
        expect(flag(argv, name)).toBe(value);
      }
    }
  });

  it('always sets the cipher suite, never -P, and ends with the command', () => {
    const argv = buildArgv(TARGET, SESSION, POWER_STATUS);
    expect(argv).toContain('-C');
    expect(argv).not.toContain('-P');
    expect(argv).toContain('-E');
    expect(argv).toContain('-v');
    expect(argv.slice(-3)).toEqual(['chassis', 'power', 'status']);
  });

  // prettier-ignore
  const commands: { name: string; command: IPMICommand; words: string[]; operation: string }[] = [
    { name: 'power status', command: POWER_STATUS, words: ['chassis', 'power', 'status'], operation: 'chassis power status' },
    { name: 'power soft', command: powerControl('soft'), words: ['chassis', 'power', 'soft'], operation: 'chassis power soft' },
    { name: 'mc info', command: MC_INFO, words: ['mc', 'info'], operation: 'mc info' },
    { name: 'fru print 0', command: FRU_PRINT, words: ['fru', 'print', '0'], operation: 'fru print 0' },
    { name: 'bootparam get 5', command: BOOT_PARAMETERS, words: ['chassis', 'bootparam', 'get', '5'], operation: 'chassis bootparam get 5' },
    { name: 'bootdev with options', command: bootdev('pxe', ['efiboot', 'persistent']), words: ['chassis', 'bootdev', 'pxe', 'options=efiboot,persistent'], operation: 'chassis bootdev pxe options=efiboot,persistent' },
    { name: 'raw bytes as two-digit hex', command: raw([0x00, 0x08, 0x05, 0xe0, 0x04, 0, 0, 0]), words: ['raw', '0x00', '0x08', '0x05', '0xe0', '0x04', '0x00', '0x00', '0x00'], operation: 'raw 0x00 0x08 0x05' },
  ];
  it.each(commands)('command: $name', ({ command, words, operation }) => {
    expect(command.words).toEqual(words);
    expect(command.operation).toBe(operation);
  });
});

describe('execTimeoutMs: what ipmitool needs to give up on a dead BMC, plus slack, capped', () => {
  const rows = [
    { name: 'Ironic defaults -R 1 -N 5', retries: 1, retryIntervalSeconds: 5, slack: 3000, cap: 0, expected: 13_000 },
    { name: 'tests -R 1 -N 1 (measured 2.1 s)', retries: 1, retryIntervalSeconds: 1, slack: 3000, cap: 0, expected: 5000 },
    { name: '-R 2 -N 2 (measured 10.1 s)', retries: 2, retryIntervalSeconds: 2, slack: 3000, cap: 0, expected: 13_000 },
    { name: '-R 3 -N 1: 1 + 2 + 3 s per message', retries: 3, retryIntervalSeconds: 1, slack: 0, cap: 0, expected: 12_000 },
    { name: 'capped by the per-call timeout', retries: 1, retryIntervalSeconds: 5, slack: 3000, cap: 8000, expected: 8000 },
    { name: 'cap above the derived bound', retries: 1, retryIntervalSeconds: 1, slack: 3000, cap: 60_000, expected: 5000 },
  ];
  it.each(rows)('$name', ({ retries, retryIntervalSeconds, slack, cap, expected }) => {
    expect(execTimeoutMs({ retries, retryIntervalSeconds, timeoutSlackMs: slack }, cap)).toBe(expected);
  });
});

describe('resolveIPMISettings', () => {
  it('defaults: suites 3 then 17, Ironic spacing and retries, password by environment', () => {
    const settings = resolveIPMISettings();
    expect(settings.cipherSuites).toEqual([3, 17]);
    expect(settings.minCommandIntervalMs).toBe(5000);
    expect([settings.retries, settings.retryIntervalSeconds]).toEqual([1, 5]);
    expect(settings.passwordMode).toBe('env');
    expect(settings).toEqual({ ...DEFAULT_IPMI_SETTINGS });
  });

  const invalid = [
    { name: 'no cipher suites', overrides: { cipherSuites: [] } },
    { name: 'suite 0 (no authentication)', overrides: { cipherSuites: [0] } },
    { name: 'suite 1 in a fallback list', overrides: { cipherSuites: [3, 1] } },
    { name: 'suite 2', overrides: { cipherSuites: [2] } },
    { name: 'suite that does not exist', overrides: { cipherSuites: [18] } },
    { name: 'fractional suite', overrides: { cipherSuites: [3.5] } },
    { name: 'zero retries', overrides: { retries: 0 } },
    { name: 'zero interval', overrides: { retryIntervalSeconds: 0 } },
    { name: 'negative spacing', overrides: { minCommandIntervalMs: -1 } },
    { name: 'no busy attempts', overrides: { busyAttempts: 0 } },
  ];
  it.each(invalid)('rejects $name', ({ overrides }) => {
    expect(() => resolveIPMISettings(overrides)).toThrow(expect.objectContaining({ kind: 'Permanent', reason: 'InvalidSettings' }));
  });

  it('accepts spacing 0 for tests and a single suite', () => {
    expect(resolveIPMISettings({ minCommandIntervalMs: 0, cipherSuites: [17] }).cipherSuites).toEqual([17]);
  });
});

describe('bootSteps: exactly what is sent for a boot device', () => {
  const RAW_STYLE: BootStyle = { uefiBootMethod: 'raw', disableBootTimeout: true };
  const TIMEOUT = 'raw 0x00 0x08 0x03 0x08';
  // prettier-ignore
  const rows: { name: string; options: BootOptions; style?: Partial<BootStyle>; expected: string[] }[] = [
    { name: 'legacy pxe once', options: { device: 'pxe', persistent: false, mode: 'legacy' }, expected: [TIMEOUT, 'chassis bootdev pxe'] },
    { name: 'legacy disk persistent', options: { device: 'disk', persistent: true, mode: 'legacy' }, expected: [TIMEOUT, 'chassis bootdev disk options=persistent'] },
    { name: 'legacy cdrom once', options: { device: 'cdrom', persistent: false, mode: 'legacy' }, expected: [TIMEOUT, 'chassis bootdev cdrom'] },
    { name: 'legacy bios once', options: { device: 'bios', persistent: false, mode: 'legacy' }, expected: [TIMEOUT, 'chassis bootdev bios'] },
    { name: 'UEFI pxe once (raw)', options: { device: 'pxe', persistent: false, mode: 'UEFI' }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xa0 0x04 0x00 0x00 0x00'] },
    { name: 'UEFI pxe persistent (raw)', options: { device: 'pxe', persistent: true, mode: 'UEFI' }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xe0 0x04 0x00 0x00 0x00'] },
    { name: 'UEFI disk persistent (raw)', options: { device: 'disk', persistent: true, mode: 'UEFI' }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xe0 0x08 0x00 0x00 0x00'] },
    { name: 'UEFI disk on Supermicro (raw, 0x24)', options: { device: 'disk', persistent: true, mode: 'UEFI' }, style: { uefiDiskCode: 0x24 }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xe0 0x24 0x00 0x00 0x00'] },
    { name: 'UEFI cdrom once (raw)', options: { device: 'cdrom', persistent: false, mode: 'UEFI' }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xa0 0x14 0x00 0x00 0x00'] },
    { name: 'UEFI bios once (raw)', options: { device: 'bios', persistent: false, mode: 'UEFI' }, expected: [TIMEOUT, 'raw 0x00 0x08 0x05 0xa0 0x18 0x00 0x00 0x00'] },
    { name: 'UEFI pxe persistent (efiboot)', options: { device: 'pxe', persistent: true, mode: 'UEFI' }, style: { uefiBootMethod: 'efiboot' }, expected: [TIMEOUT, 'chassis bootdev pxe options=efiboot,persistent'] },
    { name: 'UEFI cdrom once (efiboot)', options: { device: 'cdrom', persistent: false, mode: 'UEFI' }, style: { uefiBootMethod: 'efiboot' }, expected: [TIMEOUT, 'chassis bootdev cdrom options=efiboot'] },
    { name: 'without the boot-timeout command', options: { device: 'pxe', persistent: false, mode: 'legacy' }, style: { disableBootTimeout: false }, expected: ['chassis bootdev pxe'] },
  ];
  it.each(rows)('$name', ({ options, style, expected }) => {
    const steps = bootSteps(options, { ...RAW_STYLE, ...style });
    expect(steps.map((step) => step.command.words.join(' '))).toEqual(expected);
  });

  it('UEFI HTTP boot is a permanent Unsupported error', () => {
    expect(() => bootSteps({ device: 'uefi-http', persistent: false, mode: 'UEFI', httpBootURI: 'http://127.0.0.1/x.efi' }, RAW_STYLE)).toThrow(
      expect.objectContaining({ kind: 'Permanent', reason: 'Unsupported' }),
    );
  });
});
