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

const KEY_VALUE = /^\s*([^:]*?)\s+:\s?(.*)$/;

/** "Key    : value" lines (first occurrence wins); indented continuation lines are skipped. */
export function parseKeyValues(stdout: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const match = KEY_VALUE.exec(line);
    const key = match?.[1];
    if (match === null || key === undefined || key === '' || fields.has(key)) {
      continue;
    }
    fields.set(key, (match[2] ?? '').trim());
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

/** `chassis bootparam get 5`: the device selector is required; flags come from their lines. */
export function parseBootParameters(stdout: string): BootParameters {
  const selector = /^\s*- Boot Device Selector : (.+?)\s*$/m.exec(stdout)?.[1];
  if (selector === undefined) {
    throw new IPMIParseError(`bootparam output has no Boot Device Selector: ${excerpt(stdout)}`);
  }
  return {
    selector,
    persistent: stdout.includes('Options apply to all future boots'),
    efi: stdout.includes('BIOS EFI boot'),
    valid: stdout.includes('Boot Flag Valid'),
  };
}
