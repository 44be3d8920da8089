// Strict parsers for ipmitool's stdout (drivers/ipmi/parse.ts): every documented form is
// accepted, anything else is an IPMIParseError. Outputs are copied from ipmitool 1.8.19
// against ipmi_sim (OpenIPMI 2.0.33) unless a row says otherwise.
import { describe, expect, it } from 'vitest';
import {
  IPMIParseError,
  parseBootParameters,
  parseBootdevAck,
  parseFRU,
  parseKeyValues,
  parseMCInfo,
  parsePowerControlAck,
  parsePowerStatus,
  parseRawEmpty,
} from '../../drivers/ipmi/parse.js';

const MC_INFO_SIM = `Device ID                 : 0
Device Revision           : 3
Firmware Revision         : 9.08
IPMI Version              : 2.0
Manufacturer ID           : 4753
Manufacturer Name         : MontaVista Software, Inc.
Product ID                : 3842 (0x0f02)
Product Name              : Unknown (0xF02)
Device Available          : yes
Provides Device SDRs      : no
Additional Device Support :
    Sensor Device
    SDR Repository Device
    SEL Device
    FRU Inventory Device
    IPMB Event Receiver
    Chassis Device
Aux Firmware Rev Info     : 
    0x00
    0x00
    0x00
    0x00
`;

const FRU_PRODUCT = ` Product Manufacturer  : Ironhook Labs
 Product Name          : IH-1000
 Product Part Number   : PN-1
 Product Version       : v1
 Product Serial        : SN-0042
`;

// A typical server FRU (shape from ipmitool's fru print on real hardware).
const FRU_BOARD_ONLY = `FRU Device Description : Builtin FRU Device (ID 0)
 Chassis Type          : Rack Mount Chassis
 Chassis Serial        : CH-77
 Board Mfg Date        : Mon Jan  1 00:00:00 2024 UTC
 Board Mfg             : Example Boards Inc.
 Board Product         : X11-Board
 Board Serial          : BRD-123
`;

const BOOTPARAM_SIM = `Boot parameter version: 1
Boot parameter 5 is valid/unlocked
Boot parameter data: 0004000000
 Boot Flags :
   - Boot Flag Invalid
   - Options apply to only next boot
   - BIOS PC Compatible (legacy) boot 
   - Boot Device Selector : Force PXE
   - BIOS verbosity : System Default
   - Console Redirection control : Console redirection occurs per BIOS configuration setting (default)
   - BIOS Mux Control Override : BIOS uses recommended setting of the mux at the end of POST
`;

// What a BMC that keeps the flags reports after `raw 0x00 0x08 0x05 0xe0 0x04 …` (form from ipmitool's source).
const BOOTPARAM_PERSISTENT_EFI = `Boot parameter version: 1
Boot parameter 5 is valid/unlocked
Boot parameter data: e004000000
 Boot Flags :
   - Boot Flag Valid
   - Options apply to all future boots
   - BIOS EFI boot 
   - Boot Device Selector : Force PXE
`;

describe('parsePowerStatus: exactly "Chassis Power is on|off"', () => {
  const rows: { name: string; stdout: string; expected: 'on' | 'off' | 'error' }[] = [
    { name: 'on with newline', stdout: 'Chassis Power is on\n', expected: 'on' },
    { name: 'off with newline', stdout: 'Chassis Power is off\n', expected: 'off' },
    { name: 'on without newline', stdout: 'Chassis Power is on', expected: 'on' },
    { name: 'empty output', stdout: '', expected: 'error' },
    { name: 'two newlines', stdout: 'Chassis Power is on\n\n', expected: 'error' },
    { name: 'capitalised state', stdout: 'Chassis Power is On\n', expected: 'error' },
    { name: 'unknown state', stdout: 'Chassis Power is unknown\n', expected: 'error' },
    { name: 'leading space', stdout: ' Chassis Power is off\n', expected: 'error' },
    { name: 'trailing garbage', stdout: 'Chassis Power is off; reboot\n', expected: 'error' },
    { name: 'power control ack instead', stdout: 'Chassis Power Control: Up/On\n', expected: 'error' },
    { name: 'two answers', stdout: 'Chassis Power is on\nChassis Power is off\n', expected: 'error' },
    { name: 'CRLF', stdout: 'Chassis Power is on\r\n', expected: 'error' },
    { name: 'binary garbage', stdout: '\u0000\u00ff\u0001', expected: 'error' },
  ];
  it.each(rows)('$name', ({ stdout, expected }) => {
    if (expected === 'error') {
      expect(() => parsePowerStatus(stdout)).toThrow(IPMIParseError);
    } else {
      expect(parsePowerStatus(stdout)).toBe(expected);
    }
  });

  it('quotes long garbage shortened, never whole', () => {
    const error = (() => {
      try {
        parsePowerStatus('x'.repeat(500));
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message.length).toBeLessThan(150);
  });
});

describe('parsePowerControlAck: the acknowledgement line of each control', () => {
  const rows = [
    { name: 'on', control: 'on', stdout: 'Chassis Power Control: Up/On\n', ok: true },
    { name: 'off', control: 'off', stdout: 'Chassis Power Control: Down/Off\n', ok: true },
    { name: 'soft', control: 'soft', stdout: 'Chassis Power Control: Soft\n', ok: true },
    { name: 'cycle', control: 'cycle', stdout: 'Chassis Power Control: Cycle\n', ok: true },
    { name: 'reset', control: 'reset', stdout: 'Chassis Power Control: Reset\n', ok: true },
    { name: 'on without newline', control: 'on', stdout: 'Chassis Power Control: Up/On', ok: true },
    { name: 'off acknowledged as on', control: 'off', stdout: 'Chassis Power Control: Up/On\n', ok: false },
    { name: 'empty', control: 'on', stdout: '', ok: false },
    { name: 'status instead of ack', control: 'on', stdout: 'Chassis Power is on\n', ok: false },
  ] as const;
  it.each(rows)('$name', ({ control, stdout, ok }) => {
    const run = (): void => {
      parsePowerControlAck(stdout, control);
    };
    if (ok) {
      expect(run).not.toThrow();
    } else {
      expect(run).toThrow(IPMIParseError);
    }
  });
});

describe('parseBootdevAck and parseRawEmpty', () => {
  const bootdevRows = [
    { name: 'pxe', device: 'pxe', stdout: 'Set Boot Device to pxe\n', ok: true },
    { name: 'disk', device: 'disk', stdout: 'Set Boot Device to disk\n', ok: true },
    { name: 'cdrom', device: 'cdrom', stdout: 'Set Boot Device to cdrom\n', ok: true },
    { name: 'bios', device: 'bios', stdout: 'Set Boot Device to bios\n', ok: true },
    { name: 'other device acknowledged', device: 'pxe', stdout: 'Set Boot Device to disk\n', ok: false },
    { name: 'options help text', device: 'pxe', stdout: 'Legal options settings are:\n  help\n', ok: false },
    { name: 'empty', device: 'pxe', stdout: '', ok: false },
  ];
  it.each(bootdevRows)('bootdev: $name', ({ device, stdout, ok }) => {
    const run = (): void => {
      parseBootdevAck(stdout, device);
    };
    if (ok) {
      expect(run).not.toThrow();
    } else {
      expect(run).toThrow(IPMIParseError);
    }
  });

  const rawRows = [
    { name: 'empty line (what ipmitool prints for no data)', stdout: '\n', ok: true },
    { name: 'nothing', stdout: '', ok: true },
    { name: 'response bytes', stdout: ' 01 02\n', ok: false },
    { name: 'two empty lines', stdout: '\n\n', ok: false },
  ];
  it.each(rawRows)('raw: $name', ({ stdout, ok }) => {
    const run = (): void => {
      parseRawEmpty(stdout);
    };
    if (ok) {
      expect(run).not.toThrow();
    } else {
      expect(run).toThrow(IPMIParseError);
    }
  });
});

describe('parseMCInfo', () => {
  it('reads ipmi_sim', () => {
    expect(parseMCInfo(MC_INFO_SIM)).toEqual({
      manufacturerId: 4753,
      manufacturerName: 'MontaVista Software, Inc.',
      productId: '3842 (0x0f02)',
      productName: 'Unknown (0xF02)',
      firmwareRevision: '9.08',
      ipmiVersion: '2.0',
    });
  });

  const broken = [
    { name: 'empty', stdout: '' },
    { name: 'no Manufacturer ID', stdout: MC_INFO_SIM.replace(/^Manufacturer ID.*\n/m, '') },
    { name: 'no Firmware Revision', stdout: MC_INFO_SIM.replace(/^Firmware Revision.*\n/m, '') },
    { name: 'no IPMI Version', stdout: MC_INFO_SIM.replace(/^IPMI Version.*\n/m, '') },
    { name: 'Manufacturer ID not a number', stdout: MC_INFO_SIM.replace('4753', 'Unknown') },
    { name: 'garbage', stdout: 'Error: Unable to establish IPMI v2 / RMCP+ session\n' },
  ];
  it.each(broken)('rejects $name', ({ stdout }) => {
    expect(() => parseMCInfo(stdout)).toThrow(IPMIParseError);
  });

  it('keeps the first of repeated keys and skips continuation lines', () => {
    const fields = parseKeyValues('A  : 1\nA  : 2\n    0x00\nB : \n');
    expect([...fields]).toEqual([
      ['A', '1'],
      ['B', ''],
    ]);
  });
});

describe('parseFRU', () => {
  const rows = [
    { name: 'product area', stdout: FRU_PRODUCT, expected: { manufacturer: 'Ironhook Labs', productName: 'IH-1000', serialNumber: 'SN-0042' } },
    { name: 'board area only', stdout: FRU_BOARD_ONLY, expected: { manufacturer: 'Example Boards Inc.', productName: 'X11-Board', serialNumber: 'BRD-123' } },
    { name: 'nothing', stdout: '', expected: {} },
    { name: 'empty values', stdout: ' Product Manufacturer  : \n Product Name          : \n', expected: {} },
    // Found by fuzzing: a long whitespace run without a colon took cubic time in the key/value regex.
    { name: 'fuzz: a 3000-space line is skipped at once', stdout: `${' '.repeat(3_000)}x\n Product Name : IH-1000\n`, expected: { productName: 'IH-1000' } },
    { name: 'fuzz: CRLF lines are skipped as before', stdout: ' Product Name : IH-1000\r\n', expected: {} },
  ];
  it.each(rows)('$name', ({ stdout, expected }) => {
    expect(parseFRU(stdout)).toEqual(expected);
  });
});

describe('parseBootParameters (chassis bootparam get 5)', () => {
  // prettier-ignore
  const rows = [
    { name: 'ipmi_sim after bootdev pxe (flags not kept)', stdout: BOOTPARAM_SIM, expected: { selector: 'Force PXE', persistent: false, efi: false, valid: false } },
    { name: 'persistent EFI PXE', stdout: BOOTPARAM_PERSISTENT_EFI, expected: { selector: 'Force PXE', persistent: true, efi: true, valid: true } },
    { name: 'no override', stdout: BOOTPARAM_SIM.replace('Force PXE', 'No override'), expected: { selector: 'No override', persistent: false, efi: false, valid: false } },
    // Found by fuzzing: trailing whitespace before more text took quadratic time in the selector regex.
    { name: 'fuzz: a 30000-space selector tail is read at once', stdout: ` - Boot Device Selector : Force PXE${' '.repeat(30_000)}x\n`, expected: { selector: `Force PXE${' '.repeat(30_000)}x`, persistent: false, efi: false, valid: false } },
  ];
  it.each(rows)('$name', ({ stdout, expected }) => {
    expect(parseBootParameters(stdout)).toEqual(expected);
  });

  it('rejects output without a device selector', () => {
    expect(() => parseBootParameters('Boot parameter version: 1\n')).toThrow(IPMIParseError);
  });
});
