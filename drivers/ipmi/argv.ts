// ipmitool's command line. Pure. The password is never an
// argument: "-E" makes ipmitool read IPMI_PASSWORD from the environment, "-f <file>" reads a
// 0600 file. The cipher suite, privilege level, port and ipmitool's own retry knobs are always
// explicit (without -C, ipmitool probes suites first: 10 s against ipmi_sim).

export interface IPMITarget {
  host: string;
  port: number;
  /** Upper case: ADMINISTRATOR, OPERATOR, USER or CALLBACK. */
  privilegeLevel: string;
  /** Omitted from argv when empty (ipmitool then uses the anonymous user). */
  username: string;
}

export type PasswordArgument = { readonly mode: 'env' } | { readonly mode: 'file'; readonly path: string };

export interface SessionParameters {
  cipherSuite: number;
  retries: number;
  retryIntervalSeconds: number;
  password: PasswordArgument;
}

/** One ipmitool command: its words after the global options, and a short name for logs. */
export interface IPMICommand {
  readonly words: readonly string[];
  /** For logs, metrics and error messages; never contains data that is secret. */
  readonly operation: string;
}

function command(...words: string[]): IPMICommand {
  return { words, operation: words.join(' ') };
}

export const POWER_STATUS = command('chassis', 'power', 'status');
export const MC_INFO = command('mc', 'info');
export const FRU_PRINT = command('fru', 'print', '0');
export const BOOT_PARAMETERS = command('chassis', 'bootparam', 'get', '5');

export type PowerControl = 'on' | 'off' | 'soft' | 'cycle' | 'reset';

export function powerControl(control: PowerControl): IPMICommand {
  return command('chassis', 'power', control);
}

export function bootdev(device: string, options: readonly string[]): IPMICommand {
  return options.length === 0 ? command('chassis', 'bootdev', device) : command('chassis', 'bootdev', device, `options=${options.join(',')}`);
}

function hexByte(value: number): string {
  return `0x${value.toString(16).padStart(2, '0')}`;
}

/** "raw <netfn> <cmd> <data…>"; the operation names netfn, cmd and the parameter selector. */
export function raw(bytes: readonly number[]): IPMICommand {
  const words = ['raw', ...bytes.map(hexByte)];
  return { words, operation: words.slice(0, 4).join(' ') };
}

function passwordArgs(password: PasswordArgument): string[] {
  return password.mode === 'env' ? ['-E'] : ['-f', password.path];
}

/**
 * The full argv: interface, host, port, privilege level, user, cipher suite, ipmitool's retries
 * and interval, the password source, "-v" (so session failures say why: "RAKP 2 HMAC is
 * invalid" versus "Get Auth Capabilities error"), then the command.
 */
export function buildArgv(target: IPMITarget, session: SessionParameters, cmd: IPMICommand): string[] {
  return [
    '-I',
    'lanplus',
    '-H',
    target.host,
    '-p',
    String(target.port),
    '-L',
    target.privilegeLevel,
    ...(target.username === '' ? [] : ['-U', target.username]),
    '-C',
    String(session.cipherSuite),
    '-R',
    String(session.retries),
    '-N',
    String(session.retryIntervalSeconds),
    ...passwordArgs(session.password),
    '-v',
    ...cmd.words,
  ];
}
