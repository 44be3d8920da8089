// From an ipmitool run to a BMCError (docs/ipmi.md, "Errors"). The rules are data, tried in
// order on stderr after the "-v" chatter is dropped; the first that matches decides. Messages
// quote at most one line of ipmitool's stderr, with the credentials blanked out.
import { BMCError } from '../bmc/types.js';
import type { ErrorKind } from '../../domain/operations.js';
import type { ExecResult } from './exec.js';

/** What the driver does next with a failure. */
export type FailureClass = 'cipher' | 'busy' | 'final';

export interface ClassifiedFailure {
  error: BMCError;
  class: FailureClass;
}

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly kind: ErrorKind;
  readonly reason: string;
  readonly class: FailureClass;
  readonly summary: string;
}

/** Lines "-v" adds on every run (probes for VSO/HPM.x, the PEN registry): never the failure itself. */
const VERBOSE_NOISE =
  /^(Loading IANA PEN Registry|Running Get VSO Capabilities|Invalid completion code received:|Discovered IPMB address|Get HPM\.x Capabilities request failed|Close Session command failed)/;

const FAILURE_RULES: readonly Rule[] = [
  {
    name: 'cipher suite not offered by the BMC or not known to ipmitool',
    pattern:
      /Unsupported cipher suite ID|no (?:matching cipher suite|cipher suite match)|invalid (?:authentication|integrity|confidentiality) algorithm|no matching (?:authentication|integrity) payload/i,
    kind: 'Permanent',
    reason: 'CipherSuiteUnsupported',
    class: 'cipher',
    summary: 'the BMC does not support the cipher suite',
  },
  {
    name: 'BMC busy (Ironic retryable list)',
    pattern: /insufficient resources (?:for session|to create a session)|Node busy|Out of space|BMC initialization in progress/i,
    kind: 'Transient',
    reason: 'BMCBusy',
    class: 'busy',
    summary: 'the BMC is busy',
  },
  {
    name: 'wrong password, unknown user or privilege not granted',
    pattern:
      /RAKP 2 HMAC is invalid|RAKP 4 message has invalid integrity check value|unauthorized name|invalid name length|invalid integrity check value|unauthorized role or privilege level|invalid role|Insufficient privilege level|Set Session Privilege Level to \S+ failed|password is longer than 20 bytes/i,
    kind: 'Permanent',
    reason: 'CredentialsInvalid',
    class: 'final',
    summary: 'the BMC rejected the credentials or the privilege level',
  },
  {
    name: 'invalid privilege level argument',
    pattern: /Invalid privilege level/i,
    kind: 'Permanent',
    reason: 'InvalidPrivilegeLevel',
    class: 'final',
    summary: 'ipmitool rejected the privilege level',
  },
  {
    name: 'no answer',
    pattern:
      /Get Auth Capabilities error|Error issuing Get Channel Authentication Capabilities|No response from remote controller|Address lookup for \S+ failed|Unable to establish IPMI v2 \/ RMCP\+ session|Connection refused|Network is unreachable/i,
    kind: 'Transient',
    reason: 'BMCUnreachable',
    class: 'final',
    summary: 'the BMC did not answer',
  },
  {
    name: 'command not implemented by the BMC',
    pattern: /: Invalid command$|Invalid data field in request|Invalid command on LUN|not supported/im,
    kind: 'Permanent',
    reason: 'Unsupported',
    class: 'final',
    summary: 'the BMC does not implement the command',
  },
  {
    name: 'ipmitool timeout',
    pattern: /\bTimeout\b|timed out/i,
    kind: 'Transient',
    reason: 'Timeout',
    class: 'final',
    summary: 'the BMC timed out',
  },
];

/** stderr without the "-v" chatter, as trimmed non-empty lines. */
export function meaningfulLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !VERBOSE_NOISE.test(line));
}

/** Replaces every occurrence of each secret (longest first) with "[redacted]". */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length)) {
    result = result.split(secret).join('[redacted]');
  }
  return result;
}

const MAX_DETAIL = 200;

function detail(lines: readonly string[], pattern: RegExp | undefined, secrets: readonly string[]): string {
  const line = (pattern === undefined ? undefined : lines.find((l) => pattern.test(l))) ?? lines[lines.length - 1] ?? '';
  const clean = redact(line, secrets);
  return clean.length > MAX_DETAIL ? `${clean.slice(0, MAX_DETAIL)}…` : clean;
}

export interface FailureContext {
  /** "host:port". */
  bmc: string;
  operation: string;
  cipherSuite: number;
  timeoutMs: number;
  /** Username and password: blanked out of anything quoted. */
  secrets: readonly string[];
}

function processFailure(result: ExecResult, context: FailureContext): ClassifiedFailure | undefined {
  const where = `ipmitool ${context.operation} against ${context.bmc}`;
  if (result.spawnError !== undefined) {
    const error = new BMCError('Permanent', 'IPMIToolMissing', `${where}: ipmitool could not be started (${result.spawnError})`);
    return { error, class: 'final' };
  }
  if (result.timedOut) {
    const error = new BMCError('Transient', 'Timeout', `${where}: no result within ${context.timeoutMs} ms`);
    return { error, class: 'final' };
  }
  return undefined;
}

/** Classifies a failed run (spawn error, our timeout, or a non-zero exit: stderr, then stdout). */
export function classifyFailure(result: ExecResult, context: FailureContext): ClassifiedFailure {
  const early = processFailure(result, context);
  if (early !== undefined) {
    return early;
  }
  // ipmitool prints some failures on stdout (fru print: " Device not present (…)").
  const lines = meaningfulLines(`${result.stderr}\n${result.stdout}`);
  const text = lines.join('\n');
  const rule = FAILURE_RULES.find((candidate) => candidate.pattern.test(text));
  const quoted = detail(lines, rule?.pattern, context.secrets);
  const where = `ipmitool ${context.operation} against ${context.bmc} (cipher suite ${context.cipherSuite})`;
  const said = quoted === '' ? `exit code ${result.exitCode ?? 'none'}` : quoted;
  if (rule === undefined) {
    return { error: new BMCError('Transient', 'BMCCommandFailed', `${where} failed: ${said}`), class: 'final' };
  }
  return { error: new BMCError(rule.kind, rule.reason, `${where}: ${rule.summary}: ${said}`), class: rule.class };
}
