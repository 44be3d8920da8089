// The CEL rules of the CRDs without an API server: every rule explains itself, transition rules
// sit where they belong, the regular expressions compile, and the BMC address rules agree with
// the domain parser and scheme registry the hooks and drivers use. The rules themselves run
// against a real kube-apiserver in test/e2e/validation.test.ts.
import { describe, expect, it } from 'vitest';
import { BUILTIN_SCHEMES, parseBMCAddress } from '../../domain/bmc/index.js';
import { crdByKind, loadCrds, regexesIn, rulesOf, schemaAt } from '../support/crds.js';
import type { SchemaNode, ValidationRule } from '../support/crds.js';

const crds = loadCrds();
const allRules = crds.flatMap((c) => rulesOf(c.schema).map(({ path, rule }) => ({ kind: c.crd.spec.names.kind, path, rule })));

describe('every CEL rule', () => {
  it.each(allRules.map((r) => [`${r.kind}${r.path || ' (root)'}`, r.rule] as const))('%s: %s', (_where, rule: ValidationRule) => {
    const text = rule.message ?? '';
    expect(text.length, 'a static message is the fallback when messageExpression fails').toBeGreaterThan(20);
    for (const regex of regexesIn(rule.rule)) {
      expect(() => new RegExp(regex, 'u')).not.toThrow();
    }
  });

  it('transition rules (oldSelf) exist exactly where updates are restricted', () => {
    const transitions = allRules.filter((r) => r.rule.rule.includes('oldSelf')).map((r) => `${r.kind}${r.path || ' (root)'}`);
    expect(transitions.sort()).toEqual([
      'BareMetalHost (root)', // bmc.address only while registering/detached
      'BareMetalHost (root)', // externallyProvisioned only from available
      'BareMetalHost.spec', // bootMACAddress immutable once set
      'HostOperation.spec', // the whole request is immutable
      'IPAddress.spec.address', // an allocation never moves
      'IPAddress.spec.claim',
      'IPAddress.spec.pool',
      'IPClaim.spec.pool', // a claim never changes pools
      'IPPool.spec.namePrefix', // IPAddress names derive from it
      'Metal3Data.spec.claim', // a rendered Metal3Data belongs to one claim and index forever
      'Metal3Data.spec.index',
      'Metal3Data.spec.template',
      'Metal3DataClaim.spec.template',
      'Metal3DataTemplate.spec', // upstream's immutable template fields
      'Metal3DataTemplate.spec',
      'NodeOperation.spec', // requests are immutable
      'ObjectPatch.spec',
    ]);
  });

  // loadCrds() reads the first (stored) version; the other served versions carry their own rules.
  const otherVersions = crds.flatMap((c) =>
    c.crd.spec.versions
      .slice(1)
      .flatMap((v) => rulesOf(v.schema.openAPIV3Schema).map(({ path, rule }) => [`${c.crd.spec.names.kind} ${v.name}${path || ' (root)'}`, rule] as const)),
  );

  it.each(otherVersions)('%s: %s', (_where, rule: ValidationRule) => {
    expect((rule.message ?? '').length).toBeGreaterThan(20);
    for (const regex of regexesIn(rule.rule)) {
      expect(() => new RegExp(regex, 'u')).not.toThrow();
    }
    expect(rule.rule).not.toMatch(/self\.metadata\.(?!name)/u);
  });

  it('root-level rules only read metadata.name, which is all CRD rules can see of metadata', () => {
    const root = allRules.filter((r) => r.path === '');
    for (const { rule } of root) {
      const metadataFields = [...rule.rule.matchAll(/self\.metadata\.(\w+)/gu)].map((m) => m[1]);
      expect(metadataFields.every((field) => field === 'name')).toBe(true);
    }
  });
});

const host = crdByKind(crds, 'BareMetalHost');
const addressNode: SchemaNode = schemaAt(host.schema, 'spec.bmc.address');
const [schemeRule, userinfoRule, hostRule] = addressNode['x-kubernetes-validations'] ?? [];
const [PREFIX, KNOWN] = regexesIn(schemeRule!.rule).map((r) => new RegExp(r, 'u'));
const [USERINFO] = regexesIn(userinfoRule!.rule).map((r) => new RegExp(r, 'u'));
const FULL = new RegExp(regexesIn(hostRule!.rule)[3]!, 'u');

/** What the three address rules decide, evaluated with the CRD's own regular expressions. */
function celAcceptsAddress(address: string): boolean {
  const lower = address.toLowerCase(); // CEL lowerAscii(); the addresses below are ASCII
  const prefixed = PREFIX!.test(address);
  const knownScheme = !prefixed || KNOWN!.test(lower);
  const noUserinfo = !USERINFO!.test(address);
  const validHost = address === '' || !noUserinfo || !knownScheme || FULL.test(lower);
  return knownScheme && noUserinfo && validHost;
}

describe('BMC address rules agree with the domain parser', () => {
  it('the rules have the shape the evaluation below assumes', () => {
    expect(schemeRule!.rule).toMatch(/^!self\.matches\(r'.*'\) \|\| self\.lowerAscii\(\)\.matches\(r'.*'\)$/u);
    expect(userinfoRule!.rule).toMatch(/^!self\.matches\(r'.*'\)$/u);
    expect(regexesIn(hostRule!.rule)).toHaveLength(4);
  });

  const AGREED: [string, boolean][] = [
    ['', true],
    ['ipmi://192.168.1.13', true],
    ['ipmi://192.168.1.13:623', true],
    ['ipmi://[fd00::5]', true],
    ['ipmi://[fd00::5]:623', true],
    ['ipmi://[::ffff:192.0.2.1]', true],
    ['ipmi://10.0.0.1?privilegelevel=OPERATOR', true],
    ['IPMI://10.0.0.1', true],
    ['ipmi:10.0.0.5', true],
    ['192.168.1.13', true],
    ['192.168.1.13:623', true],
    ['[fd00::5]:623', true],
    ['bmc-7', true],
    ['bmc-7.example.com', true],
    ['libvirt://192.168.122.1:6233/', true],
    ['redfish://bmc.example.com/redfish/v1/Systems/1', true],
    ['Redfish://BMC.example.com/redfish/v1/Systems/1', true],
    ['redfish:10.0.0.5/redfish/v1', true],
    ['redfish+http://10.0.0.1:8000/redfish/v1/Systems/x', true],
    ['redfish+https://10.0.0.1/redfish/v1/Systems/1', true],
    ['redfish-virtualmedia://[2001:db8::1]:8443/redfish/v1/Systems/1', true],
    ['redfish-uefihttp+http://10.0.0.1/redfish/v1/Systems/1', true],
    ['idrac-redfish://10.0.0.1/redfish/v1/Systems/System.Embedded.1', true],
    ['idrac-virtualmedia+https://10.0.0.1/redfish/v1/Systems/System.Embedded.1', true],
    ['ilo5-redfish://10.0.0.1/redfish/v1/Systems/1', true],
    ['ilo5-virtualmedia+http://10.0.0.1/redfish/v1/Systems/1', true],
    ['ipmi://10.0.0.1:65535', true],
    ['ipmi://10.0.0.1:65536', false],
    ['foo://10.0.0.1', false],
    ['http://10.0.0.1', false],
    ['irmc://10.0.0.1', false],
    ['ilo4://10.0.0.1', false],
    ['ipmi+https://10.0.0.1', false],
    ['libvirt+http://10.0.0.1', false],
    ['bmc-7:623', false],
    ['localhost:623', false],
    ['fd00::5', false],
    ['2001:db8::1', false],
    ['[fd00::5]', false],
    ['ipmi://', false],
    ['redfish:///redfish/v1/Systems/1', false],
    ['ipmi://-bad.example.com', false],
    ['redfish://bmc_01.example.com/redfish/v1', false],
    ['ipmi://[bmc]', false],
  ];

  it.each(AGREED)('%j: CEL and parseBMCAddress both say valid=%s', (address, valid) => {
    expect(celAcceptsAddress(address)).toBe(valid);
    expect(parseBMCAddress(address).kind !== 'invalid').toBe(valid);
  });

  // Deliberate differences: the schema is stricter about credentials in the address (they would
  // show in `kubectl get bmh -o wide`), and looser about malformed IPv6 literals, which the hook
  // reports as a registration error with the parser's message.
  const DIFFERENT: [string, string, boolean, boolean][] = [
    ['credentials in the address', 'redfish://admin:pw@10.0.0.1/redfish/v1/Systems/1', false, true],
    ['malformed IPv6 literal', 'ipmi://[1:2:3]', true, false],
  ];

  it.each(DIFFERENT)('%s (%s): CEL %s, parser %s', (_what, address, cel, parser) => {
    expect(celAcceptsAddress(address)).toBe(cel);
    expect(parseBMCAddress(address).kind !== 'invalid').toBe(parser);
  });
});

/** The CRD's notion of "an ipmi-style address" (no secure boot, no RAID, no fast inspection). */
const IPMI_STYLE = new RegExp(regexesIn(String(schemaAt(host.schema, 'spec')['x-kubernetes-validations']?.[2]?.rule))[1]!, 'u');

describe('scheme capabilities agree with the domain registry', () => {
  const variants = BUILTIN_SCHEMES.flatMap((d) => [d.name, ...d.protocols.map((p) => `${d.name}+${p}`)].map((scheme) => [scheme, d] as const));

  it.each(variants)('%s is a known scheme for the CRD', (scheme) => {
    expect(KNOWN!.test(`${scheme}://h`)).toBe(true);
  });

  // RAID: the CRD keeps upstream's admission rule (ipmi-style addresses only); the registry says no
  // driver configures RAID, so the hook refuses it for every scheme at registration (deviation 7).
  it.each(variants)('%s: ipmi-style in the CRD exactly when the registry denies secure boot and fast inspection; RAID for none', (scheme, d) => {
    const ipmiStyle = IPMI_STYLE.test(`${scheme}://h`);
    const { supportsSecureBoot, supportsRAID, supportsFastInspection } = d.capabilities;
    expect([supportsSecureBoot, supportsRAID, supportsFastInspection]).toEqual([!ipmiStyle, false, !ipmiStyle]);
  });

  it('libvirt is the only scheme that always needs a boot MAC, as the libvirt rule assumes', () => {
    expect(BUILTIN_SCHEMES.filter((d) => d.capabilities.needsBootMAC).map((d) => d.name)).toEqual(['libvirt']);
    expect(schemaAt(host.schema, 'spec')['x-kubernetes-validations']?.[0]?.rule).toContain("startsWith('libvirt:')");
  });

  it('the known-scheme list in the CRD has no scheme the registry lacks', () => {
    const names = new Set(variants.map(([scheme]) => scheme));
    const inCrd = KNOWN!.source.replace(/^\^\(|\):$/gu, '');
    expect(inCrd).toContain('ipmi|libvirt');
    for (const name of [
      'ipmi',
      'libvirt',
      'redfish',
      'redfish-virtualmedia',
      'redfish-uefihttp',
      'idrac-redfish',
      'idrac-virtualmedia',
      'ilo5-redfish',
      'ilo5-virtualmedia',
    ]) {
      expect(names.has(name)).toBe(true);
    }
    expect(BUILTIN_SCHEMES).toHaveLength(9);
  });
});
