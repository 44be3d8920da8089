// Vendor personalities by name.
import type { PersonalityName } from '../types.js';
import { dellPersonality } from './dell.js';
import { genericPersonality } from './generic.js';
import { hpePersonality } from './hpe.js';
import { lenovoPersonality } from './lenovo.js';
import { supermicroPersonality } from './supermicro.js';
import type { Personality } from './types.js';

export type { MediaDeviceTemplate, Personality } from './types.js';

export const PERSONALITIES: Readonly<Record<PersonalityName, Personality>> = {
  generic: genericPersonality,
  dell: dellPersonality,
  hpe: hpePersonality,
  supermicro: supermicroPersonality,
  lenovo: lenovoPersonality,
};

export function isPersonalityName(name: string): name is PersonalityName {
  return Object.hasOwn(PERSONALITIES, name);
}
