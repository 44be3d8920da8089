// `check()`: the first thing to run when a host is stuck registering. Reachable (the service root
// answers), authenticated (the System can be read), identity (what the BMC says it is), and the
// capabilities the address's scheme needs that this BMC lacks (and the SecureBoot resource when the
// host asks for UEFISecureBoot). BMC-side failures are reported, not thrown; the problem that
// stopped the check is kept for the CLI.
import type { BMCSchemeCapabilities } from '../../domain/bmc/index.js';
import type { BMCCheck, BMCCheckNeeds } from '../bmc/types.js';
import { BMCError } from '../bmc/types.js';
import type { Loaded } from './client.js';
import type { RedfishContext } from './context.js';
import { Reason } from './errors.js';
import { firmwareAtLeast } from './quirks/index.js';
import { powerStateOf } from './power.js';
import { action, allowable, obj, ref, refs, text } from './resource.js';
import type { Resource } from './resource.js';
import { cdDevices } from './vmedia.js';

/** A BMCCheck plus the error that ended the check early, when one did. */
export interface RedfishCheck extends BMCCheck {
  problem?: { kind: BMCError['kind']; reason: string; message: string };
}

const UNREACHABLE = new Set<string>([Reason.Unreachable, Reason.Timeout, Reason.TLSVerificationFailed]);

function failed(error: unknown, identity: Record<string, string>): RedfishCheck {
  if (!(error instanceof BMCError)) {
    throw error;
  }
  const problem = { kind: error.kind, reason: error.reason, message: error.message };
  const reachable = !UNREACHABLE.has(error.reason);
  const authenticated = error.reason === Reason.SystemNotFound;
  const missing = authenticated ? ['System'] : [];
  return { reachable, authenticated, identity, missing, problem };
}

function put(identity: Record<string, string>, key: string, value: string | undefined): void {
  if (value !== undefined) {
    identity[key] = value;
  }
}

async function managerOf(context: RedfishContext, system: Resource): Promise<Resource | undefined> {
  const [first] = refs(system, 'Links', 'ManagedBy');
  return first === undefined ? undefined : (await context.client.load(first)).resource;
}

async function missingVirtualMedia(context: RedfishContext, firmware: string | undefined): Promise<string[]> {
  const quirks = await context.quirks();
  if ((await cdDevices(context)).length === 0) {
    return ['VirtualMedia'];
  }
  const minimum = quirks.minVirtualMediaFirmware;
  if (minimum !== undefined && firmware !== undefined && !firmwareAtLeast(firmware, minimum)) {
    return [`VirtualMedia (BMC firmware ${firmware} is older than ${minimum})`];
  }
  return [];
}

interface Wanted {
  readonly capabilities: BMCSchemeCapabilities;
  readonly needs: BMCCheckNeeds;
  readonly firmware: string | undefined;
}

async function missingFor(context: RedfishContext, system: Loaded, wanted: Wanted): Promise<string[]> {
  const { capabilities, needs, firmware } = wanted;
  const missing: string[] = [];
  if (text(action(system.resource, 'ComputerSystem.Reset'), 'target') === undefined) {
    missing.push('ComputerSystem.Reset');
  }
  const boot = obj(system.resource, 'Boot');
  if (boot === undefined) {
    missing.push('Boot');
  }
  if (capabilities.bootMethod !== 'ipxe') {
    missing.push(...(await missingVirtualMedia(context, firmware)));
  }
  const targets = allowable(boot, 'BootSourceOverrideTarget');
  if (capabilities.bootMethod === 'uefi-http' && targets !== undefined && !targets.includes('UefiHttp')) {
    missing.push('UefiHttp boot');
  }
  if (needs.secureBoot === true && ref(system.resource, 'SecureBoot') === undefined) {
    missing.push('SecureBoot (spec.bootMode is UEFISecureBoot)');
  }
  return missing;
}

/** Root, the Systems collection (proves the credentials whatever the address path), the System. */
async function identify(context: RedfishContext, identity: Record<string, string>): Promise<Loaded> {
  const root = await context.client.root();
  put(identity, 'redfishVersion', text(root, 'RedfishVersion'));
  const systems = ref(root, 'Systems');
  if (systems !== undefined) {
    await context.client.get(systems);
  }
  const system = await context.system();
  put(identity, 'system', system.path);
  put(identity, 'manufacturer', text(system.resource, 'Manufacturer'));
  put(identity, 'model', text(system.resource, 'Model'));
  put(identity, 'serialNumber', text(system.resource, 'SerialNumber'));
  put(identity, 'biosVersion', text(system.resource, 'BiosVersion'));
  put(identity, 'vendorQuirks', (await context.quirks()).vendor);
  put(identity, 'auth', context.client.authKind);
  return system;
}

export async function checkBMC(context: RedfishContext, capabilities: BMCSchemeCapabilities, needs: BMCCheckNeeds = {}): Promise<RedfishCheck> {
  const identity: Record<string, string> = {};
  try {
    const system = await identify(context, identity);
    const manager = await managerOf(context, system.resource);
    const firmware = text(manager, 'FirmwareVersion');
    put(identity, 'managerFirmware', firmware);
    put(identity, 'managerModel', text(manager, 'Model'));
    const missing = await missingFor(context, system, { capabilities, needs, firmware });
    return { reachable: true, authenticated: true, powerState: powerStateOf(system), identity, missing };
  } catch (error) {
    return failed(error, identity);
  }
}
