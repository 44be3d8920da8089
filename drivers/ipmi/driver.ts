// The IPMI BMCDriver over Debian's ipmitool (docs/ipmi.md). Every BMC call is one
// or more ipmitool runs through IpmitoolTransport; this file maps the driver interface onto
// them and parses what comes back.
import { IPMI_PRIVILEGE_LEVELS } from '../../domain/bmc/index.js';
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import { BMCError } from '../bmc/types.js';
import type {
  BMCCheck,
  BMCCheckNeeds,
  BMCConnectionOptions,
  BMCDriver,
  BMCDriverFactory,
  BootOptions,
  PowerAction,
  PowerState,
  VirtualMediaState,
} from '../bmc/types.js';
import { BOOT_PARAMETERS, FRU_PRINT, MC_INFO, POWER_STATUS, powerControl } from './argv.js';
import type { IPMICommand, PowerControl } from './argv.js';
import { bootSteps } from './boot.js';
import type { BootStep } from './boot.js';
import { IPMIParseError, parseBootParameters, parseBootdevAck, parseFRU, parseMCInfo, parsePowerControlAck, parsePowerStatus, parseRawEmpty } from './parse.js';
import type { BootParameters, FRUProduct, MCInfo } from './parse.js';
import { quirksFor } from './quirks.js';
import { resolveIPMISettings } from './settings.js';
import type { IPMISettings } from './settings.js';
import { IpmitoolTransport } from './transport.js';

const VIRTUAL_MEDIA_UNSUPPORTED = 'IPMI has no virtual media; use a Redfish virtual-media scheme (redfish-virtualmedia, idrac-virtualmedia, ilo5-virtualmedia)';

/** Reasons under which check() reports the BMC as not usable instead of throwing. */
const UNREACHABLE_REASONS = new Set(['BMCUnreachable', 'Timeout']);
const REJECTED_REASONS = new Set(['CredentialsInvalid', 'CipherSuiteUnsupported', 'InvalidPrivilegeLevel']);

function privilegeLevelOf(options: BMCConnectionOptions): string {
  const level = (options.address.privilegeLevel ?? 'ADMINISTRATOR').toUpperCase();
  if (!IPMI_PRIVILEGE_LEVELS.includes(level)) {
    throw new BMCError('Permanent', 'InvalidPrivilegeLevel', `IPMI privilege level ${JSON.stringify(level)} is not one of ${IPMI_PRIVILEGE_LEVELS.join(', ')}`);
  }
  return level;
}

function unexpected(operation: string, error: unknown): BMCError {
  const detail = error instanceof IPMIParseError ? error.message : String(error);
  return new BMCError('Transient', 'UnexpectedResponse', `ipmitool ${operation}: ${detail}`, { cause: error });
}

function asBMCError(error: unknown): BMCError | undefined {
  return error instanceof BMCError ? error : undefined;
}

export class IPMIDriver implements BMCDriver {
  readonly family = 'ipmi' as const;
  private readonly transport: IpmitoolTransport;
  private mcInfoCache: MCInfo | undefined;

  constructor(
    private readonly options: BMCConnectionOptions,
    private readonly settings: IPMISettings,
  ) {
    if (options.address.driver !== 'ipmi') {
      throw new BMCError('Permanent', 'UnknownDriver', `the IPMI driver cannot serve ${options.address.scheme} addresses`);
    }
    const target = {
      host: options.address.host,
      port: options.address.port ?? 623,
      privilegeLevel: privilegeLevelOf(options),
      username: options.credentials.username,
      password: options.credentials.password,
    };
    this.transport = new IpmitoolTransport(target, settings, options.timeoutMs);
  }

  /** "host:port" of the BMC. */
  get bmc(): string {
    return this.transport.bmc;
  }

  async check(needs: BMCCheckNeeds = {}): Promise<BMCCheck> {
    const result: BMCCheck = { reachable: false, authenticated: false, identity: {}, missing: this.missingCapabilities(needs) };
    try {
      const info = await this.refreshMCInfo();
      result.reachable = true;
      result.authenticated = true;
      result.identity = this.identity(info);
      result.powerState = await this.getPower();
    } catch (error) {
      const bmcError = asBMCError(error);
      const reason = bmcError?.reason ?? '';
      if (bmcError === undefined || (!UNREACHABLE_REASONS.has(reason) && !REJECTED_REASONS.has(reason))) {
        throw error;
      }
      result.reachable ||= REJECTED_REASONS.has(reason);
      result.problem = { kind: bmcError.kind, reason, message: bmcError.message };
    }
    return result;
  }

  async getPower(): Promise<PowerState> {
    return this.parsed(POWER_STATUS, parsePowerStatus);
  }

  async setPower(action: PowerAction): Promise<void> {
    switch (action) {
      case 'on':
        return this.control('on');
      case 'off':
        return this.control('off');
      case 'soft-off':
        return this.control('soft');
      case 'reboot':
        return this.reboot(false);
      case 'soft-reboot':
        return this.reboot(true);
    }
  }

  async setBootDevice(options: BootOptions): Promise<void> {
    const uefiDiskCode = options.mode === 'UEFI' && options.device === 'disk' ? (await this.quirks()).uefiDiskCode : undefined;
    const style = { uefiBootMethod: this.settings.uefiBootMethod, disableBootTimeout: this.settings.disableBootTimeout, uefiDiskCode };
    for (const step of bootSteps(options, style)) {
      await this.parsed(step.command, (stdout) => {
        checkBootStep(step, stdout);
      });
    }
  }

  /** What `chassis bootparam get 5` reports (not part of BMCDriver; for checks and tests). */
  async getBootParameters(): Promise<BootParameters> {
    return this.parsed(BOOT_PARAMETERS, parseBootParameters);
  }

  /**
   * One `chassis power <control>` as is, acknowledgement checked (not part of BMCDriver).
   * setPower never sends cycle or reset; they are here for the CLI and the simulator tests.
   */
  async control(control: PowerControl): Promise<void> {
    await this.parsed(powerControl(control), (stdout) => {
      parsePowerControlAck(stdout, control);
    });
  }

  insertVirtualMedia(): Promise<void> {
    return Promise.reject(new BMCError('Permanent', 'Unsupported', VIRTUAL_MEDIA_UNSUPPORTED));
  }

  ejectVirtualMedia(): Promise<void> {
    return Promise.reject(new BMCError('Permanent', 'Unsupported', VIRTUAL_MEDIA_UNSUPPORTED));
  }

  getVirtualMedia(): Promise<VirtualMediaState> {
    return Promise.reject(new BMCError('Permanent', 'Unsupported', VIRTUAL_MEDIA_UNSUPPORTED));
  }

  /** IPMI has no secure boot control (Ironic's ipmitool management interface has none either). */
  getSecureBoot(): Promise<boolean | undefined> {
    return Promise.resolve(undefined);
  }

  setSecureBoot(): Promise<boolean> {
    return Promise.reject(new BMCError('Permanent', 'Unsupported', 'IPMI cannot configure UEFI secure boot; use a redfish-family BMC address'));
  }

  /**
   * What IPMI can tell: the system vendor, product and serial from FRU 0 (falling back to the
   * BMC's manufacturer from `mc info`). No CPU, RAM, NICs or disks: those need Redfish ("fast"
   * inspection) or the agent. BMC firmware is not the BIOS version, so firmware stays empty;
   * check() reports it in identity.
   */
  async inventory(): Promise<HardwareDetails> {
    const info = await this.mcInfo();
    const fru = await this.fru();
    const systemVendor: NonNullable<HardwareDetails['systemVendor']> = { manufacturer: fru.manufacturer ?? info.manufacturerName };
    if (fru.productName !== undefined) systemVendor.productName = fru.productName;
    if (fru.serialNumber !== undefined) systemVendor.serialNumber = fru.serialNumber;
    return { systemVendor };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private missingCapabilities(needs: BMCCheckNeeds): string[] {
    return [
      ...(this.options.address.capabilities.bootsISO ? ['VirtualMedia'] : []),
      ...(needs.secureBoot === true ? ['SecureBoot (spec.bootMode is UEFISecureBoot)'] : []),
    ];
  }

  private identity(info: MCInfo): Record<string, string> {
    return {
      manufacturer: info.manufacturerName,
      manufacturerId: String(info.manufacturerId),
      product: info.productName,
      productId: info.productId,
      firmwareRevision: info.firmwareRevision,
      ipmiVersion: info.ipmiVersion,
      cipherSuite: String(this.transport.cipherSuite),
    };
  }

  private async parsed<T>(command: IPMICommand, parse: (stdout: string) => T): Promise<T> {
    const stdout = await this.transport.run(command);
    try {
      return parse(stdout);
    } catch (error) {
      throw unexpected(command.operation, error);
    }
  }

  private async mcInfo(): Promise<MCInfo> {
    return this.mcInfoCache ?? this.refreshMCInfo();
  }

  private async refreshMCInfo(): Promise<MCInfo> {
    this.mcInfoCache = await this.parsed(MC_INFO, parseMCInfo);
    return this.mcInfoCache;
  }

  private async quirks(): Promise<ReturnType<typeof quirksFor>> {
    return quirksFor((await this.mcInfo()).manufacturerId);
  }

  /** FRU 0 when the BMC has one; a BMC without FRU data (ipmi_sim by default) gives nothing. */
  private async fru(): Promise<FRUProduct> {
    try {
      return await this.parsed(FRU_PRINT, parseFRU);
    } catch (error) {
      if (asBMCError(error)?.reason === 'Unsupported') {
        return {};
      }
      throw error;
    }
  }

  /**
   * Hard reboot like Ironic's: read power; when not off, `power off` and poll until off; then
   * `power on`. Soft reboot sends `power soft` instead and, when the host is still on after
   * softPowerOffTimeoutMs, falls back to `power off`. Ironic uses neither `power cycle` nor
   * `power reset` for reboots, and neither does this driver.
   */
  private async reboot(soft: boolean): Promise<void> {
    if ((await this.getPower()) !== 'off') {
      const settled = soft && (await this.offWithin('soft', this.settings.softPowerOffTimeoutMs));
      if (!settled && !(await this.offWithin('off', this.settings.powerOffTimeoutMs))) {
        throw new BMCError('Transient', 'PowerTimeout', `${this.bmc} still on ${this.settings.powerOffTimeoutMs} ms after power off`);
      }
    }
    await this.control('on');
  }

  /** Sends `control` and polls power status until it reads off; false when time runs out. */
  private async offWithin(control: PowerControl, timeoutMs: number): Promise<boolean> {
    await this.control(control);
    const { clock, powerPollIntervalMs } = this.settings;
    const deadline = clock.now() + timeoutMs;
    while ((await this.getPower()) !== 'off') {
      if (clock.now() >= deadline) {
        return false;
      }
      await clock.sleep(powerPollIntervalMs);
    }
    return true;
  }
}

function checkBootStep(step: BootStep, stdout: string): void {
  if (step.expect.kind === 'raw') {
    parseRawEmpty(stdout);
  } else {
    parseBootdevAck(stdout, step.expect.device);
  }
}

/** A driver for one BMC; throws a permanent BMCError for settings or addresses it cannot use. */
export function createIPMIDriver(options: BMCConnectionOptions, settings?: Partial<IPMISettings>): IPMIDriver {
  return new IPMIDriver(options, resolveIPMISettings(settings));
}

/** A factory for the driver registry, with the settings resolved (and checked) once. */
export function createIPMIDriverFactory(settings?: Partial<IPMISettings>): BMCDriverFactory {
  const resolved = resolveIPMISettings(settings);
  return (options) => new IPMIDriver(options, resolved);
}
