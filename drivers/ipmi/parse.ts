// Strict parsers for ipmitool's stdout. Each accepts exactly
// the documented forms and throws IPMIParseError for anything else, as Ironic treats any other
// power status text as an error.
import type { PowerState } from '../bmc/types.js';
import type { PowerControl } from './argv.js';

export class IPMIParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IPMIParseError';
  }
}

/** At most 80 characters of unexpected output, with control characters made visible. */
function excerpt(text: string): string {
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  return shown;
}

const POWER_STATUS = /^Chassis Power is (on|off)\n?$/;

/** "Chassis Power is on" or "Chassis Power is off", one optional newline, nothing else. */
export function parsePowerStatus(stdout: string): PowerState {
  const match = POWER_STATUS.exec(stdout);
  if (match === null) {
    throw new IPMIParseError(`unexpected power status output ${excerpt(stdout)}`);
  }
  return match[1] === 'on' ? 'on' : 'off';
}

const POWER_CONTROL_ACK: Record<PowerControl, string> = {
  on: 'Up/On',
  off: 'Down/Off',
  soft: 'Soft',
  cycle: 'Cycle',
  reset: 'Reset',
};

function expectLine(stdout: string, line: string, what: string): void {
  if (stdout !== line && stdout !== `${line}\n`) {
    throw new IPMIParseError(`unexpected ${what} output ${excerpt(stdout)}, expected ${excerpt(line)}`);
  }
}

/** "Chassis Power Control: Up/On" (Down/Off, Soft, Cycle, Reset). */
export function parsePowerControlAck(stdout: string, control: PowerControl): void {
  expectLine(stdout, `Chassis Power Control: ${POWER_CONTROL_ACK[control]}`, `power ${control}`);
}

/** "Set Boot Device to pxe". */
export function parseBootdevAck(stdout: string, device: string): void {
  expectLine(stdout, `Set Boot Device to ${device}`, `bootdev ${device}`);
}

/** A raw command whose response has no data bytes: ipmitool prints an empty line. */
export function parseRawEmpty(stdout: string): void {
  if (stdout !== '' && stdout !== '\n') {
    throw new IPMIParseError(`unexpected raw response ${excerpt(stdout)}, expected no data`);
  }
}

const LINE_BREAK = /[\r\u2028\u2029]/;

/**
 * One "Key    : value" line: whitespace before the first colon, the key trimmed, the value
 * trimmed; a value with a carriage return is no value. Read by hand: the regex this replaces
 * took cubic time on a long run of spaces without a colon.
 */
function keyValue(line: string): [string, string] | undefined {
  const colon = line.indexOf(':');
  if (colon <= 0 || line.slice(colon - 1, colon).trim() !== '') return undefined;
  const rest = line.slice(colon + 1);
  const value = rest.slice(rest.slice(0, 1).trim() === '' ? 1 : 0);
  return LINE_BREAK.test(value) ? undefined : [line.slice(0, colon).trim(), value.trim()];
}

/** "Key    : value" lines (first occurrence wins); indented continuation lines are skipped. */
export function parseKeyValues(stdout: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const [key, value] = keyValue(line) ?? [];
    if (key === undefined || value === undefined || key === '' || fields.has(key)) {
      continue;
    }
    fields.set(key, value);
  }
  return fields;
}

export interface MCInfo {
  manufacturerId: number;
  manufacturerName: string;
  productId: string;
  productName: string;
  firmwareRevision: string;
  ipmiVersion: string;
}

function required(fields: Map<string, string>, key: string, what: string): string {
  const value = fields.get(key);
  if (value === undefined) {
    throw new IPMIParseError(`${what} output has no "${key}" field`);
  }
  return value;
}

/** `mc info`: Manufacturer ID, Firmware Revision and IPMI Version are required. */
export function parseMCInfo(stdout: string): MCInfo {
  const fields = parseKeyValues(stdout);
  const idText = required(fields, 'Manufacturer ID', 'mc info');
  if (!/^\d+$/.test(idText)) {
    throw new IPMIParseError(`mc info Manufacturer ID ${excerpt(idText)} is not a number`);
  }
  return {
    manufacturerId: Number(idText),
    manufacturerName: fields.get('Manufacturer Name') ?? '',
    productId: fields.get('Product ID') ?? '',
    productName: fields.get('Product Name') ?? '',
    firmwareRevision: required(fields, 'Firmware Revision', 'mc info'),
    ipmiVersion: required(fields, 'IPMI Version', 'mc info'),
  };
}

export interface FRUProduct {
  manufacturer?: string;
  productName?: string;
  serialNumber?: string;
}

function firstOf(fields: Map<string, string>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = fields.get(key);
    if (value !== undefined && value !== '') {
      return value;
    }
  }
  return undefined;
}

/** `fru print 0`: the Product area, else the Board area; absent fields stay absent. */
export function parseFRU(stdout: string): FRUProduct {
  const fields = parseKeyValues(stdout);
  const product: FRUProduct = {};
  const manufacturer = firstOf(fields, ['Product Manufacturer', 'Board Mfg']);
  const productName = firstOf(fields, ['Product Name', 'Board Product']);
  const serialNumber = firstOf(fields, ['Product Serial', 'Board Serial', 'Chassis Serial']);
  if (manufacturer !== undefined) product.manufacturer = manufacturer;
  if (productName !== undefined) product.productName = productName;
  if (serialNumber !== undefined) product.serialNumber = serialNumber;
  return product;
}

export interface BootParameters {
  /** The "Boot Device Selector" text, e.g. "Force PXE", "No override". */
  selector: string;
  persistent: boolean;
  efi: boolean;
  valid: boolean;
}

const SELECTOR = '- Boot Device Selector : ';

/** `chassis bootparam get 5`: the device selector is required; flags come from their lines. */
export function parseBootParameters(stdout: string): BootParameters {
  // Line by line, not one multiline regex: `(.+?)\s*$` took quadratic time on trailing spaces.
  const selector = stdout
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map((line) => line.trimStart())
    .find((line) => line.startsWith(SELECTOR))
    ?.slice(SELECTOR.length)
    .trimEnd();
  if (selector === undefined || selector === '') {
    throw new IPMIParseError(`bootparam output has no Boot Device Selector: ${excerpt(stdout)}`);
  }
  return {
    selector,
    persistent: stdout.includes('Options apply to all future boots'),
    efi: stdout.includes('BIOS EFI boot'),
    valid: stdout.includes('Boot Flag Valid'),
  };
}
