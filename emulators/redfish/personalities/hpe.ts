// HPE iLO 5: virtual media under the Manager (device 1 is the floppy/USB, 2 the CD/DVD), weak
// ETags, and an EjectMedia that wants a `{}` body.
import { genericPersonality } from './generic.js';
import type { Personality } from './types.js';

export const hpePersonality: Personality = {
  ...genericPersonality,
  name: 'hpe',
  manufacturer: 'HPE',
  model: 'ProLiant DL360 Gen10 Plus',
  managerModel: 'iLO 5',
  firmwareVersion: 'iLO 5 v2.78',
  biosVersion: 'U46 v2.72 (09/04/2023)',
  resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'ForceRestart', 'Nmi', 'PushPowerButton', 'GracefulRestart'],
  bootTargets: ['None', 'Cd', 'Hdd', 'Usb', 'SDCard', 'Utilities', 'Diags', 'BiosSetup', 'Pxe', 'UefiShell', 'UefiHttp', 'UefiTarget'],
  virtualMediaUnder: 'manager',
  mediaDevices: [
    { id: '1', name: 'Virtual Removable Media', mediaTypes: ['Floppy', 'USBStick'] },
    { id: '2', name: 'Virtual Removable Media', mediaTypes: ['CD', 'DVD'] },
  ],
  ejectNeedsBody: true,
  etag: 'weak',
};
