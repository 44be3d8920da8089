// Supermicro X12: ResetType through ActionInfo, the virtual CD as boot target "UsbCd",
// InsertMedia that refuses Inserted/WriteProtected and requires TransferProtocolType, Boot
// PATCHes that must carry BootSourceOverrideEnabled, and a boot mode that falls back to Legacy.
import { genericPersonality } from './generic.js';
import type { Personality } from './types.js';

export const supermicroPersonality: Personality = {
  ...genericPersonality,
  name: 'supermicro',
  manufacturer: 'Supermicro',
  model: 'SYS-120U-TNR',
  managerModel: 'ASPEED',
  firmwareVersion: '01.01.06',
  biosVersion: '1.4',
  resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'Nmi', 'ForceOn'],
  resetActionInfo: true,
  bootTargets: ['None', 'Pxe', 'Floppy', 'UsbCd', 'Hdd', 'BiosSetup', 'UsbHdd', 'UefiHttp'],
  virtualMediaUnder: 'manager',
  mediaDevices: [{ id: 'CD1', name: 'Virtual CD', mediaTypes: ['CD', 'DVD'] }],
  insertRejectsFlags: true,
  insertNeedsTransferProtocol: true,
  bootNeedsEnabled: true,
  bootModeResetsToLegacy: true,
};
