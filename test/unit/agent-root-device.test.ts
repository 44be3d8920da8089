// Root device hints reach IPA the way it reads them: in its cached node (lookup and clean step),
// mapped from rootDeviceHints as baremetal-operator maps them.
import { describe, expect, it } from 'vitest';
import { ironicRootDevice } from '../../drivers/agent/root-device.js';
import { AgentState, agentNode } from '../../drivers/agent/state.js';

const HOST = { namespace: 'metal3', name: 'server-01', uid: 'uid-1' };

describe('ironicRootDevice', () => {
  it.each([
    { name: 'no hints', hints: undefined, want: undefined },
    { name: 'empty hints', hints: {}, want: undefined },
    { name: 'device name', hints: { deviceName: '/dev/sda' }, want: { name: 's== /dev/sda' } },
    {
      name: 'by-path device name',
      hints: { deviceName: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1' },
      want: { by_path: 's== /dev/disk/by-path/pci-0000:00:1f.2-ata-1' },
    },
    { name: 'serial number', hints: { serialNumber: 'S6IPA0000001' }, want: { serial: 's== S6IPA0000001' } },
    { name: 'model and vendor match a substring', hints: { model: 'MZ7L3', vendor: 'Samsung' }, want: { model: '<in> MZ7L3', vendor: '<in> Samsung' } },
    { name: 'minimum size in GiB', hints: { minSizeGigabytes: 100 }, want: { size: '>= 100' } },
    { name: 'rotational false is a hint', hints: { rotational: false }, want: { rotational: false } },
    {
      name: 'wwn family and hctl',
      hints: { wwn: '0x5000', wwnWithExtension: '0x5000abc', wwnVendorExtension: '0xabc', hctl: '0:0:0:0' },
      want: { wwn: 's== 0x5000', wwn_with_extension: 's== 0x5000abc', wwn_vendor_extension: 's== 0xabc', hctl: 's== 0:0:0:0' },
    },
  ])('$name', ({ hints, want }) => {
    expect(ironicRootDevice(hints)).toEqual(want);
  });
});

describe('the node the agent caches', () => {
  it.each([
    { name: 'before an image: no hints', rootDevice: undefined, want: { uuid: 'uid-1', properties: {}, instance_info: {}, driver_internal_info: {} } },
    {
      name: 'while an image is written: its hints in properties and instance_info',
      rootDevice: { serial: 's== S1' },
      want: {
        uuid: 'uid-1',
        properties: { root_device: { serial: 's== S1' } },
        instance_info: { root_device: { serial: 's== S1' } },
        driver_internal_info: {},
      },
    },
  ])('$name', ({ rootDevice, want }) => {
    const state = new AgentState(() => 0);
    state.arm(HOST, ['00:11:22:33:44:55']);
    state.setRootDevice(HOST, rootDevice);
    expect(agentNode(state.get(HOST)!)).toEqual(want);
  });

  it('a lookup after writeImage set the hints hands them out; re-arming drops them', () => {
    const state = new AgentState(() => 0);
    state.arm(HOST, ['00:11:22:33:44:55']);
    state.setRootDevice(HOST, { serial: 's== S1' });
    const found = state.lookup(['00:11:22:33:44:55']);
    expect(found.kind === 'found' && agentNode(found.entry).instance_info).toEqual({ root_device: { serial: 's== S1' } });
    state.arm(HOST, ['00:11:22:33:44:55']);
    expect(state.get(HOST)?.rootDevice).toBeUndefined();
  });
});
