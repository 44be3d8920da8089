// BMC address parsing and driver selection: BMO's hardwareutils (bmc.NewAccessDetails and every
// AccessDetails fact) against domain/bmc's parseBMCAddress and the scheme capabilities, for random
// addresses. Upstream's error texts are compared too: Ironhook reports upstream's messages.
import { isDeepStrictEqual } from 'node:util';

import { beforeAll, describe, expect, it } from 'vitest';

import { defaultSchemeRegistry, parseBMCAddress, parseBMCAddressAsUpstream, redfishBaseURL } from '../../domain/bmc/index.js';
import type { BMCAddressErrorReason, ParsedBMCAddress } from '../../domain/bmc/index.js';
import { bmcCase, UPSTREAM_SCHEMES } from './bmc-cases.js';
import type { BMCCase } from './bmc-cases.js';
import { askOracle, expectIdentical, runSweep, verdictOf } from './oracle.js';
import type { OracleAnswer, Verdict } from './oracle.js';

// The fake credentials the oracle builds every DriverInfo with (tools/oracle/area_bmc.go).
const USERNAME = 'oracle-user';
const PASSWORD = 'oracle-password';

/** What upstream says about an accepted address, as the oracle reports it. */
interface UpstreamFacts {
  readonly type: string;
  readonly driver: string;
  readonly needsMAC: boolean;
  readonly driverInfo: Record<string, unknown>;
  readonly biosInterface: string;
  readonly bootInterface: string;
  readonly firmwareInterface: string;
  readonly managementInterface: string;
  readonly powerInterface: string;
  readonly raidInterface: string;
  readonly vendorInterface: string;
  readonly supportsSecureBoot: boolean;
  readonly supportsISOPreprovisioningImage: boolean;
  readonly requiresProvisioningNetwork: boolean;
  readonly biosSettingsWithoutConfig: { readonly settings: unknown; readonly error: string | null };
  readonly biosSettingsError: string | null;
}

/** Ironic's boot interface for each Ironhook boot method. */
const BOOT_METHOD_OF_INTERFACE: Readonly<Record<string, string>> = {
  ipxe: 'ipxe',
  'redfish-virtual-media': 'virtual-media',
  'idrac-redfish-virtual-media': 'virtual-media',
  'redfish-https': 'uefi-http',
};

/** Ironhook keeps a port as a number: upstream's "0623" and "" (after a colon) read as 623 and no port. */
function normalisedPort(port: string): string {
  return port === '' ? '' : String(Number(port));
}

/** redfish_address with its port normalised like Ironhook's (the host part is kept as written). */
function normalisedRedfishAddress(address: string): string {
  const match = /^(.*?:\/\/(?:\[[^\]]*\]|[^:]*))(?::(\d*))?$/u.exec(address);
  if (match === null) return address;
  const port = normalisedPort(match[2] ?? '');
  return port === '' ? match[1]! : `${match[1]!}:${port}`;
}

function normalisedDriverInfo(info: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...info };
  if (typeof info.ipmi_port === 'string') out.ipmi_port = normalisedPort(info.ipmi_port);
  if (typeof info.redfish_address === 'string') out.redfish_address = normalisedRedfishAddress(info.redfish_address);
  // redfish-uefihttp always sends the path; "" is Ironic's "no system id" (Ironhook: undefined).
  if (info.redfish_system_id === '') delete out.redfish_system_id;
  return out;
}

/** The idrac-redfish OEM interfaces (BIOS, management, power, vendor): all of them, none, or a mix. */
function oemInterfaces(facts: UpstreamFacts): string {
  const all = [facts.biosInterface, facts.managementInterface, facts.powerInterface, facts.vendorInterface];
  if (all.every((name) => name === 'idrac-redfish')) return 'idrac-redfish';
  return all.every((name) => name === '') ? 'none' : `mixed: ${all.join(',')}`;
}

/** Upstream's facts in Ironhook's terms (docs/compatibility.md lists each correspondence). */
function upstreamInIronhookTerms(facts: UpstreamFacts): Record<string, unknown> {
  const bios = facts.biosSettingsWithoutConfig;
  return {
    type: facts.type,
    driver: facts.driver,
    // A documented deviation: Ironhook follows BMO main's NeedsMAC, true for libvirt only; v0.13.1
    // also says true for redfish, ilo5-redfish, idrac-redfish and redfish-uefihttp.
    needsMAC: facts.needsMAC && facts.type === 'libvirt',
    bootMethod: BOOT_METHOD_OF_INTERFACE[facts.bootInterface] ?? `boot interface ${facts.bootInterface}`,
    // A documented deviation (7): no Ironhook driver configures RAID or applies firmware settings
    // yet, so Ironhook's table says false where upstream's Redfish family has those interfaces.
    supportsRAID: false,
    supportsFirmware: false,
    oemInterfaces: oemInterfaces(facts),
    supportsSecureBoot: facts.supportsSecureBoot,
    bootsISO: facts.supportsISOPreprovisioningImage,
    needsProvisioningNetwork: facts.requiresProvisioningNetwork,
    rejectsFirmwareConfig: bios.settings === null && bios.error === null && facts.biosSettingsError !== null,
    driverInfo: normalisedDriverInfo(facts.driverInfo),
  };
}

/** The driver info Ironic would get for Ironhook's parse: the same connection facts. */
function driverInfoOf(bmc: ParsedBMCAddress, disableCertificateVerification: boolean): Record<string, unknown> {
  if (bmc.addressKind === 'ipmi') {
    return {
      ipmi_address: bmc.host,
      ipmi_port: String(bmc.port),
      ipmi_priv_level: bmc.privilegeLevel,
      ipmi_username: USERNAME,
      ipmi_password: PASSWORD,
      ...(disableCertificateVerification ? { ipmi_verify_ca: false } : {}),
    };
  }
  return {
    redfish_address: redfishBaseURL(bmc),
    redfish_username: USERNAME,
    redfish_password: PASSWORD,
    ...(bmc.systemId === undefined ? {} : { redfish_system_id: bmc.systemId }),
    ...(disableCertificateVerification ? { redfish_verify_ca: false } : {}),
  };
}

function ironhookFacts(bmc: ParsedBMCAddress, c: BMCCase): Record<string, unknown> {
  const capabilities = bmc.capabilities;
  return {
    type: bmc.scheme,
    driver: bmc.driver,
    needsMAC: capabilities.needsBootMAC,
    bootMethod: capabilities.bootMethod,
    supportsRAID: capabilities.supportsRAID,
    supportsFirmware: capabilities.supportsFirmware,
    // Ironhook's idrac family is upstream's idrac hardware type (Ironhook itself speaks standard Redfish to it).
    oemInterfaces: bmc.driver === 'idrac' ? 'idrac-redfish' : 'none',
    supportsSecureBoot: capabilities.supportsSecureBoot,
    bootsISO: capabilities.bootsISO,
    needsProvisioningNetwork: capabilities.needsProvisioningNetwork,
    // spec.firmware is refused for every driver (the CRD rule "!has(self.firmware)").
    rejectsFirmwareConfig: true,
    driverInfo: driverInfoOf(bmc, c.disableCertificateVerification),
  };
}

/** The reasons of Ironhook's deliberate strictness (docs/compatibility.md, and the pinned cases below). */
const STRICTER: ReadonlySet<BMCAddressErrorReason> = new Set(['host-required', 'host-brackets', 'port-range']);
const deviations = new Map<BMCAddressErrorReason, number>();

function verdictOfParse(parsed: ReturnType<typeof parseBMCAddress>, c: BMCCase): Verdict {
  if (parsed.kind === 'none') return { accepted: false, error: 'missing BMC address' };
  if (parsed.kind === 'invalid') return { accepted: false, error: parsed.error.message };
  return { accepted: true, value: ironhookFacts(parsed.bmc, c) };
}

/**
 * Ironhook's verdict. An address refused only by Ironhook's stricter rules is a documented
 * deviation: it is counted, and what upstream makes of it is compared with Ironhook's reading
 * without those rules (parseBMCAddressAsUpstream), so the rules hide nothing else.
 */
function ours(c: BMCCase): Verdict {
  const parsed = parseBMCAddress(c.address);
  if (parsed.kind === 'invalid' && STRICTER.has(parsed.error.reason)) {
    deviations.set(parsed.error.reason, (deviations.get(parsed.error.reason) ?? 0) + 1);
    return verdictOfParse(parseBMCAddressAsUpstream(c.address), c);
  }
  return verdictOfParse(parsed, c);
}

function theirs(answer: OracleAnswer): Verdict {
  const verdict = verdictOf(answer);
  return verdict.accepted ? { accepted: true, value: upstreamInIronhookTerms(verdict.value as UpstreamFacts) } : verdict;
}

function withoutRedfishAddress(verdict: Verdict): Verdict {
  if (!verdict.accepted) return verdict;
  const value = verdict.value as { driverInfo: Record<string, unknown> };
  const driverInfo = Object.fromEntries(Object.entries(value.driverInfo).filter(([key]) => key !== 'redfish_address'));
  return { accepted: true, value: { ...value, driverInfo } };
}

/**
 * Identical: both accept with the same facts, or both reject with the same message. For an
 * unbracketed IPv6 host (the host-brackets deviation) upstream's redfish_address is the host and
 * port as written ("https://fd00::5:8443"), which Ironhook cannot write back: it is left out.
 */
function same(a: Verdict, b: Verdict, c: BMCCase): boolean {
  const parsed = parseBMCAddress(c.address);
  if (parsed.kind === 'invalid' && parsed.error.reason === 'host-brackets') return isDeepStrictEqual(withoutRedfishAddress(a), withoutRedfishAddress(b));
  return isDeepStrictEqual(a, b);
}

describe('differential: BMC addresses (BMO hardwareutils v0.13.1)', () => {
  it('registers exactly the schemes upstream registers (each one is swept)', () => {
    expect(defaultSchemeRegistry.names()).toEqual([...UPSTREAM_SCHEMES].sort());
  });

  it('parses random addresses as upstream does: accepted or not, the message, the driver and every capability', () => {
    deviations.clear();
    const report = runSweep({ area: 'bmc', arbitrary: bmcCase, defaultCases: 3000, ours, theirs, same });
    console.log(`bmc: of these, refused only by Ironhook's stricter rules (compared without them): ${JSON.stringify(Object.fromEntries(deviations))}`);
    expectIdentical(report, 8);
  });
});

// Each deviation pinned with both answers: upstream's (from the oracle) and Ironhook's.
describe('documented deviations (docs/compatibility.md)', () => {
  const PINNED = [
    'ipmi://',
    'redfish://:8443/x',
    '/redfish/v1/Systems/1',
    'ipmi://fd00::5:623',
    'redfish://fd00::5:8443/x',
    '[10.0.0.5]:623',
    '[bmc-7]:623',
    'ipmi://10.0.0.5:65536',
    'redfish://10.0.0.5:99999',
    'redfish-uefihttp://10.0.0.5',
    'ipmi://10.0.0.5:0623',
    'redfish://10.0.0.5:/x',
    'idrac-virtualmedia://10.0.0.5',
    'redfish://10.0.0.5',
    'ilo5-redfish+http://10.0.0.5',
    'idrac-redfish://10.0.0.5',
    'redfish-uefihttp://10.0.0.5/x',
    'libvirt://10.0.0.5',
    'redfish-virtualmedia://10.0.0.5',
    'ipmi://10.0.0.5',
  ];
  const upstream = new Map<string, OracleAnswer>();

  beforeAll(() => {
    const answers = askOracle(
      'bmc',
      PINNED.map((address) => ({ address, disableCertificateVerification: false })),
    );
    PINNED.forEach((address, index) => upstream.set(address, answers[index]!));
  });

  function upstreamFacts(address: string): UpstreamFacts {
    const answer = upstream.get(address);
    if (answer === undefined || !('ok' in answer)) throw new Error(`upstream rejects ${address}: ${JSON.stringify(answer)}`);
    return answer.ok as UpstreamFacts;
  }

  function ironhookReason(address: string): string {
    const parsed = parseBMCAddress(address);
    return parsed.kind === 'invalid' ? parsed.error.reason : parsed.kind;
  }

  function ironhookParsed(address: string): ParsedBMCAddress {
    const parsed = parseBMCAddress(address);
    if (parsed.kind !== 'parsed') throw new Error(`Ironhook rejects ${address}: ${JSON.stringify(parsed)}`);
    return parsed.bmc;
  }

  it.each([
    ['ipmi://', { ipmi_address: '', ipmi_port: '623' }],
    ['redfish://:8443/x', { redfish_address: 'https://:8443', redfish_system_id: '/x' }],
    ['/redfish/v1/Systems/1', { ipmi_address: '', ipmi_port: '623' }],
  ])('host required: upstream admits %s with an empty host, Ironhook refuses it', (address, driverInfo) => {
    expect(upstreamFacts(address).driverInfo).toMatchObject(driverInfo);
    expect(ironhookReason(address)).toBe('host-required');
  });

  it.each([
    ['ipmi://fd00::5:623', { ipmi_address: 'fd00::5', ipmi_port: '623' }],
    ['redfish://fd00::5:8443/x', { redfish_address: 'https://fd00::5:8443' }],
    ['[10.0.0.5]:623', { ipmi_address: '10.0.0.5', ipmi_port: '623' }],
    ['[bmc-7]:623', { ipmi_address: 'bmc-7', ipmi_port: '623' }],
  ])('brackets: upstream admits %s (IPv6 unbracketed, or a non-IPv6 host bracketed), Ironhook refuses it', (address, driverInfo) => {
    expect(upstreamFacts(address).driverInfo).toMatchObject(driverInfo);
    expect(ironhookReason(address)).toBe('host-brackets');
  });

  it.each([
    ['ipmi://10.0.0.5:65536', { ipmi_port: '65536' }],
    ['redfish://10.0.0.5:99999', { redfish_address: 'https://10.0.0.5:99999' }],
  ])('port range: upstream admits %s, Ironhook refuses ports above 65535', (address, driverInfo) => {
    expect(upstreamFacts(address).driverInfo).toMatchObject(driverInfo);
    expect(ironhookReason(address)).toBe('port-range');
  });

  it('redfish-uefihttp without a path: upstream sends redfish_system_id "", Ironhook leaves the system to the driver', () => {
    expect(upstreamFacts('redfish-uefihttp://10.0.0.5').driverInfo.redfish_system_id).toBe('');
    expect(ironhookParsed('redfish-uefihttp://10.0.0.5').systemId).toBeUndefined();
  });

  it('a port is a number: upstream passes "0623" and "https://h:" on, Ironhook means 623 and no port', () => {
    expect(upstreamFacts('ipmi://10.0.0.5:0623').driverInfo.ipmi_port).toBe('0623');
    expect(ironhookParsed('ipmi://10.0.0.5:0623').port).toBe(623);
    expect(upstreamFacts('redfish://10.0.0.5:/x').driverInfo.redfish_address).toBe('https://10.0.0.5:');
    expect(redfishBaseURL(ironhookParsed('redfish://10.0.0.5:/x'))).toBe('https://10.0.0.5');
  });

  it.each([
    ['redfish://10.0.0.5', true, false],
    ['ilo5-redfish+http://10.0.0.5', true, false],
    ['idrac-redfish://10.0.0.5', true, false],
    ['redfish-uefihttp://10.0.0.5/x', true, false],
    ['libvirt://10.0.0.5', true, true],
    ['redfish-virtualmedia://10.0.0.5', false, false],
    ['ipmi://10.0.0.5', false, false],
  ])('NeedsMAC follows BMO main: %s needs a boot MAC upstream (v0.13.1) %s, Ironhook %s', (address, upstreamNeedsMAC, ironhookNeedsMAC) => {
    expect(upstreamFacts(address).needsMAC).toBe(upstreamNeedsMAC);
    expect(ironhookParsed(address).capabilities.needsBootMAC).toBe(ironhookNeedsMAC);
  });

  it.each(['redfish://10.0.0.5', 'idrac-virtualmedia://10.0.0.5', 'redfish-uefihttp://10.0.0.5/x', 'ipmi://10.0.0.5'])(
    "RAID and firmware as Ironhook's drivers can do them: %s has upstream's RAID and firmware interfaces or none, Ironhook claims neither",
    (address) => {
      const facts = upstreamFacts(address);
      const redfishFamily = !address.startsWith('ipmi');
      expect([facts.raidInterface !== 'no-raid', facts.firmwareInterface !== '']).toEqual([redfishFamily, redfishFamily]);
      expect([ironhookParsed(address).capabilities.supportsRAID, ironhookParsed(address).capabilities.supportsFirmware]).toEqual([false, false]);
    },
  );

  it('Ironic interfaces have no Ironhook counterpart: the idrac family speaks standard Redfish', () => {
    const facts = upstreamFacts('idrac-virtualmedia://10.0.0.5');
    expect([facts.biosInterface, facts.managementInterface, facts.powerInterface, facts.raidInterface, facts.vendorInterface]).toEqual(
      Array(5).fill('idrac-redfish'),
    );
    expect(facts.bootInterface).toBe('idrac-redfish-virtual-media');
    expect(ironhookParsed('idrac-virtualmedia://10.0.0.5')).toMatchObject({
      driver: 'idrac',
      capabilities: { bootMethod: 'virtual-media', supportsRAID: false },
    });
  });
});
