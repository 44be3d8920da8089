// One emulated machine: power with delayed transitions, boot override (Once consumed at the
// next power-on, Continuous kept), virtual media slots, faults, the account and its lockout, and
// a log of the actions it received. No HTTP here: the routes call these methods.
import type { Scheduler } from './clock.js';
import { PERSONALITIES } from './personalities/index.js';
import type { MediaDeviceTemplate, Personality } from './personalities/index.js';
import type { FaultConfig, NICConfig, StateChangeEvent, SystemConfig } from './types.js';

export type PowerDisplay = 'On' | 'Off' | 'PoweringOn' | 'PoweringOff';

export interface BootState {
  target: string;
  enabled: 'Disabled' | 'Once' | 'Continuous';
  mode: 'UEFI' | 'Legacy';
  httpBootUri?: string;
}

/** UEFI secure boot: the setting, a change staged for the next boot, and what the last boot ran with. */
export interface SecureBootState {
  enabled: boolean;
  staged: boolean | undefined;
  currentBoot: 'Enabled' | 'Disabled';
}

export interface MediaState {
  image: string | undefined;
  inserted: boolean;
  writeProtected: boolean;
}

export interface ActionRecord {
  readonly time: string;
  readonly action: string;
  readonly detail?: string;
}

export type LoginResult = 'ok' | 'wrong' | 'locked' | 'unknown-user';

export interface SystemDeps {
  readonly scheduler: Scheduler;
  readonly random: () => number;
  readonly emit: (system: EmulatedSystem, event: StateChangeEvent) => void;
  readonly powerDelayMs: number | [number, number];
}

type ResetEffect = 'on' | 'off' | 'restart' | 'toggle' | 'none';

const RESET_EFFECTS: Readonly<Record<string, ResetEffect>> = {
  On: 'on',
  ForceOn: 'on',
  ForceOff: 'off',
  GracefulShutdown: 'off',
  GracefulRestart: 'restart',
  ForceRestart: 'restart',
  PowerCycle: 'restart',
  PushPowerButton: 'toggle',
  Nmi: 'none',
};

export function nicsOf(config: SystemConfig): NICConfig[] {
  const fromMacs = (config.macs ?? []).map((mac) => ({ mac }));
  return [...(config.nics ?? []), ...fromMacs];
}

export class EmulatedSystem {
  readonly personality: Personality;
  boot: BootState;
  readonly secureBoot: SecureBootState;
  readonly media = new Map<string, MediaState>();
  faults: FaultConfig;
  failedLogins = 0;
  readonly actions: ActionRecord[] = [];
  private stable: 'On' | 'Off';
  private pending: { target: 'On' | 'Off'; cancel: () => void } | undefined;
  private lockedUntil: number | undefined;

  constructor(
    readonly config: SystemConfig,
    private readonly deps: SystemDeps,
  ) {
    this.personality = PERSONALITIES[config.personality ?? 'generic'];
    this.stable = config.powerState ?? 'Off';
    this.boot = { target: 'None', enabled: 'Disabled', mode: 'UEFI' };
    const enabled = config.secureBootEnabled === true;
    this.secureBoot = { enabled, staged: undefined, currentBoot: enabled ? 'Enabled' : 'Disabled' };
    this.faults = { ...config.faults };
    for (const device of this.mediaDevices()) {
      this.media.set(device.id, { image: undefined, inserted: false, writeProtected: true });
    }
  }

  get id(): string {
    return this.config.id;
  }

  get powerState(): PowerDisplay {
    if (this.pending === undefined || this.config.transitionalStates !== true) {
      return this.stable;
    }
    return this.pending.target === 'On' ? 'PoweringOn' : 'PoweringOff';
  }

  /** The personality's virtual media devices; none when the config says virtualMedia: false. */
  mediaDevices(): readonly MediaDeviceTemplate[] {
    return this.config.virtualMedia === false ? [] : this.personality.mediaDevices;
  }

  macs(): string[] {
    return nicsOf(this.config).map((nic) => nic.mac.toLowerCase());
  }

  record(action: string, detail?: string): void {
    this.actions.push({ time: new Date(this.deps.scheduler.now()).toISOString(), action, ...(detail === undefined ? {} : { detail }) });
  }

  /** Applies a ResetType the route already validated. */
  reset(resetType: string): void {
    this.record('Reset', resetType);
    const effect = RESET_EFFECTS[resetType] ?? 'none';
    if (effect === 'on' || (effect === 'toggle' && this.stable === 'Off')) {
      this.transition('On');
    } else if (effect === 'off' || effect === 'toggle') {
      this.transition('Off');
    } else if (effect === 'restart') {
      this.restart();
    }
  }

  /** Sets the power state directly (for the fake agent's "the OS shut down", and for tests). */
  forcePower(state: 'On' | 'Off'): void {
    this.cancelPending();
    this.settle(state);
  }

  /** Applies a Boot PATCH the route already validated. */
  patchBoot(patch: Partial<BootState>, changesDevice: boolean): void {
    this.boot = { ...this.boot, ...patch };
    if (changesDevice && patch.mode === undefined && this.personality.bootModeResetsToLegacy) {
      this.boot.mode = 'Legacy';
    }
    this.record('SetBoot', `${this.boot.target} ${this.boot.enabled} ${this.boot.mode}`);
    this.emitEvent('boot-override');
  }

  /** Applies a SecureBootEnable PATCH the route already validated: now, or at the next power-on. */
  setSecureBoot(enabled: boolean): void {
    const atBoot = this.config.secureBootAppliesAtBoot === true;
    if (atBoot) {
      this.secureBoot.staged = enabled;
    } else {
      this.secureBoot.enabled = enabled;
    }
    this.record('SetSecureBoot', `${enabled ? 'Enabled' : 'Disabled'}${atBoot ? ' at next boot' : ''}`);
  }

  insertMedia(device: string, image: string, writeProtected: boolean): void {
    this.media.set(device, { image, inserted: true, writeProtected });
    this.record('InsertMedia', `${device} ${image}`);
    this.emitEvent('virtual-media');
  }

  ejectMedia(device: string): void {
    this.media.set(device, { image: undefined, inserted: false, writeProtected: true });
    this.record('EjectMedia', device);
    this.emitEvent('virtual-media');
  }

  /** The CD/DVD slot's state (what a booting machine would see). */
  cdMedia(): { inserted: boolean; image?: string } {
    const cd = this.mediaDevices().find((device) => device.mediaTypes.includes('CD'));
    const state = cd === undefined ? undefined : this.media.get(cd.id);
    return state?.inserted === true && state.image !== undefined ? { inserted: true, image: state.image } : { inserted: false };
  }

  /** Whether these credentials would be accepted now (no side effects). */
  accepts(username: string, password: string): boolean {
    return username === this.config.username && password === this.config.password && !this.locked;
  }

  /** A login attempt: counts wrong passwords and locks the account after faults.lockoutAfter. */
  login(username: string, password: string): LoginResult {
    if (username !== this.config.username) {
      return 'unknown-user';
    }
    if (this.lockedUntil !== undefined && this.deps.scheduler.now() < this.lockedUntil) {
      return 'locked';
    }
    this.lockedUntil = undefined;
    if (password !== this.config.password) {
      this.failedLogins += 1;
      const limit = this.faults.lockoutAfter;
      if (limit !== undefined && this.failedLogins >= limit) {
        this.lockedUntil = this.deps.scheduler.now() + (this.faults.lockoutMs ?? Number.POSITIVE_INFINITY);
      }
      return 'wrong';
    }
    this.failedLogins = 0;
    return 'ok';
  }

  unlock(): void {
    this.lockedUntil = undefined;
    this.failedLogins = 0;
  }

  get locked(): boolean {
    return this.lockedUntil !== undefined && this.deps.scheduler.now() < this.lockedUntil;
  }

  /** Cancels pending transitions (emulator shutdown). */
  cancelPending(): void {
    this.pending?.cancel();
    this.pending = undefined;
  }

  private restart(): void {
    if (this.stable === 'On') {
      this.cancelPending();
      this.settle('Off');
    }
    this.transition('On');
  }

  private delay(): number {
    const configured = this.config.powerDelayMs ?? this.deps.powerDelayMs;
    if (typeof configured === 'number') {
      return configured;
    }
    const [min, max] = configured;
    return Math.round(min + (max - min) * this.deps.random());
  }

  private transition(target: 'On' | 'Off'): void {
    this.cancelPending();
    if (this.faults.powerNeverSettles === true || this.stable === target) {
      return;
    }
    const delay = this.delay();
    if (delay <= 0) {
      this.settle(target);
      return;
    }
    const cancel = this.deps.scheduler.schedule(delay, () => {
      this.pending = undefined;
      this.settle(target);
    });
    this.pending = { target, cancel };
  }

  private settle(target: 'On' | 'Off'): void {
    const previous = this.stable;
    this.stable = target;
    if (previous === target) {
      return;
    }
    if (target === 'Off') {
      this.emitEvent('power-off');
      return;
    }
    this.bootSecureBoot();
    const booted = this.boot.enabled !== 'Disabled' && this.boot.target !== 'None' ? this.boot.target : 'Hdd';
    this.emitEvent('power-on', booted);
    if (this.boot.enabled === 'Once') {
      this.boot = { ...this.boot, enabled: 'Disabled', target: 'None' };
    }
  }

  /** A power-on applies a staged secure boot change; the boot runs secured only in UEFI mode. */
  private bootSecureBoot(): void {
    if (this.secureBoot.staged !== undefined) {
      this.secureBoot.enabled = this.secureBoot.staged;
      this.secureBoot.staged = undefined;
    }
    this.secureBoot.currentBoot = this.secureBoot.enabled && this.boot.mode === 'UEFI' ? 'Enabled' : 'Disabled';
  }

  private emitEvent(type: StateChangeEvent['type'], bootedFrom?: string): void {
    this.deps.emit(this, {
      type,
      system: this.id,
      powerState: this.stable,
      bootSourceTarget: bootedFrom ?? this.boot.target,
      bootSourceEnabled: this.boot.enabled,
      bootSourceMode: this.boot.mode,
      virtualMedia: this.cdMedia(),
      macs: this.macs(),
      time: new Date(this.deps.scheduler.now()).toISOString(),
    });
  }
}
