// What `ironhook bmc check` concludes, in words a person stuck with a `registering` host can act
// on, and the exit code scripts can branch on. Pure: check results and errors in, lines out.
import { defaultSchemeRegistry, hostPortOf } from '../../domain/bmc/index.js';
import type { BMCAddressError, ParsedBMCAddress } from '../../domain/bmc/index.js';
import { BMCError, type BMCCheck } from '../bmc/types.js';

export type VerdictKind =
  | 'usable'
  | 'error'
  | 'usage'
  | 'invalid-address'
  | 'unknown-scheme'
  | 'not-allowed'
  | 'unreachable'
  | 'tls'
  | 'credentials'
  | 'missing-capability'
  | 'image-unavailable';

/** Exit codes (docs/cli.md): 0 only when the BMC is usable. */
export const EXIT_CODES: Record<VerdictKind, number> = {
  usable: 0,
  error: 1,
  usage: 2,
  'invalid-address': 3,
  'unknown-scheme': 3,
  'not-allowed': 4,
  unreachable: 5,
  tls: 5,
  credentials: 6,
  'missing-capability': 7,
  'image-unavailable': 8,
};

export interface Verdict {
  kind: VerdictKind;
  exitCode: number;
  /** One line, starting with ✓ or ✗. */
  headline: string;
  /** What to look at next. */
  hints: string[];
}

export interface CheckContext {
  address: ParsedBMCAddress;
  username: string;
}

function verdict(kind: VerdictKind, headline: string, hints: string[] = []): Verdict {
  return { kind, exitCode: EXIT_CODES[kind], headline: `${kind === 'usable' ? '✓' : '✗'} ${headline}`, hints };
}

function where(address: ParsedBMCAddress): string {
  return `${address.scheme} BMC at ${hostPortOf(address)}`;
}

const UNREACHABLE_HINTS = (address: ParsedBMCAddress): string[] => [
  address.protocol === 'ipmi'
    ? `IPMI answers on UDP port ${String(address.port ?? 623)}: check the address, that the BMC has IPMI over LAN enabled, and routing/firewalls from where the driver pool runs`
    : 'check the address and port, that the BMC is powered and its web service is up, and routing/firewalls from where the driver pool runs',
  'a host in this state stays in registering with a transient BMCUnreachable error until the BMC answers',
];

/** An address that does not parse: the same message the host's registration error carries. */
export function addressVerdict(error: BMCAddressError): Verdict {
  if (error.reason === 'unknown-scheme') {
    const known = [...new Set(defaultSchemeRegistry.names().map((name) => name.replace(/\+https?$/, '')))].join(', ');
    return verdict('unknown-scheme', `unknown BMC scheme: ${error.message}`, [`known schemes: ${known} (Redfish ones also as <scheme>+http / <scheme>+https)`]);
  }
  return verdict('invalid-address', `invalid BMC address: ${error.message}`);
}

export function notAllowedVerdict(message: string): Verdict {
  return verdict('not-allowed', `not allowed: ${message}`, [
    "the host's registration fails the same way (AddressNotAllowed): add the BMC's network to the pool's ALLOWED_BMC_NETWORKS (the chart's drivers.allowedBMCNetworks) if the pool may contact it",
  ]);
}

function problemOf(check: BMCCheck): { reason: string; message: string } | undefined {
  return check.problem;
}

function unreachableVerdict(check: BMCCheck, context: CheckContext): Verdict {
  const problem = problemOf(check);
  if (problem?.reason === 'TLSVerificationFailed') {
    return verdict('tls', `TLS verification failed for the ${where(context.address)}: ${problem.message}`, [
      "pass --ca-file with the BMC's CA (the host's spec.bmc needs the same trust), or --insecure to match spec.bmc.disableCertificateVerification: true",
    ]);
  }
  const detail = problem === undefined ? '' : `: ${problem.message}`;
  return verdict('unreachable', `unreachable: no answer from the ${where(context.address)}${detail}`, UNREACHABLE_HINTS(context.address));
}

function credentialsVerdict(check: BMCCheck, context: CheckContext): Verdict {
  const problem = problemOf(check);
  const detail = problem === undefined ? '' : ` (${problem.message})`;
  const hints = [
    'check the username and password in the host\'s credentials Secret (keys "username" and "password")',
    'too many failed logins can lock the account on some BMCs; it then refuses the right password too',
  ];
  if (context.address.protocol === 'ipmi')
    hints.push('IPMI also refuses a user without the privilege level the address asks for (?privilegelevel=, default ADMINISTRATOR)');
  return verdict('credentials', `credentials rejected: the ${where(context.address)} answered but refused user "${context.username}"${detail}`, hints);
}

/** The verdict for a finished check(). */
export function checkVerdict(check: BMCCheck, context: CheckContext): Verdict {
  if (!check.reachable) return unreachableVerdict(check, context);
  if (!check.authenticated) return credentialsVerdict(check, context);
  if (check.missing.length > 0) {
    return verdict(
      'missing-capability',
      `missing capability: the ${where(context.address)} lacks what the ${context.address.baseScheme} scheme needs: ${check.missing.join(', ')}`,
      ['pick the scheme that matches the BMC (for example redfish instead of redfish-virtualmedia), or update its firmware'],
    );
  }
  const power = check.powerState === undefined ? '' : `, power ${check.powerState}`;
  return verdict('usable', `usable: the ${where(context.address)} answered, accepted the credentials and has what ${context.address.baseScheme} needs${power}`);
}

const REASON_KINDS: Record<string, VerdictKind> = {
  BMCUnreachable: 'unreachable',
  Timeout: 'unreachable',
  TLSVerificationFailed: 'tls',
  CredentialsInvalid: 'credentials',
  AddressNotAllowed: 'not-allowed',
  Unsupported: 'missing-capability',
};

/** A command other than check failed (or check itself threw): classify by the error's reason. */
export function errorVerdict(error: unknown): Verdict {
  const reason =
    error instanceof BMCError || (typeof error === 'object' && error !== null && 'reason' in error) ? String((error as { reason: unknown }).reason) : '';
  const message = error instanceof Error ? error.message : String(error);
  const kind = REASON_KINDS[reason] ?? 'error';
  return verdict(kind, reason === '' ? message : `${reason}: ${message}`);
}

/** Replaces every secret longer than 3 characters with [REDACTED]. */
export function scrub(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret.length > 3).reduce((out, secret) => out.split(secret).join('[REDACTED]'), text);
}
