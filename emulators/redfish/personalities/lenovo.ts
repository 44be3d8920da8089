// Lenovo XClarity Controller: virtual media changed by PATCH (no InsertMedia/EjectMedia actions).
import { genericPersonality } from './generic.js';
import type { Personality } from './types.js';

export const lenovoPersonality: Personality = {
  ...genericPersonality,
  name: 'lenovo',
  manufacturer: 'Lenovo',
  model: 'ThinkSystem SR650 V2',
  managerModel: 'XClarity Controller',
  firmwareVersion: 'AFBT58B 5.70',
  biosVersion: 'AFE128B-3.10',
  resetTypes: ['On', 'Nmi', 'GracefulShutdown', 'GracefulRestart', 'ForceOn', 'ForceOff', 'ForceRestart'],
  virtualMediaUnder: 'manager',
  mediaDevices: [
    { id: 'EXT1', name: 'Remote media 1', mediaTypes: ['CD', 'DVD'] },
    { id: 'EXT2', name: 'Remote media 2', mediaTypes: ['USBStick'] },
  ],
  virtualMediaActions: false,
};
