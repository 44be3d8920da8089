// `ironhook bmc` argument handling: every command's shape, defaults, and the usage errors,
// including credentials offered as flags (always refused).
import { describe, expect, it } from 'vitest';
import { parseCLI, USAGE } from '../../drivers/cli/args.js';
import { parseCredentialsFile } from '../../drivers/cli/credentials.js';

const ADDR = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/host-0';
const DEFAULTS = { address: ADDR, insecure: false, timeoutSeconds: 30, json: false };

describe('commands', () => {
  it.each([
    { name: 'check', argv: ['bmc', 'check', ADDR], want: { kind: 'check', ...DEFAULTS } },
    { name: 'inventory as JSON', argv: ['bmc', 'inventory', ADDR, '--json'], want: { kind: 'inventory', ...DEFAULTS, json: true } },
    { name: 'power status', argv: ['bmc', 'power', 'status', ADDR], want: { kind: 'power', verb: 'status', soft: false, wait: true, ...DEFAULTS } },
    {
      name: 'power off soft, no wait',
      argv: ['bmc', 'power', 'off', ADDR, '--soft', '--no-wait'],
      want: { kind: 'power', verb: 'off', soft: true, wait: false, ...DEFAULTS },
    },
    { name: 'power reboot', argv: ['bmc', 'power', 'reboot', ADDR], want: { kind: 'power', verb: 'reboot', soft: false, wait: true, ...DEFAULTS } },
    {
      name: 'boot pxe once UEFI (defaults)',
      argv: ['bmc', 'boot', ADDR, '--device', 'pxe'],
      want: { kind: 'boot', device: 'pxe', persistent: false, mode: 'UEFI', ...DEFAULTS },
    },
    {
      name: 'boot disk persistent legacy',
      argv: ['bmc', 'boot', ADDR, '--device=DISK', '--persistent', '--mode', 'legacy'],
      want: { kind: 'boot', device: 'disk', persistent: true, mode: 'legacy', ...DEFAULTS },
    },
    {
      name: 'boot cdrom mode uefi lower case',
      argv: ['bmc', 'boot', ADDR, '--device', 'cdrom', '--mode', 'uefi'],
      want: { kind: 'boot', device: 'cdrom', mode: 'UEFI' },
    },
    {
      name: 'every common option',
      argv: [
        'bmc',
        'check',
        ADDR,
        '--credentials-secret',
        'metal3/host-0-bmc',
        '--insecure',
        '--ca-file',
        '/tmp/ca.pem',
        '--timeout',
        '5',
        '--allowed-networks',
        '127.0.0.1/32',
      ],
      want: {
        kind: 'check',
        address: ADDR,
        credentialsSecret: 'metal3/host-0-bmc',
        insecure: true,
        caFile: '/tmp/ca.pem',
        timeoutSeconds: 5,
        allowedNetworks: '127.0.0.1/32',
      },
    },
    { name: 'credentials file', argv: ['bmc', 'check', ADDR, '--credentials-file', './creds'], want: { kind: 'check', credentialsFile: './creds' } },
    { name: 'options before the command', argv: ['--json', 'bmc', 'check', ADDR], want: { kind: 'check', json: true } },
  ])('$name', ({ argv, want }) => {
    const parsed = parseCLI(argv);
    expect(parsed.kind).toBe('command');
    expect(parsed.kind === 'command' ? parsed.command : undefined).toMatchObject(want);
  });

  it.each([[[]], [['--help']], [['bmc', 'check', '-h']]])('help: %j', (argv) => {
    expect(parseCLI(argv)).toEqual({ kind: 'help', text: USAGE });
  });
});

describe('usage errors', () => {
  it.each([
    { name: 'unknown group', argv: ['host', 'check', ADDR], message: /unknown command "host"/ },
    { name: 'missing bmc command', argv: ['bmc'], message: /missing bmc command/ },
    { name: 'unknown bmc command', argv: ['bmc', 'reset', ADDR], message: /unknown bmc command "reset"/ },
    { name: 'missing address', argv: ['bmc', 'check'], message: /missing <bmc-address>/ },
    { name: 'extra argument', argv: ['bmc', 'check', ADDR, 'extra'], message: /unexpected argument "extra"/ },
    { name: 'power without verb', argv: ['bmc', 'power', ADDR], message: /one of status, on, off, reboot/ },
    { name: 'power bad verb', argv: ['bmc', 'power', 'cycle', ADDR], message: /one of status, on, off, reboot/ },
    { name: 'boot without device', argv: ['bmc', 'boot', ADDR], message: /--device pxe, disk or cdrom/ },
    { name: 'boot bad device', argv: ['bmc', 'boot', ADDR, '--device', 'floppy'], message: /--device pxe, disk or cdrom/ },
    { name: 'boot bad mode', argv: ['bmc', 'boot', ADDR, '--device', 'pxe', '--mode', 'efi2'], message: /--mode must be UEFI or legacy/ },
    { name: 'unknown option', argv: ['bmc', 'check', ADDR, '--verbose'], message: /Unknown option '--verbose'/ },
    { name: 'secret and file', argv: ['bmc', 'check', ADDR, '--credentials-secret', 'a/b', '--credentials-file', 'f'], message: /not both/ },
    { name: 'secret without namespace', argv: ['bmc', 'check', ADDR, '--credentials-secret', 'bmc-secret'], message: /<namespace>\/<name>/ },
    { name: 'timeout zero', argv: ['bmc', 'check', ADDR, '--timeout', '0'], message: /--timeout/ },
    { name: 'timeout text', argv: ['bmc', 'check', ADDR, '--timeout', 'soon'], message: /--timeout/ },
  ])('$name', ({ argv, message }) => {
    const parsed = parseCLI(argv);
    expect(parsed.kind).toBe('usage');
    expect(parsed.kind === 'usage' ? parsed.message : '').toMatch(message);
  });

  it.each([
    ['--password', 'hunter2'],
    ['--password=hunter2'],
    ['-p', 'hunter2'],
    ['--username', 'admin'],
    ['-U', 'admin'],
    ['--user=admin'],
    ['--credentials', 'admin:hunter2'],
  ])('credentials as flags are refused: %s', (...flag) => {
    const parsed = parseCLI(['bmc', 'check', ADDR, ...flag]);
    expect(parsed.kind).toBe('usage');
    const message = parsed.kind === 'usage' ? parsed.message : '';
    expect(message).toMatch(/never read from flags/);
    expect(message).not.toContain('hunter2');
  });
});

describe('credentials files', () => {
  it.each([
    { name: 'two lines', text: 'admin\nhunter2\n', want: { username: 'admin', password: 'hunter2' } },
    { name: 'CRLF and blank lines', text: '\r\nadmin\r\n\r\nhunter2\r\n', want: { username: 'admin', password: 'hunter2' } },
    { name: 'password with spaces and colons', text: 'admin\npass: word with spaces\n', want: { username: 'admin', password: 'pass: word with spaces' } },
    { name: 'YAML', text: 'username: admin\npassword: "hunter2"\n', want: { username: 'admin', password: 'hunter2' } },
    { name: 'JSON', text: '{"username":"root","password":"calvin"}', want: { username: 'root', password: 'calvin' } },
    { name: 'one line', text: 'admin\n', want: undefined },
    { name: 'three lines', text: 'a\nb\nc\n', want: undefined },
    { name: 'YAML without password', text: 'username: admin\n', want: undefined },
    { name: 'empty', text: '', want: undefined },
  ])('$name', ({ text, want }) => {
    expect(parseCredentialsFile(text)).toEqual(want);
  });
});
