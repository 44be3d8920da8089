// Ironhook's Redfish client and driver (docs/redfish.md).
export { createRedfishDriver, RedfishDriver } from './driver.js';
export type { RedfishDriverOptions } from './driver.js';
export type { RedfishCheck } from './check.js';
export { RedfishClient, ROOT_PATH, ifMatchSequence } from './client.js';
export type { Loaded, RedfishClientOptions, RedfishResponse } from './client.js';
export type { AuthMode } from './auth.js';
export { systemClock, silentLogger } from './clock.js';
export type { Clock, RedfishLogger } from './clock.js';
export { Reason, RedfishHttpError, errorInfo, httpError, networkError, scrubError } from './errors.js';
export type { RedfishErrorInfo } from './errors.js';
export { waitForPower } from './power.js';
export type { WaitOptions } from './power.js';
export { QUIRK_TABLE, firmwareAtLeast, genericQuirks, selectQuirks } from './quirks/index.js';
export type { VendorName, VendorQuirks } from './quirks/index.js';
export { createHttpTransport } from './transport.js';
export type { HttpMethod, HttpRequest, HttpResponse, HttpTransport, TransportOptions } from './transport.js';
