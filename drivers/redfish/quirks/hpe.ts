// HPE iLO 5/6: virtual media lives under the Manager, and EjectMedia needs a `{}` body.
import { genericQuirks } from './generic.js';
import type { VendorQuirks } from './types.js';

export const hpeQuirks: VendorQuirks = {
  ...genericQuirks,
  vendor: 'hpe',
  manufacturers: ['hpe', 'hewlett packard enterprise', 'hp'],
  oemKeys: ['Hpe', 'Hp'],
  virtualMediaFirst: 'manager',
  ejectBody: 'empty-object',
};
