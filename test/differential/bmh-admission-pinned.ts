// Pinned BareMetalHost admission cases: what upstream (BMO v0.13.2's schema and webhook) and
// Ironhook (its CRD and admission policy) answer.
//   DEVIATIONS: the deliberate differences, one case each; docs/compatibility.md says why, and the
//     sweeps leave these classes out (bmh-cases.ts and bmh-arbitraries.ts name them where they do).
//   ALIGNED: differences the sweeps found and Ironhook's rules were changed for; pinned so that
//     they stay fixed whatever the seed.
import type { HostInput, UpdateInput } from './bmh-cases.js';

export interface PinnedCase {
  readonly name: string;
  readonly input: HostInput | UpdateInput;
  readonly upstreamAccepts: boolean;
  readonly ironhookAccepts: boolean;
}

const MAC = '3c:ec:ef:10:20:30';
const VIRTUAL_MEDIA = { address: 'redfish-virtualmedia://192.0.2.5/redfish/v1/Systems/1', credentialsName: 'h-bmc' };
const host = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): HostInput => ({
  name,
  spec: { online: true, ...spec },
  ...(annotations !== undefined && { annotations }),
});
const withAddress = (name: string, address: string): HostInput => host(name, { bmc: { address, credentialsName: 'h-bmc' }, bootMACAddress: MAC });
const image = (url: string, more: Record<string, unknown> = {}): HostInput => host('image', { bmc: VIRTUAL_MEDIA, image: { url, ...more } });

/** Ironhook follows BMO main (after v0.13.2) here. */
const FOLLOWS_MAIN: PinnedCase[] = [
  {
    name: 'inspectionMode fast (out-of-band inspection) is known',
    input: host('fast', { bmc: VIRTUAL_MEDIA, inspectionMode: 'fast' }),
    upstreamAccepts: false,
    ironhookAccepts: true,
  },
  {
    name: 'a redfish BMC needs no bootMACAddress',
    input: host('redfish-no-mac', { bmc: { address: 'redfish://192.0.2.5/redfish/v1/Systems/1', credentialsName: 'h-bmc' } }),
    upstreamAccepts: false,
    ironhookAccepts: true,
  },
  {
    name: 'externallyProvisioned can be turned off again',
    input: {
      old: host('ext', { externallyProvisioned: true }),
      status: { state: 'externally provisioned', operationalStatus: 'OK' },
      new: host('ext', { externallyProvisioned: false }),
    },
    upstreamAccepts: false,
    ironhookAccepts: true,
  },
  {
    name: 'spec.firmware is refused even without a BMC address',
    input: host('firmware', { firmware: { virtualizationEnabled: true } }),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  { name: 'an OCI image has no checksum', input: image('oci://quay.io/example/os:9.6', { checksum: 'abc123' }), upstreamAccepts: true, ironhookAccepts: false },
  {
    name: 'an image URL has the scheme http, https, ftp, gopher or oci',
    input: image('file:///images/os.qcow2', { checksum: 'abc123' }),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
];

/** Ironhook is stricter on purpose: what it refuses would fail later, or leaks credentials. */
const STRICTER: PinnedCase[] = [
  { name: 'an image URL has a host', input: image('http:/images.example/os.qcow2', { checksum: 'abc123' }), upstreamAccepts: true, ironhookAccepts: false },
  {
    name: 'bootMACAddress is six octets (no EUI-64 or InfiniBand addresses)',
    input: host('eui64', { bmc: { address: 'ipmi://192.0.2.5', credentialsName: 'h-bmc' }, bootMACAddress: '3c:ec:ef:10:20:30:40:50' }),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  {
    name: 'bootMACAddress has nothing around the six octets, also without a BMC',
    input: host('mac-extra', { bootMACAddress: `x${MAC}` }),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  {
    name: 'a BMC address holds no credentials',
    input: withAddress('userinfo', 'redfish://admin:pw@192.0.2.5/redfish/v1/Systems/1'),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  {
    name: 'a BMC address has a host',
    input: withAddress('no-host', 'redfish-virtualmedia:///redfish/v1/Systems/1'),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  {
    name: 'a BMC address with a scheme and nothing else has no host',
    input: withAddress('scheme-only', 'ipmi://'),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  { name: 'a BMC port is at most 65535', input: withAddress('port', 'ipmi://192.0.2.5:65536'), upstreamAccepts: true, ironhookAccepts: false },
  {
    name: 'an IPv6 BMC address is bracketed (upstream reads the last group as the port)',
    input: withAddress('ipv6', 'ipmi://2001:db8::5:623'),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  { name: 'brackets hold an IPv6 address, not IPv4', input: withAddress('bracketed-v4', '[192.0.2.5]:623'), upstreamAccepts: true, ironhookAccepts: false },
  {
    name: 'the reboot annotation holds only the documented keys',
    input: host('reboot', {}, { 'reboot.metal3.io': '{"mode":"hard","reason":"x"}' }),
    upstreamAccepts: true,
    ironhookAccepts: false,
  },
  { name: 'the reboot annotation is not null', input: host('reboot-null', {}, { 'reboot.metal3.io': 'null' }), upstreamAccepts: true, ironhookAccepts: false },
];

/** Ironhook is looser at admission: CEL cannot check it, the hook reports it at run time. */
const CHECKED_LATER: PinnedCase[] = [
  { name: 'a malformed IPv6 literal of the right shape', input: withAddress('bad-ipv6', 'ipmi://[1:2:3]'), upstreamAccepts: false, ironhookAccepts: true },
  {
    name: 'the status annotation is not decoded',
    input: host('status', {}, { 'baremetalhost.metal3.io/status': '{"operationalStatus":"OK","ironhook":{}}' }),
    upstreamAccepts: false,
    ironhookAccepts: true,
  },
  {
    name: 'the hardware details annotation is checked for braces only',
    input: host('hardware', { inspectionMode: 'disabled', bootMACAddress: MAC }, { 'inspect.metal3.io/hardwaredetails': '{"cpu":"x86_64"}' }),
    upstreamAccepts: false,
    ironhookAccepts: true,
  },
];

export const DEVIATIONS: PinnedCase[] = [...FOLLOWS_MAIN, ...STRICTER, ...CHECKED_LATER];

const stored = (old: HostInput, state: string, edited: HostInput): UpdateInput => ({ old, status: { state, operationalStatus: 'OK' }, new: edited });
const both = (name: string, input: HostInput | UpdateInput, accepted: boolean): PinnedCase => ({
  name,
  input,
  upstreamAccepts: accepted,
  ironhookAccepts: accepted,
});

export const ALIGNED: PinnedCase[] = [
  both('a BMC address with an empty port', withAddress('empty-port', 'redfish://192.0.2.5:/redfish/v1/Systems/1'), true),
  both('a bare BMC IP address with an empty port', withAddress('bare-empty-port', '192.0.2.5:'), true),
  both('a BMC address with a space in its path', withAddress('space', 'redfish://192.0.2.5/redfish/v1/Systems/System 1'), true),
  both('a BMC address with a bad percent escape in its path', withAddress('escape', 'redfish://192.0.2.5/redfish/%zz'), false),
  both('a BMC address with a bad percent escape in its fragment', withAddress('fragment', 'ipmi://192.0.2.5#%zz'), false),
  both('an image URL with a space in its path', image('http://images.example/os 9.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with a bad percent escape', image('http://images.example/%zz.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with an empty port', image('http://images.example:/os.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with a port that is not a number', image('http://images.example:http/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with a second colon in its host (Go 1.25 takes it)', image('http://images.example:8080:80/os.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with an IPv6 address outside brackets', image('http://2001:db8::1/os.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with something after the IPv6 brackets', image('http://[2001:db8::1]x/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with a space in its user information', image('http://us er@images.example/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with an IPv4 address in brackets', image('http://[192.0.2.1]/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with an IPv4-mapped IPv6 address in brackets', image('http://[::ffff:192.0.2.1]:8080/os.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with an IPv6 zone', image('http://[fe80::1%25eth0]/os.qcow2', { checksum: 'abc123' }), true),
  both('an image URL with a percent escape of an ASCII byte in its host', image('http://images%2Eexample/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with a brace in its host', image('http://images{1}.example/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with a bracket inside its host', image('http://images.ex[ample/os.qcow2', { checksum: 'abc123' }), false),
  both('an image URL with an @ in its user information', image('http://a@b@images.example/os.qcow2', { checksum: 'abc123' }), true),
  both('ociAuthSecretName on an http image (ignored)', image('http://images.example/os.qcow2', { checksum: 'abc123', ociAuthSecretName: 'pull-secret' }), true),
  both('externallyProvisioned enabled in the legacy state ready', stored(host('ready', {}), 'ready', host('ready', { externallyProvisioned: true })), false),
  both(
    'externallyProvisioned enabled in state available',
    stored(host('available', {}), 'available', host('available', { externallyProvisioned: true })),
    true,
  ),
  both(
    'a hardware details annotation of null',
    host('hw-null', { inspectionMode: 'disabled', bootMACAddress: MAC }, { 'inspect.metal3.io/hardwaredetails': 'null' }),
    true,
  ),
  both(
    'inspection turned back on while hardware details are set',
    stored(
      host('hw-reinspect', { inspectionMode: 'disabled', bootMACAddress: MAC }, { 'inspect.metal3.io/hardwaredetails': '{"cpu":{"count":4}}' }),
      'available',
      host('hw-reinspect', { inspectionMode: 'agent', bootMACAddress: MAC }, { 'inspect.metal3.io/hardwaredetails': '{"cpu":{"count":4}}' }),
    ),
    false,
  ),
];
