// `ironhook bmc …` arguments (docs/cli.md): node:util parseArgs, strict, into one typed command.
// Credentials never come from flags: a flag that looks like one is refused with the reason.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type PowerVerb = 'status' | 'on' | 'off' | 'reboot';

export interface CommonOptions {
  address: string;
  /** "<namespace>/<name>" of a Secret with username/password keys. */
  credentialsSecret?: string;
  credentialsFile?: string;
  insecure: boolean;
  caFile?: string;
  timeoutSeconds: number;
  /** Comma-separated CIDRs; overrides ALLOWED_BMC_NETWORKS. */
  allowedNetworks?: string;
  json: boolean;
}

/** --image without a BMC address: only the image URL is checked. */
export interface ImageOnlyCommand {
  kind: 'image-check';
  image: string;
  insecure: boolean;
  caFile?: string;
  timeoutSeconds: number;
  json: boolean;
}

export type BMCCommand =
  | ({ kind: 'check'; image?: string } & CommonOptions)
  | ({ kind: 'power'; verb: PowerVerb; soft: boolean; wait: boolean } & CommonOptions)
  | ({ kind: 'boot'; device: 'pxe' | 'disk' | 'cdrom'; persistent: boolean; mode: 'UEFI' | 'legacy' } & CommonOptions)
  | ({ kind: 'inventory' } & CommonOptions);

export type ParsedCLI =
  { kind: 'help'; text: string } | { kind: 'command'; command: BMCCommand } | { kind: 'image'; command: ImageOnlyCommand } | { kind: 'usage'; message: string };

export const USAGE = `Usage: ironhook bmc <command> <bmc-address> [options]
       ironhook explain <host> [-n <namespace>] [-o json] [--watch]   (see ironhook explain --help)

Commands:
  check <address>                       reachability, credentials and capabilities; exit 0 only when usable
                                        (the first thing to run when a host is stuck in registering)
  check [<address>] --image <url>       also (or only) whether the image URL answers, its size and format
  power status|on|off|reboot <address>  read or change power (--soft: graceful off/reboot; --no-wait)
  boot <address> --device pxe|disk|cdrom [--persistent] [--mode UEFI|legacy]
  inventory <address>                   hardware as JSON, in the shape of status.hardware

Credentials (never from flags): --credentials-secret <namespace>/<name> (via KUBECONFIG),
  --credentials-file <path> (two lines: username, password; or YAML with username/password),
  or the environment: BMC_USERNAME and BMC_PASSWORD.

Options:
  --insecure                  skip TLS verification (spec.bmc.disableCertificateVerification)
  --ca-file <path>            PEM bundle to trust for this BMC
  --timeout <seconds>         per BMC call (default 30)
  --allowed-networks <cidrs>  the pool's allowed networks, to say whether it would accept the address
                              (default: ALLOWED_BMC_NETWORKS; the CLI itself contacts the address you name)
  --json                      machine-readable output
  -h, --help                  this text`;

const OPTIONS = {
  'credentials-secret': { type: 'string' },
  'credentials-file': { type: 'string' },
  insecure: { type: 'boolean', default: false },
  'ca-file': { type: 'string' },
  timeout: { type: 'string' },
  'allowed-networks': { type: 'string' },
  image: { type: 'string' },
  json: { type: 'boolean', default: false },
  device: { type: 'string' },
  persistent: { type: 'boolean', default: false },
  mode: { type: 'string' },
  soft: { type: 'boolean', default: false },
  'no-wait': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true; args: string[] }>>['values'];

const CREDENTIAL_FLAG = /^(-p|-u|-P|-U|--(user(name)?|pass(word)?|credentials?)(=.*)?)$/i;
const DEVICES: readonly string[] = ['pxe', 'disk', 'cdrom'];
const VERBS: readonly string[] = ['status', 'on', 'off', 'reboot'];
const MODES: Record<string, 'UEFI' | 'legacy'> = { uefi: 'UEFI', legacy: 'legacy', bios: 'legacy' };

class UsageError extends Error {}

function usage(message: string): never {
  throw new UsageError(message);
}

function timeoutOf(text: string | undefined): number {
  if (text === undefined) return 30;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600)
    usage(`--timeout must be a number of seconds between 0 and 3600, not ${JSON.stringify(text)}`);
  return seconds;
}

/** The optional string options, without the keys that were not given. */
function optional(values: Values): Partial<CommonOptions> {
  const pairs: [keyof CommonOptions, string | undefined][] = [
    ['credentialsSecret', values['credentials-secret']],
    ['credentialsFile', values['credentials-file']],
    ['caFile', values['ca-file']],
    ['allowedNetworks', values['allowed-networks']],
  ];
  return Object.fromEntries(pairs.filter(([, value]) => value !== undefined));
}

function common(values: Values, address: string | undefined): CommonOptions {
  if (address === undefined || address === '') usage('missing <bmc-address>');
  if (values['credentials-secret'] !== undefined && values['credentials-file'] !== undefined) {
    usage('use either --credentials-secret or --credentials-file, not both');
  }
  const secret = values['credentials-secret'];
  if (secret !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(secret)) usage('--credentials-secret must be <namespace>/<name>');
  return { address, ...optional(values), insecure: values.insecure, timeoutSeconds: timeoutOf(values.timeout), json: values.json };
}

function bootCommand(values: Values, rest: string[]): BMCCommand {
  const device = values.device?.toLowerCase();
  if (device === undefined || !DEVICES.includes(device)) usage('boot needs --device pxe, disk or cdrom');
  const mode = MODES[(values.mode ?? 'UEFI').toLowerCase()];
  if (mode === undefined) usage('--mode must be UEFI or legacy');
  return { kind: 'boot', device: device as 'pxe' | 'disk' | 'cdrom', persistent: values.persistent, mode, ...common(values, rest[0]) };
}

function powerCommand(values: Values, rest: string[]): BMCCommand {
  const verb = rest[0];
  if (verb === undefined || !VERBS.includes(verb)) usage('power needs one of status, on, off, reboot');
  return { kind: 'power', verb: verb as PowerVerb, soft: values.soft, wait: !values['no-wait'], ...common(values, rest[1]) };
}

function commandOf(values: Values, positionals: string[]): BMCCommand {
  const [group, name, ...rest] = positionals;
  if (group !== 'bmc') usage(group === undefined ? 'missing command' : `unknown command ${JSON.stringify(group)} (only "bmc" exists)`);
  const tooMany = (count: number): void => {
    if (rest.length > count) usage(`unexpected argument ${JSON.stringify(rest[count])}`);
  };
  switch (name) {
    case 'check':
      tooMany(1);
      return { kind: 'check', ...(values.image === undefined ? {} : { image: values.image }), ...common(values, rest[0]) };
    case 'inventory':
      tooMany(1);
      return { kind: 'inventory', ...common(values, rest[0]) };
    case 'power':
      tooMany(2);
      return powerCommand(values, rest);
    case 'boot':
      tooMany(1);
      return bootCommand(values, rest);
    default:
      return usage(name === undefined ? 'missing bmc command' : `unknown bmc command ${JSON.stringify(name)}`);
  }
}

/** `bmc check --image <url>` with no address. */
function imageOnly(values: Values, positionals: string[]): ImageOnlyCommand | undefined {
  if (values.image === undefined || positionals.length !== 2 || positionals[0] !== 'bmc' || positionals[1] !== 'check') return undefined;
  return {
    kind: 'image-check',
    image: values.image,
    insecure: values.insecure,
    ...(values['ca-file'] === undefined ? {} : { caFile: values['ca-file'] }),
    timeoutSeconds: timeoutOf(values.timeout),
    json: values.json,
  };
}

export function parseCLI(argv: readonly string[]): ParsedCLI {
  const credentialFlag = argv.find((arg) => CREDENTIAL_FLAG.test(arg));
  if (credentialFlag !== undefined) {
    return {
      kind: 'usage',
      message: `${credentialFlag.split('=')[0] ?? credentialFlag}: credentials are never read from flags (they would end up in shell history and ps); use --credentials-file, --credentials-secret or BMC_USERNAME/BMC_PASSWORD`,
    };
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help || positionals.length === 0) return { kind: 'help', text: USAGE };
    const image = imageOnly(values, positionals);
    if (image !== undefined) return { kind: 'image', command: image };
    return { kind: 'command', command: commandOf(values, positionals) };
  } catch (err) {
    if (err instanceof UsageError) return { kind: 'usage', message: err.message };
    if (err instanceof TypeError) return { kind: 'usage', message: err.message.split('\n')[0] ?? err.message };
    throw err;
  }
}
