// UEFI secure boot through the System's SecureBoot resource (DMTF SecureBoot: SecureBootEnable,
// SecureBootCurrentBoot, SecureBootMode). As Ironic's redfish management interface does it: a
// BMC without the resource cannot do secure boot; a value already set is not written again;
// enabling needs UEFI boot mode (a Legacy System is refused before any PATCH); the PATCH carries
// If-Match from the GET it was decided on; and the value is read back, because BMCs that change
// it through a BIOS job (iDRAC) show the new value only after the next boot. The caller decides
// what a value that did not stick means (the pool reboots once and reads again).
import type { Loaded } from './client.js';
import type { RedfishContext } from './context.js';
import { Reason, permanentError } from './errors.js';
import { bool, ref, text } from './resource.js';

function enabledOf(loaded: Loaded): boolean {
  const value = bool(loaded.resource, 'SecureBootEnable');
  if (value === undefined) {
    throw permanentError(Reason.Protocol, `${loaded.path} has no boolean SecureBootEnable`);
  }
  return value;
}

/** SecureBootEnable as the BMC reports it now; undefined when the System has no SecureBoot resource. */
export async function getSecureBoot(context: RedfishContext): Promise<boolean | undefined> {
  const path = ref((await context.system()).resource, 'SecureBoot');
  return path === undefined ? undefined : enabledOf(await context.client.load(path));
}

/** Sets SecureBootEnable unless it already has that value; returns the value read back afterwards. */
export async function setSecureBoot(context: RedfishContext, enabled: boolean): Promise<boolean> {
  const system = await context.system();
  const path = ref(system.resource, 'SecureBoot');
  if (path === undefined) {
    throw permanentError(Reason.Unsupported, `${system.path} has no SecureBoot resource: this BMC cannot configure UEFI secure boot`);
  }
  const current = await context.client.load(path);
  if (enabledOf(current) === enabled) {
    return enabled;
  }
  if (enabled && text(system.resource, 'Boot', 'BootSourceOverrideMode') === 'Legacy') {
    throw permanentError(Reason.Unsupported, `configuring secure boot requires UEFI boot mode, and ${system.path} boots Legacy`);
  }
  context.logger.debug({ path, enabled }, 'Redfish secure boot change');
  await context.client.patch(path, { SecureBootEnable: enabled }, current.etag);
  return enabledOf(await context.client.load(path));
}
