// The driver registry: one factory per driver family. The scheme registry in
// domain/bmc says which family an address belongs to; this table says which code talks to it.
// Each driver adds one registration line below; nothing else branches on the family.
import type { BMCDriverFamily } from '../../domain/bmc/index.js';
import { createIPMIDriverFactory } from '../ipmi/driver.js';
import { createRedfishDriver } from '../redfish/driver.js';
import { BMCError } from './types.js';
import type { BMCConnectionOptions, BMCDriver, BMCDriverFactory } from './types.js';

const factories = new Map<BMCDriverFamily, BMCDriverFactory>();

/** Registers (or replaces) the factory for a driver family. Call at module load only. */
function registerDriverFactory(family: BMCDriverFamily, factory: BMCDriverFactory): void {
  factories.set(family, factory);
}

/** A driver for the address's family; a permanent `UnknownDriver` error when none is registered. */
export function createBMCDriver(options: BMCConnectionOptions): BMCDriver {
  const factory = factories.get(options.address.driver);
  if (factory === undefined) {
    throw new BMCError('Permanent', 'UnknownDriver', `no driver registered for BMC driver family '${options.address.driver}'`);
  }
  return factory(options);
}

// Registrations, one line per family.
registerDriverFactory('redfish', createRedfishDriver);
registerDriverFactory('idrac', createRedfishDriver);
registerDriverFactory('ipmi', createIPMIDriverFactory());
