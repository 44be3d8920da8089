// The files ipmi_sim runs from, rendered as text, pure:
// lan.conf (one LAN channel on 127.0.0.1, users, the chassis-control program), the .emu
// command file (one BMC, optionally with FRU 0 data) and the chassis-control shell script.

type SimulatorPrivilege = 'admin' | 'operator' | 'user';

export interface SimulatorUser {
  username: string;
  password: string;
  privilege: SimulatorPrivilege;
}

export interface FRUProductInfo {
  manufacturer: string;
  productName: string;
  partNumber?: string;
  version?: string;
  serialNumber: string;
}

export interface LanConfInput {
  name: string;
  port: number;
  users: readonly SimulatorUser[];
  /** Absolute path of the chassis-control script. */
  scriptPath: string;
  /** Absolute path of the directory the script keeps its state in. */
  stateDir: string;
}

/** IPMI 2.0 limits: 16-byte user names and 20-byte passwords. */
const MAX_USERNAME = 16;
const MAX_PASSWORD = 20;
const MAX_USERS = 8;
/** lan.conf has no escapes: printable ASCII without quotes or backslashes. */
const CONF_STRING = /^[\x20-\x7e]*$/;
const SAFE_PATH = /^\/[\w./-]+$/;

function checkConfString(what: string, value: string, max: number): void {
  if (!CONF_STRING.test(value) || value.includes('"') || value.includes('\\')) {
    throw new Error(`${what} must be printable ASCII without quotes or backslashes`);
  }
  if (value.length > max) {
    throw new Error(`${what} is longer than ${max} bytes (the IPMI limit)`);
  }
}

function checkUsers(users: readonly SimulatorUser[]): void {
  if (users.length === 0 || users.length > MAX_USERS) {
    throw new Error(`between 1 and ${MAX_USERS} users are supported`);
  }
  for (const user of users) {
    if (user.username === '') {
      throw new Error('a simulator user needs a name');
    }
    checkConfString('user name', user.username, MAX_USERNAME);
    checkConfString('password', user.password, MAX_PASSWORD);
  }
}

/** lan.conf: users 2, 3, … in order; MD5 for IPMI 1.5 logins; lanplus works with every user. */
export function renderLanConf(input: LanConfInput): string {
  checkUsers(input.users);
  checkConfString('BMC name', input.name, 64);
  for (const path of [input.scriptPath, input.stateDir]) {
    if (!SAFE_PATH.test(path)) {
      throw new Error(`path ${JSON.stringify(path)} must be absolute and use only letters, digits, ".", "_", "-" and "/"`);
    }
  }
  const users = input.users.map((user, index) => `  user ${index + 2} true "${user.username}" "${user.password}" ${user.privilege} 10 md5`);
  return [
    `name "${input.name}"`,
    'set_working_mc 0x20',
    '  startlan 1',
    `    addr 127.0.0.1 ${input.port}`,
    '    priv_limit admin',
    '    allowed_auths_callback md5',
    '    allowed_auths_user md5',
    '    allowed_auths_operator md5',
    '    allowed_auths_admin md5',
    '    guid a123456789abcdefa123456789abcdef',
    '  endlan',
    `  chassis_control "${input.scriptPath} ${input.stateDir}"`,
    ...users,
    '',
  ].join('\n');
}

/** A FRU "type/length" field: 8-bit ASCII (type 11b), at most 63 bytes. */
function typeLength(text: string): number[] {
  const bytes = [...Buffer.from(text, 'latin1')];
  if (bytes.length > 63) {
    throw new Error(`FRU field ${JSON.stringify(text)} is longer than 63 bytes`);
  }
  return [0xc0 | bytes.length, ...bytes];
}

function zeroChecksum(bytes: readonly number[]): number {
  return (0x100 - (bytes.reduce((sum, b) => sum + b, 0) % 0x100)) % 0x100;
}

/** Product Info Area: version 1, length in 8-byte units, English, fields, end marker, padding, checksum. */
function productArea(product: FRUProductInfo): number[] {
  const fields = [product.manufacturer, product.productName, product.partNumber ?? '', product.version ?? '', product.serialNumber, '', ''];
  const body = [0x01, 0x00, 0x00, ...fields.flatMap(typeLength), 0xc1];
  while ((body.length + 1) % 8 !== 0) {
    body.push(0x00);
  }
  body[1] = (body.length + 1) / 8;
  return [...body, zeroChecksum(body)];
}

/** FRU data in the IPMI Platform Management FRU format: common header, then the product area at offset 8. */
export function encodeFRU(product: FRUProductInfo): number[] {
  const header = [0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00];
  return [...header, zeroChecksum(header), ...productArea(product)];
}

/** The .emu file: one BMC at 0x20 (IPMI 2.0, MontaVista's manufacturer ID), SEL, optional FRU 0. */
export function renderEmu(fru: FRUProductInfo | undefined): string {
  const lines = ['mc_setbmc 0x20', 'mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr', 'sel_enable 0x20 50 0x0a'];
  if (fru !== undefined) {
    const data = encodeFRU(fru);
    lines.push(`mc_add_fru_data 0x20 0 ${data.length} data ${data.map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ')}`);
  }
  lines.push('mc_enable 0x20', '');
  return lines.join('\n');
}

/**
 * The chassis-control program ipmi_sim runs (through popen) for every chassis request:
 *   <script> <state-dir> get power|boot …   prints power:<0|1> / boot:<name>
 *   <script> <state-dir> set <item> <value> … power 0|1, shutdown 1, reset 1, boot <name>, identify "<s> <f>"
 * State lives in <state-dir>/power and <state-dir>/boot (replaced atomically); every "set" is
 * appended to <state-dir>/events.log as "<epoch seconds.nanoseconds> set <item> <value>". While
 * <state-dir>/fail exists every request exits 1, which ipmitool sees as completion code 0xFF.
 */
export const CHASSIS_SCRIPT = `#!/bin/sh
# ipmi_sim chassis-control program, generated by Ironhook (emulators/ipmi/files.ts).
d="$1"
shift
if [ -f "$d/fail" ]; then
  echo "$(date +%s.%N) fail $*" >> "$d/events.log"
  exit 1
fi
put() { printf '%s\\n' "$2" > "$d/$1.tmp" && mv "$d/$1.tmp" "$d/$1"; }
verb="$1"
shift
case "$verb" in
  get)
    for item in "$@"; do
      case "$item" in
        power) echo "power:$(cat "$d/power" 2>/dev/null || echo 0)" ;;
        boot) echo "boot:$(cat "$d/boot" 2>/dev/null || echo none)" ;;
      esac
    done
    ;;
  set)
    while [ $# -ge 2 ]; do
      item="$1"
      value="$2"
      shift 2
      case "$item" in
        power) put power "$value" ;;
        shutdown) put power 0 ;;
        boot) put boot "$value" ;;
      esac
      echo "$(date +%s.%N) set $item $value" >> "$d/events.log"
    done
    ;;
  *)
    exit 1
    ;;
esac
exit 0
`;
