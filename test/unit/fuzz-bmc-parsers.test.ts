// Fuzzed BMC answers: ipmitool output for every IPMI parser, and Redfish services (a well-formed
// tree with one resource, field or write answer made hostile) for every Redfish driver
// operation. Each must end in a well-formed result or the module's own classified error
// (IPMIParseError, BMCError), never a TypeError, a RangeError or a runaway loop, and no error
// carries the password. FUZZ_SEED and FUZZ_RUNS: test/support/fuzz-knobs.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type { BMCDriver } from '../../drivers/bmc/types.js';
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
import { createRedfishDriver } from '../../drivers/redfish/index.js';
import { awkwardString, hostileValue, isObject, nearValue, pathsIn, valueAt, withValue, type Json } from '../support/fuzz-json.js';
import { fuzz } from '../support/fuzz-knobs.js';
import { instantClock, redfishTree, RunawayError, treeTransport, type Tree } from '../support/fuzz-redfish.js';

const PASSWORD = 'fuzz-bmc-Pa55w0rd-77c1';

const IPMI_SAMPLES = [
  'Chassis Power is on\n',
  'Chassis Power Control: Up/On\n',
  'Set Boot Device to pxe\n',
  '\n',
  'Device ID                 : 0\nFirmware Revision         : 9.08\nIPMI Version              : 2.0\nManufacturer ID           : 4753\nProduct Name              : Unknown (0xF02)\n',
  'FRU Device Description : Builtin FRU Device (ID 0)\n Product Manufacturer  : Ironhook Labs\n Product Name          : IH-1000\n Product Serial        : SN-0042\n',
  'Boot parameter version: 1\nBoot parameter 5 is valid/unlocked\n Boot Flags :\n   - Boot Flag Valid\n   - Options apply to all future boots\n   - BIOS EFI boot\n   - Boot Device Selector : Force PXE\n',
];

const PARSERS: readonly [string, (stdout: string) => unknown][] = [
  ['parsePowerStatus', parsePowerStatus],
  [
    'parsePowerControlAck',
    (s) => {
      parsePowerControlAck(s, 'on');
    },
  ],
  [
    'parseBootdevAck',
    (s) => {
      parseBootdevAck(s, 'pxe');
    },
  ],
  ['parseRawEmpty', parseRawEmpty],
  ['parseKeyValues', parseKeyValues],
  ['parseMCInfo', parseMCInfo],
  ['parseFRU', parseFRU],
  ['parseBootParameters', parseBootParameters],
];

/** A sample with something inserted, a line repeated or cut, or no sample at all. */
const ipmiOutput: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...IPMI_SAMPLES), fc.nat(), awkwardString)
    .map(([sample, at, text]) => sample.slice(0, at % (sample.length + 1)) + text + sample.slice(at % (sample.length + 1))),
  fc.tuple(fc.constantFrom(...IPMI_SAMPLES), fc.nat()).map(([sample, at]) => sample.slice(0, at % (sample.length + 1))),
  fc
    .tuple(fc.constantFrom(' ', '\t', ' :', '- Boot Device Selector : x', '\r\n'), fc.integer({ min: 1, max: 5_000 }))
    .map(([unit, n]) => `${unit.repeat(n)}x\n`),
  awkwardString,
  fc.string({ unit: 'binary', maxLength: 300 }),
);

describe('fuzzed ipmitool output', () => {
  it('every parser returns a value or throws IPMIParseError', async () => {
    await fuzz(
      fc.property(ipmiOutput, (stdout) => {
        for (const [name, parse] of PARSERS) {
          try {
            parse(stdout);
          } catch (error) {
            expect(error, `${name} threw something else`).toBeInstanceOf(IPMIParseError);
          }
        }
      }),
      300,
    );
  });
});

type Operation = [string, (driver: BMCDriver) => Promise<unknown>, (result: unknown) => boolean];

const wellFormedJson = (result: unknown): boolean => JSON.stringify(result) === JSON.stringify(JSON.parse(JSON.stringify(result)));
const OPERATIONS: readonly Operation[] = [
  ['getPower', async (d) => d.getPower(), (r) => r === 'on' || r === 'off'],
  ['inventory', async (d) => d.inventory(), (r) => isObject(r as Json) && wellFormedJson(r)],
  ['getVirtualMedia', async (d) => d.getVirtualMedia(), (r) => isObject(r as Json) && typeof (r as { inserted: unknown }).inserted === 'boolean'],
  ['check', async (d) => d.check(), (r) => isObject(r as Json) && wellFormedJson(r)],
  ['setPower on', async (d) => d.setPower('on'), (r) => r === undefined],
  ['setPower reboot', async (d) => d.setPower('reboot'), (r) => r === undefined],
  ['setBootDevice', async (d) => d.setBootDevice({ device: 'pxe', persistent: false, mode: 'UEFI' }), (r) => r === undefined],
  ['insertVirtualMedia', async (d) => d.insertVirtualMedia('http://192.0.2.9/live.iso'), (r) => r === undefined],
  ['ejectVirtualMedia', async (d) => d.ejectVirtualMedia(), (r) => r === undefined],
];

const STATUSES = [200, 201, 202, 204, 301, 400, 401, 403, 404, 405, 409, 412, 429, 500, 501, 503];
const HEADERS = fc.record(
  { location: fc.oneof(awkwardString, fc.constant('/redfish/v1/TaskService/Tasks/1')), 'retry-after': fc.oneof(awkwardString, fc.constant('1')) },
  { requiredKeys: [] },
);
const answer = fc.record({ status: fc.constantFrom(...STATUSES), headers: HEADERS, body: fc.oneof(hostileValue, fc.constant(undefined)) });

interface RedfishCase {
  tree: Tree;
  write: Tree[string];
  what: string;
}

/** One resource answered otherwise, or one field in it edited; writes answered some way. */
function redfishCase(): fc.Arbitrary<RedfishCase> {
  const base = redfishTree();
  const resources = Object.keys(base);
  const edit = fc.constantFrom(...resources).chain((path) => {
    const body = base[path]?.body as Json;
    const fields = pathsIn({ body }, ['body']).map((p) => p.slice(1));
    return fc.oneof(
      answer.map((a) => ({ path, what: `${path} answered ${a.status}`, answer: a })),
      fc.tuple(fc.constantFrom(...fields), fc.oneof(hostileValue, fc.constant(undefined))).map(([field, v]) => ({
        path,
        what: `${path} with /${field.join('/')} = ${v === undefined ? 'removed' : JSON.stringify(v).slice(0, 80)}`,
        answer: { status: 200, headers: {}, body: withValue(body, field, v) },
      })),
      fc.constantFrom(...fields).chain((field) =>
        nearValue(valueAt(body, field) as Json).map((v) => ({
          path,
          what: `${path} with /${field.join('/')} near ${JSON.stringify(v).slice(0, 80)}`,
          answer: { status: 200, headers: {}, body: withValue(body, field, v) },
        })),
      ),
    );
  });
  const write = fc.oneof(fc.constant({ status: 204, headers: {}, body: undefined }), answer);
  return fc.tuple(edit, write).map(([e, w]) => ({ tree: { ...base, [e.path]: e.answer }, write: w, what: `${e.what}; writes answered ${w.status}` }));
}

function driverFor(c: RedfishCase): BMCDriver {
  const parsed = parseBMCAddress('redfish+http://127.0.0.1:9/redfish/v1/Systems/1');
  if (parsed.kind !== 'parsed') throw new Error('address does not parse');
  return createRedfishDriver({
    address: parsed.bmc,
    credentials: { username: 'admin', password: PASSWORD },
    disableCertificateVerification: false,
    timeoutMs: 1_000,
    authMode: 'basic',
    clock: instantClock(),
    transport: treeTransport(c.tree, c.write),
  });
}

describe('fuzzed Redfish services', () => {
  it('every driver operation ends in a well-formed result or a BMCError without the password', async () => {
    const cases = fc
      .tuple(redfishCase(), fc.constantFrom(...OPERATIONS))
      .map(([c, op]) => ({ c, op, [fc.toStringMethod]: () => `${op[0]} against ${c.what}` }));
    await fuzz(
      fc.asyncProperty(cases, async ({ c, op: [name, run, wellFormed] }) => {
        const driver = driverFor(c);
        try {
          const result = await run(driver);
          expect(wellFormed(result), `${name} answered ${JSON.stringify(result)}`).toBe(true);
        } catch (error) {
          expect(error, `${name} failed with ${String(error)}`).not.toBeInstanceOf(RunawayError);
          expect(error, `${name} failed with ${String(error)}`).toBeInstanceOf(BMCError);
          expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain(PASSWORD);
        } finally {
          await driver.close();
        }
      }),
      300,
    );
  }, 120_000);

  it('the un-fuzzed service answers every operation (a reboot waits for an off state it never shows)', async () => {
    for (const [name, run, wellFormed] of OPERATIONS.filter(([name]) => name !== 'setPower reboot')) {
      const driver = driverFor({ tree: redfishTree(), write: { status: 204, headers: {}, body: undefined }, what: 'base' });
      const result = await run(driver);
      expect(wellFormed(result), name).toBe(true);
      await driver.close();
    }
  });
});
