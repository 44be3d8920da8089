// The fake agent's pure parts and the Secret-backed store: boot event mapping, which virtual
// media counts as the agent ISO, checksum files, inventory consistent with the emulator's
// system config, and the store's Secret shape (owner, labels, token only in data).
import { describe, expect, it } from 'vitest';
import { hardwareFromInventory } from '../../drivers/agent/inventory.js';
import { agentSecretName, AGENT_SECRET_LABEL, SecretAgentStateStore } from '../../drivers/agent/secret-store.js';
import type { AgentRecord } from '../../drivers/agent/state.js';
import { bootFromRedfish, hostFromRedfishConfig, ipmiBootEvents } from '../../emulators/agent/boot-events.js';
import { checksumFromFile } from '../../emulators/agent/download.js';
import { defaultIsAgentMedia } from '../../emulators/agent/fleet.js';
import { ipaInventoryOf } from '../../emulators/agent/inventory.js';
import type { HostBoot } from '../../emulators/agent/types.js';
import { fakeSecretsAPI } from '../support/fake-secrets.js';

describe('Redfish boot events', () => {
  const base = { system: 'host-0', macs: ['52:54:00:00:00:01'], virtualMedia: { inserted: false } };
  it.each([
    { target: 'Pxe', device: 'pxe' },
    { target: 'UefiHttp', device: 'http' },
    { target: 'Hdd', device: 'disk' },
    { target: 'None', device: 'disk' },
    { target: 'BiosSetup', device: 'other' },
    { target: 'Cd', device: 'cdrom' },
  ])('$target → $device (no media when none is inserted)', ({ target, device }) => {
    expect(bootFromRedfish({ ...base, bootSourceTarget: target })).toEqual({ hostId: 'host-0', device, macs: base.macs });
  });

  it('Cd with media inserted carries the image', () => {
    expect(bootFromRedfish({ ...base, bootSourceTarget: 'Cd', virtualMedia: { inserted: true, image: 'http://127.0.0.1/agent.iso' } }).media).toBe(
      'http://127.0.0.1/agent.iso',
    );
  });
});

describe('ipmi_sim boot events', () => {
  it('maps boots and power-offs of one host', () => {
    let onBoot: ((event: { at: number; cause: 'power-on' | 'reset'; bootDevice: 'pxe' | 'disk' | 'none' | 'cdrom' | 'bios' | 'other' }) => void) | undefined;
    let onState:
      ((event: { at: number; verb: 'set' | 'fail'; item: string; value: string }, state: { power: 'on' | 'off'; bootDevice: 'pxe' }) => void) | undefined;
    const source = ipmiBootEvents(
      {
        onBoot: (listener) => {
          onBoot = listener;
          return () => undefined;
        },
        onStateChange: (listener) => {
          onState = listener;
          return () => undefined;
        },
      },
      'ipmi-0',
    );
    const boots: HostBoot[] = [];
    const offs: string[] = [];
    source.subscribe({ boot: (event) => boots.push(event), powerOff: (hostId) => offs.push(hostId) });
    onBoot?.({ at: 1, cause: 'power-on', bootDevice: 'pxe' });
    onBoot?.({ at: 2, cause: 'reset', bootDevice: 'none' });
    onState?.({ at: 3, verb: 'set', item: 'power', value: '0' }, { power: 'off', bootDevice: 'pxe' });
    onState?.({ at: 4, verb: 'set', item: 'boot', value: 'pxe' }, { power: 'off', bootDevice: 'pxe' });
    onState?.({ at: 5, verb: 'fail', item: 'power', value: '0' }, { power: 'off', bootDevice: 'pxe' });
    expect(boots).toEqual([
      { hostId: 'ipmi-0', device: 'pxe' },
      { hostId: 'ipmi-0', device: 'disk' },
    ]);
    expect(offs).toEqual(['ipmi-0']);
  });
});

describe('which virtual media is the agent ISO', () => {
  it.each([
    ['http://127.0.0.1/deploy.iso?ipa-api-url=http%3A%2F%2F127.0.0.1%3A6385&BOOTIF=52:54:00:00:00:01', true],
    ['http://127.0.0.1/images/ironic-python-agent.iso', true],
    ['http://127.0.0.1/ipa-centos9.iso', true],
    ['http://127.0.0.1/fake-agent.iso', true],
    ['http://127.0.0.1/images/fedora-coreos-live.iso', false],
    ['http://127.0.0.1/tulipa.iso', false],
    ['not a url', false],
  ])('%s → %s', (url, agent) => {
    expect(defaultIsAgentMedia(url)).toBe(agent);
  });
});

describe('checksum files', () => {
  const sha = (c: string): string => c.repeat(64);
  it.each([
    { name: 'sha256sum output, entry by name', text: `${sha('a')}  other.raw\n${sha('b')}  disk.raw\n`, want: sha('b') },
    { name: 'binary-mode marker', text: `${sha('c')} *disk.raw\n`, want: sha('c') },
    { name: 'path in the name', text: `${sha('d')}  ./images/disk.raw\n`, want: sha('d') },
    { name: 'bare hash', text: `${sha('E')}\n`, want: sha('e') },
    { name: 'no entry for the file among several', text: `${sha('a')}  a.raw\n${sha('b')}  b.raw\n`, want: undefined },
    { name: 'garbage', text: 'not a checksum file', want: undefined },
  ])('$name', ({ text, want }) => {
    expect(checksumFromFile(text, 'disk.raw')).toBe(want);
  });
});

describe('inventory consistent with the emulator config', () => {
  it('defaults mirror the emulator: derived MAC, 2×16 threads, 64 GiB, two Samsung disks', () => {
    const spec = hostFromRedfishConfig({ id: 'host-0', username: 'u', password: 'p' });
    expect(spec.nics).toHaveLength(1);
    expect(spec.nics[0]!.mac).toMatch(/^52:54:00:[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}$/);
    expect(spec.cpu).toMatchObject({ count: 32, arch: 'x86_64' });
    expect(spec.memoryMiB).toBe(64 * 1024);
    expect(spec.disks?.map((disk) => [disk.type, disk.vendor])).toEqual([
      ['SSD', 'Samsung'],
      ['NVME', 'Samsung'],
    ]);
  });

  it('the fake agent inventory maps back to the same hardware', () => {
    const spec = hostFromRedfishConfig({
      id: 'h',
      username: 'u',
      password: 'p',
      macs: ['52:54:00:AA:00:01'],
      cpu: { instructionSet: 'ARM-A64', sockets: 1, coresPerSocket: 4 },
      memoryGiB: 8,
      disks: [{ sizeGiB: 10, type: 'HDD', serialNumber: 'X' }],
    });
    const hw = hardwareFromInventory(ipaInventoryOf(spec));
    expect(hw.nics?.map((nic) => nic.mac)).toEqual(['52:54:00:aa:00:01']);
    expect(hw.nics?.[0]?.pxe).toBe(true);
    expect(hw.cpu).toMatchObject({ arch: 'aarch64', count: 8 });
    expect(hw.ramMebibytes).toBe(8192);
    expect(hw.storage).toEqual([
      expect.objectContaining({ name: '/dev/sda', type: 'HDD', rotational: true, sizeBytes: 10 * 1024 ** 3, serialNumber: 'X', hctl: '0:0:0:0' }),
    ]);
  });
});

describe('SecretAgentStateStore', () => {
  const record: AgentRecord = {
    namespace: 'metal3',
    name: 'host-0',
    uid: 'u-1',
    macs: ['52:54:00:00:00:01'],
    token: 'T'.repeat(43),
    tokenIssued: true,
    callbackURL: 'http://127.0.0.1:9999',
  };

  it('saves one Secret per host, owned by the BareMetalHost, token only in data; lists and removes', async () => {
    const { api, secrets, calls } = fakeSecretsAPI();
    const store = new SecretAgentStateStore(api);
    await store.save({ ...record, tokenIssued: false });
    await store.save(record);
    const secret = secrets.get('metal3/host-0-agent-token')!;
    expect(secret.metadata.labels).toEqual({ [AGENT_SECRET_LABEL]: 'true', 'ironhook.dev/host': 'host-0' });
    expect(secret.metadata.ownerReferences).toEqual([{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'host-0', uid: 'u-1' }]);
    expect(JSON.stringify(secret.metadata)).not.toContain(record.token);
    expect(Buffer.from(secret.data.record!, 'base64').toString()).not.toContain(record.token);
    expect(await store.list()).toEqual([record]);
    await store.remove(record);
    await store.remove(record);
    expect(await store.list()).toEqual([]);
    expect(calls).toEqual(['create', 'create', 'replace', `list ${AGENT_SECRET_LABEL}=true`, 'delete', 'delete', `list ${AGENT_SECRET_LABEL}=true`]);
  });

  it('long host names are cut and hashed to fit 253 characters', () => {
    const name = agentSecretName('h'.repeat(253));
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^h+-[0-9a-f]{10}-agent-token$/);
    expect(agentSecretName('server-01')).toBe('server-01-agent-token');
  });
});
