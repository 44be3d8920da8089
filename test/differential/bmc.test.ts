// BMC address parsing and driver selection: BMO's hardwareutils (bmc.NewAccessDetails) against
// domain/bmc's parseBMCAddress, for random addresses.
import fc from 'fast-check';
import { describe, it } from 'vitest';

import { parseBMCAddress } from '../../domain/bmc/index.js';
import { expectIdentical, runSweep, verdictOf } from './oracle.js';
import type { Verdict } from './oracle.js';

interface BMCCase {
  readonly address: string;
}

const schemes = [
  'ipmi',
  'libvirt',
  'redfish',
  'redfish+http',
  'redfish+https',
  'redfish-virtualmedia',
  'idrac',
  'idrac-virtualmedia',
  'idrac-redfish',
  'ilo4',
  'ilo5',
  'irmc',
  'bogus',
];
const hosts = ['192.0.2.5', '[2001:db8::5]', 'bmc.example.test', 'h'];
const ports = ['', ':623', ':8443'];
const paths = ['', '/redfish/v1/Systems/1', '/'];

const bmcCase: fc.Arbitrary<BMCCase> = fc
  .tuple(fc.constantFrom(...schemes), fc.constantFrom(...hosts), fc.constantFrom(...ports), fc.constantFrom(...paths))
  .map(([scheme, host, port, path]) => ({ address: `${scheme}://${host}${port}${path}` }));

function ours(c: BMCCase): Verdict {
  const parsed = parseBMCAddress(c.address);
  if (parsed.kind !== 'parsed') return { accepted: false, error: parsed.kind === 'invalid' ? parsed.error.message : 'no address' };
  return { accepted: true, value: { driver: parsed.bmc.driver, type: parsed.bmc.scheme } };
}

function theirs(answer: Parameters<typeof verdictOf>[0]): Verdict {
  const verdict = verdictOf(answer);
  if (!verdict.accepted) return verdict;
  const value = verdict.value as { driver: string; type: string };
  return { accepted: true, value: { driver: value.driver, type: value.type } };
}

describe('differential: BMC addresses (BMO hardwareutils v0.13.1)', () => {
  it('parses random addresses as upstream does: accepted or not, the type and the driver', () => {
    expectIdentical(runSweep({ area: 'bmc', arbitrary: bmcCase, defaultCases: 300, ours, theirs }));
  });
});
