// A standards-following BMC, shaped like sushy-tools' fake driver: virtual media under the System.
import type { Personality } from './types.js';

export const genericPersonality: Personality = {
  name: 'generic',
  manufacturer: 'Ironhook',
  model: 'Emulated Redfish System',
  managerModel: 'Ironhook Redfish emulator',
  firmwareVersion: '1.0.0',
  biosVersion: '1.0.0',
  resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'Nmi', 'ForceOn'],
  resetActionInfo: false,
  bootTargets: ['None', 'Pxe', 'Cd', 'Hdd', 'BiosSetup', 'UefiHttp'],
  bootModes: ['UEFI', 'Legacy'],
  virtualMediaUnder: 'system',
  mediaDevices: [
    { id: 'Cd', name: 'Virtual CD', mediaTypes: ['CD', 'DVD'] },
    { id: 'Floppy', name: 'Virtual Removable Media', mediaTypes: ['Floppy', 'USBStick'] },
  ],
  virtualMediaActions: true,
  insertRejectsFlags: false,
  insertNeedsTransferProtocol: false,
  ejectNeedsBody: false,
  bootNeedsEnabled: false,
  bootModeResetsToLegacy: false,
  etag: 'strong',
};
