// Error classification (drivers/ipmi/errors.ts) from ipmitool's real stderr. The texts marked
// "sim" were captured from ipmitool 1.8.19 -v against ipmi_sim (OpenIPMI 2.0.33); the others
// are ipmitool's own messages for answers ipmi_sim cannot give (strings from lanplus.c and
// Ironic's retryable list).
import { describe, expect, it } from 'vitest';
import type { ExecResult } from '../../drivers/ipmi/exec.js';
import { classifyFailure, meaningfulLines, redact } from '../../drivers/ipmi/errors.js';
import type { FailureClass } from '../../drivers/ipmi/errors.js';

const NOISE =
  'Loading IANA PEN Registry...\nRunning Get VSO Capabilities my_addr 0x20, transit 0, target 0x20\nInvalid completion code received: Invalid command\nDiscovered IPMB address 0x0\n';
const HPM_NOISE = 'Get HPM.x Capabilities request failed, compcode = d4\nInvalid completion code received: Insufficient privilege level\n';

const context = { bmc: '127.0.0.1:6230', operation: 'chassis power status', cipherSuite: 3, timeoutMs: 13_000, secrets: ['Canary-Pw-7781', 'opsadmin'] };

function failed(stderr: string, extra: Partial<ExecResult> = {}): ExecResult {
  return { exitCode: 1, stdout: '', stderr, timedOut: false, ...extra };
}

interface Row {
  name: string;
  result: ExecResult;
  kind: 'Transient' | 'Permanent';
  reason: string;
  class: FailureClass;
}

// prettier-ignore
const ROWS: Row[] = [
  // Session set-up failures.
  { name: 'sim: wrong password', result: failed('Loading IANA PEN Registry...\n> RAKP 2 HMAC is invalid\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'sim: unknown user', result: failed('Loading IANA PEN Registry...\nRAKP 2 message indicates an error : unauthorized name\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'sim: dead BMC (closed UDP port)', result: failed('Loading IANA PEN Registry...\nGet Auth Capabilities error\nError issuing Get Channel Authentication Capabilities request\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Transient', reason: 'BMCUnreachable', class: 'final' },
  { name: 'dead BMC without -v', result: failed('Error: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Transient', reason: 'BMCUnreachable', class: 'final' },
  { name: 'sim: cipher suite 17 (not implemented by ipmi_sim)', result: failed('Loading IANA PEN Registry...\nError in open session response message : invalid authentication algorithm\n\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CipherSuiteUnsupported', class: 'cipher' },
  { name: 'sim: cipher suite unknown to ipmitool', result: failed('Unsupported cipher suite ID : 99\n\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CipherSuiteUnsupported', class: 'cipher' },
  { name: 'BMC without the suite (Ironic list)', result: failed('Error in open session response message : no matching cipher suite\n\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CipherSuiteUnsupported', class: 'cipher' },
  { name: 'RAKP 2: no cipher suite match', result: failed('RAKP 2 message indicates an error : no cipher suite match with proposed security algorithms\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CipherSuiteUnsupported', class: 'cipher' },
  { name: 'sim: cipher suite 7 stops at Set Session Privilege Level', result: failed('Set Session Privilege Level to ADMINISTRATOR failed\nError: Unable to establish IPMI v2 / RMCP+ session\nClose Session command failed\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'sim: invalid privilege level argument', result: failed('Invalid privilege level BOGUS\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'InvalidPrivilegeLevel', class: 'final' },
  { name: 'sim: password longer than 20 bytes', result: failed('lanplus: password is longer than 20 bytes.\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'Kg key mismatch (RAKP 4)', result: failed('RAKP 4 message has invalid integrity check value\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'role not allowed for the user', result: failed('RAKP 2 message indicates an error : unauthorized role or privilege level requested\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'DNS failure', result: failed('Address lookup for bmc.invalid failed\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Transient', reason: 'BMCUnreachable', class: 'final' },
  // Busy BMC (Ironic's retryable list).
  { name: 'insufficient resources for session', result: failed('RAKP 2 message indicates an error : insufficient resources for session\nError: Unable to establish IPMI v2 / RMCP+ session\n'), kind: 'Transient', reason: 'BMCBusy', class: 'busy' },
  { name: 'node busy', result: failed('Get Chassis Power Status failed: Node busy\n'), kind: 'Transient', reason: 'BMCBusy', class: 'busy' },
  { name: 'out of space', result: failed('Set Chassis Boot Parameter 5 failed: Out of space\n'), kind: 'Transient', reason: 'BMCBusy', class: 'busy' },
  { name: 'BMC initialising', result: failed('Get Device ID command failed: BMC initialization in progress\n'), kind: 'Transient', reason: 'BMCBusy', class: 'busy' },
  // Command failures inside a session.
  { name: 'sim: privilege USER cannot power on', result: failed(`${NOISE}${HPM_NOISE}Set Chassis Power Control to Up/On failed: Insufficient privilege level\n`), kind: 'Permanent', reason: 'CredentialsInvalid', class: 'final' },
  { name: 'sim: chassis script failing', result: failed(`${NOISE}Get Chassis Power Status failed: Unspecified error`), kind: 'Transient', reason: 'BMCCommandFailed', class: 'final' },
  { name: 'sim: chassis script failing at OPERATOR (HPM noise is not the cause)', result: failed(`${NOISE}${HPM_NOISE}Set Chassis Power Control to Up/On failed: Unspecified error\n`), kind: 'Transient', reason: 'BMCCommandFailed', class: 'final' },
  { name: 'sim: raw command failing', result: failed('Unable to send RAW command (channel=0x0 netfn=0x0 lun=0x0 cmd=0x8 rsp=0xff): Unspecified error\n'), kind: 'Transient', reason: 'BMCCommandFailed', class: 'final' },
  { name: 'BMC rejecting the boot-timeout raw command (OpenBMC)', result: failed('Unable to send RAW command (channel=0x0 netfn=0x0 lun=0x0 cmd=0x8 rsp=0xc1): Invalid command\n'), kind: 'Permanent', reason: 'Unsupported', class: 'final' },
  { name: 'sim: power diag', result: failed('Set Chassis Power Control to Diag failed: Invalid data field in request\n'), kind: 'Permanent', reason: 'Unsupported', class: 'final' },
  { name: 'sim: FRU device not present (said on stdout)', result: failed(NOISE, { stdout: ' Device not present (Invalid data field in request)\n' }), kind: 'Permanent', reason: 'Unsupported', class: 'final' },
  { name: 'ipmitool timeout line', result: failed('Get Chassis Power Status failed: Timeout\n'), kind: 'Transient', reason: 'Timeout', class: 'final' },
  { name: 'nothing on stderr', result: failed(''), kind: 'Transient', reason: 'BMCCommandFailed', class: 'final' },
  { name: 'only -v noise on stderr', result: failed(NOISE), kind: 'Transient', reason: 'BMCCommandFailed', class: 'final' },
  // The process itself.
  { name: 'killed at our timeout', result: failed('', { exitCode: null, timedOut: true }), kind: 'Transient', reason: 'Timeout', class: 'final' },
  { name: 'ipmitool not installed', result: failed('', { exitCode: null, spawnError: 'ENOENT' }), kind: 'Permanent', reason: 'IPMIToolMissing', class: 'final' },
];

describe('classifyFailure: ipmitool stderr to BMCError', () => {
  it.each(ROWS)('$name → $kind $reason', ({ result, kind, reason, class: expectedClass }) => {
    const classified = classifyFailure(result, context);
    expect(classified.error.kind).toBe(kind);
    expect(classified.error.reason).toBe(reason);
    expect(classified.class).toBe(expectedClass);
    expect(classified.error.message).toContain('127.0.0.1:6230');
  });

  it('quotes the line that decided, not the -v chatter', () => {
    const { error } = classifyFailure(ROWS[0]!.result, context);
    expect(error.message).toContain('RAKP 2 HMAC is invalid');
    expect(error.message).not.toContain('IANA');
  });

  it('names the operation and the cipher suite', () => {
    const { error } = classifyFailure(failed('Get Chassis Power Status failed: Unspecified error'), context);
    expect(error.message).toContain('chassis power status');
    expect(error.message).toContain('cipher suite 3');
  });
});

describe('credentials never appear in error messages', () => {
  const leaky = [
    { name: 'password echoed on stderr', stderr: 'Error: bad password Canary-Pw-7781 for user opsadmin\n' },
    { name: 'password in a RAKP line', stderr: 'RAKP 2 HMAC is invalid (Canary-Pw-7781)\n' },
    { name: 'password only in unclassified output', stderr: 'something odd: Canary-Pw-7781\n' },
  ];
  it.each(leaky)('$name', ({ stderr }) => {
    const { error } = classifyFailure(failed(stderr), context);
    expect(error.message).not.toContain('Canary-Pw-7781');
    expect(error.message).not.toContain('opsadmin');
    expect(error.message).toContain('[redacted]');
  });

  it('redact replaces the longest secret first', () => {
    expect(redact('ab abc', ['ab', 'abc'])).toBe('[redacted] [redacted]');
    expect(redact('nothing here', [''])).toBe('nothing here');
  });
});

describe('meaningfulLines drops the -v chatter', () => {
  it('keeps only the lines that describe the failure', () => {
    expect(meaningfulLines(`${NOISE}${HPM_NOISE}\nSet Chassis Power Control to Up/On failed: Unspecified error\n`)).toEqual([
      'Set Chassis Power Control to Up/On failed: Unspecified error',
    ]);
  });
});
