// Dell iDRAC 9: virtual media under the Manager, PowerCycle and PushPowerButton resets, a
// FirmwareVersion the driver compares with 6.00.00.00 for standard virtual-media boot.
import { genericPersonality } from './generic.js';
import type { Personality } from './types.js';

export const dellPersonality: Personality = {
  ...genericPersonality,
  name: 'dell',
  manufacturer: 'Dell Inc.',
  model: 'PowerEdge R650',
  managerModel: '15G Monolithic',
  firmwareVersion: '6.10.30.00',
  biosVersion: '1.13.2',
  resetTypes: ['On', 'ForceOff', 'ForceRestart', 'GracefulRestart', 'GracefulShutdown', 'PushPowerButton', 'Nmi', 'PowerCycle'],
  bootTargets: ['None', 'Pxe', 'Floppy', 'Cd', 'Hdd', 'BiosSetup', 'Utilities', 'UefiTarget', 'SDCard', 'UefiHttp'],
  virtualMediaUnder: 'manager',
  mediaDevices: [
    { id: 'CD', name: 'Virtual CD', mediaTypes: ['CD', 'DVD'] },
    { id: 'RemovableDisk', name: 'Virtual Removable Disk', mediaTypes: ['USBStick'] },
  ],
};
