// Ironhook's Redfish client and driver (docs/redfish.md).
export { createRedfishDriver, RedfishDriver } from './driver.js';
export type { RedfishDriverOptions } from './driver.js';
export { RedfishClient, ifMatchSequence } from './client.js';
export type { AuthMode } from './auth.js';
export type { RedfishLogger } from './clock.js';
export { Reason, httpError, networkError } from './errors.js';
export { waitForPower } from './power.js';
export { QUIRK_TABLE, firmwareAtLeast, genericQuirks, selectQuirks } from './quirks/index.js';
export type { HttpResponse, HttpTransport } from './transport.js';
