// Deprecated hardware profiles: still the source of the
// default root device hint that upstream records at registration.
import type { RootDeviceHints } from '../../domain/baremetalhost.js';

const PROFILES: Readonly<Record<string, RootDeviceHints | undefined>> = {
  unknown: { deviceName: '/dev/sda' },
  libvirt: { deviceName: '/dev/vda' },
  openstack: { deviceName: '/dev/vdb' },
  dell: { hctl: '0:0:0:0' },
  'dell-raid': { hctl: '0:2:0:0' },
  empty: undefined,
};

export function isKnownProfile(name: string): boolean {
  return Object.hasOwn(PROFILES, name);
}

export function profileName(statusProfile: string | undefined, specProfile: string | undefined, bmcAddress: string): string {
  if (statusProfile) {
    return statusProfile;
  }
  if (specProfile) {
    return specProfile;
  }
  return bmcAddress.startsWith('libvirt') ? 'libvirt' : 'unknown';
}

export function profileRootDeviceHints(name: string): RootDeviceHints | undefined {
  const hints = PROFILES[name];
  return hints === undefined ? undefined : { ...hints };
}
