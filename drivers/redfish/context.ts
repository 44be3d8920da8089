// What the driver's operations share for one BMC: the client, time, the located System (found by
// links: the address path, or the only member of Systems), and the vendor-quirk row chosen from
// its Manufacturer. The System's path and the vendor are cached; the System itself never is.
import type { BootOptions } from '../bmc/types.js';
import type { RedfishClient, Loaded } from './client.js';
import type { Clock, RedfishLogger } from './clock.js';
import { Reason, RedfishHttpError, permanentError } from './errors.js';
import { selectQuirks } from './quirks/index.js';
import type { VendorQuirks } from './quirks/index.js';
import { absolutePath, obj, ref, refs, text } from './resource.js';

export interface RedfishContext {
  readonly client: RedfishClient;
  readonly clock: Clock;
  readonly logger: RedfishLogger;
  /** How long setPower('reboot') waits for the off state before powering on. */
  readonly powerTimeoutMs: number;
  /** A fresh GET of the System (with its ETag). */
  system(): Promise<Loaded>;
  quirks(): Promise<VendorQuirks>;
  /** Set when Continuous was refused: the Once override re-applied before every power on. */
  pendingBoot: BootOptions | undefined;
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+/, '').replace(/\/+$/, '');
}

/** The System's path: the address path when it is one, else the member it names or the only member. */
async function locateSystem(client: RedfishClient, systemId: string | undefined): Promise<string> {
  const root = await client.root();
  const collection = ref(root, 'Systems');
  if (collection === undefined) {
    throw permanentError(Reason.SystemNotFound, 'the Redfish service root has no Systems collection');
  }
  if (systemId !== undefined && trimSlashes(systemId).startsWith('redfish/')) {
    return absolutePath(trimSlashes(systemId));
  }
  const members = refs((await client.load(collection)).resource, 'Members');
  if (systemId !== undefined) {
    const wanted = `/${trimSlashes(systemId)}`;
    const found = members.find((member) => `/${trimSlashes(member)}`.endsWith(wanted));
    if (found === undefined) {
      throw permanentError(Reason.SystemNotFound, `the BMC has no system '${trimSlashes(systemId)}' in ${collection}`);
    }
    return found;
  }
  const [only, ...others] = members;
  if (only === undefined || others.length > 0) {
    throw permanentError(Reason.SystemNotFound, `${collection} lists ${members.length} systems; put the system path in the BMC address`);
  }
  return only;
}

export interface ContextOptions {
  readonly client: RedfishClient;
  readonly clock: Clock;
  readonly logger: RedfishLogger;
  readonly powerTimeoutMs: number;
  readonly systemId: string | undefined;
}

export class SystemContext implements RedfishContext {
  readonly client: RedfishClient;
  readonly clock: Clock;
  readonly logger: RedfishLogger;
  readonly powerTimeoutMs: number;
  pendingBoot: BootOptions | undefined;
  private systemPath: string | undefined;
  private vendor: VendorQuirks | undefined;

  constructor(private readonly options: ContextOptions) {
    this.client = options.client;
    this.clock = options.clock;
    this.logger = options.logger;
    this.powerTimeoutMs = options.powerTimeoutMs;
  }

  async system(): Promise<Loaded> {
    this.systemPath ??= await locateSystem(this.client, this.options.systemId);
    try {
      return await this.client.load(this.systemPath);
    } catch (error) {
      if (error instanceof RedfishHttpError && error.status === 404) {
        throw permanentError(Reason.SystemNotFound, `the BMC has no system at ${this.systemPath}`);
      }
      throw error;
    }
  }

  async quirks(): Promise<VendorQuirks> {
    if (this.vendor === undefined) {
      const system = await this.system();
      const oem = obj(await this.client.root(), 'Oem');
      this.vendor = selectQuirks(text(system.resource, 'Manufacturer'), Object.keys(oem ?? {}));
      this.logger.debug({ vendor: this.vendor.vendor }, 'Redfish vendor quirks selected');
    }
    return this.vendor;
  }
}
