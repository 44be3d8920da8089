// The Redfish BMCDriver: one client and one located System per BMC address. Registered in
// drivers/bmc/registry.ts for the `redfish` and `idrac` driver families.
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import { redfishBaseURL } from '../../domain/bmc/index.js';
import type { BMCSchemeCapabilities } from '../../domain/bmc/index.js';
import type { BMCCheckNeeds, BMCConnectionOptions, BMCDriver, BootOptions, PowerAction, PowerState, VirtualMediaState } from '../bmc/types.js';
import type { AuthMode } from './auth.js';
import { reapplyPendingBoot, setBootDevice } from './boot.js';
import { checkBMC } from './check.js';
import type { RedfishCheck } from './check.js';
import { RedfishClient } from './client.js';
import { silentLogger, systemClock } from './clock.js';
import type { Clock, RedfishLogger } from './clock.js';
import { SystemContext } from './context.js';
import { Reason, permanentError } from './errors.js';
import { readInventory } from './inventory.js';
import { powerStateOf, setPower } from './power.js';
import { getSecureBoot, setSecureBoot } from './secureboot.js';
import type { HttpTransport } from './transport.js';
import { ejectVirtualMedia, getVirtualMedia, insertVirtualMedia } from './vmedia.js';

export interface RedfishDriverOptions extends BMCConnectionOptions {
  /** Default "auto": a session when the BMC offers one, basic otherwise. */
  readonly authMode?: AuthMode;
  readonly clock?: Clock;
  readonly logger?: RedfishLogger;
  /** How long a hard reboot waits for the off state before powering on (default 60 s). */
  readonly powerTimeoutMs?: number;
  /** Extra attempts for a GET that failed transiently (default 2) and the pause between them (1 s). */
  readonly getRetries?: number;
  readonly retryDelayMs?: number;
  /** Upper bound for following a 202 task monitor (default 10 minutes). */
  readonly taskTimeoutMs?: number;
  /** Replaces the undici transport (tests). */
  readonly transport?: HttpTransport;
}

export class RedfishDriver implements BMCDriver {
  readonly family: 'redfish' | 'idrac';
  private readonly context: SystemContext;
  private readonly capabilities: BMCSchemeCapabilities;

  constructor(options: RedfishDriverOptions) {
    const origin = redfishBaseURL(options.address);
    if (origin === undefined || options.address.driver === 'ipmi') {
      throw permanentError(Reason.Unsupported, `the Redfish driver cannot use a '${options.address.scheme}' address`);
    }
    this.family = options.address.driver;
    this.capabilities = options.address.capabilities;
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? silentLogger;
    const client = new RedfishClient({
      origin,
      credentials: options.credentials,
      timeoutMs: options.timeoutMs,
      insecure: options.disableCertificateVerification,
      clock,
      logger,
      ...optional(options),
    });
    this.context = new SystemContext({ client, clock, logger, powerTimeoutMs: options.powerTimeoutMs ?? 60_000, systemId: options.address.systemId });
  }

  async check(needs: BMCCheckNeeds = {}): Promise<RedfishCheck> {
    return checkBMC(this.context, this.capabilities, needs);
  }

  async getPower(): Promise<PowerState> {
    return powerStateOf(await this.context.system());
  }

  async setPower(action: PowerAction): Promise<void> {
    await setPower(this.context, action, reapplyPendingBoot);
  }

  async setBootDevice(options: BootOptions): Promise<void> {
    await setBootDevice(this.context, options);
  }

  async insertVirtualMedia(url: string): Promise<void> {
    await insertVirtualMedia(this.context, url);
  }

  async ejectVirtualMedia(): Promise<void> {
    await ejectVirtualMedia(this.context);
  }

  async getVirtualMedia(): Promise<VirtualMediaState> {
    return getVirtualMedia(this.context);
  }

  async getSecureBoot(): Promise<boolean | undefined> {
    return getSecureBoot(this.context);
  }

  async setSecureBoot(enabled: boolean): Promise<boolean> {
    return setSecureBoot(this.context, enabled);
  }

  async inventory(): Promise<HardwareDetails> {
    return readInventory(this.context, await this.context.system());
  }

  async close(): Promise<void> {
    await this.context.client.close();
  }
}

/** The optional client settings that were given (so undefined never overrides a default). */
function optional(options: RedfishDriverOptions): Partial<ConstructorParameters<typeof RedfishClient>[0]> {
  const picked = {
    caBundle: options.caBundle,
    pinnedAddresses: options.pinnedAddresses,
    authMode: options.authMode,
    getRetries: options.getRetries,
    retryDelayMs: options.retryDelayMs,
    taskTimeoutMs: options.taskTimeoutMs,
    transport: options.transport,
  };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined));
}

/** The factory the driver registry uses for the `redfish` and `idrac` families. */
export function createRedfishDriver(options: RedfishDriverOptions): RedfishDriver {
  return new RedfishDriver(options);
}
