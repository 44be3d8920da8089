// Test doubles for the IPMI driver's ports, for this driver's unit tests and for the pool's:
// a virtual clock that never sleeps, and an ipmitool that answers like a small BMC (power,
// boot device, mc info, FRU) and records every invocation. Nothing here touches the network.
import { parseBMCAddress } from '../../domain/bmc/index.js';
import type { BMCConnectionOptions } from '../../drivers/bmc/types.js';
import type { ExecRequest, ExecResult, IPMIExec } from '../../drivers/ipmi/exec.js';

export class FakeClock {
  time = 1_000_000;
  readonly sleeps: number[] = [];

  now = (): number => this.time;

  sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.time += ms;
    await Promise.resolve();
  };
}

export interface FakeCall {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** The command words after "-v". */
  words: string[];
  command: string;
  suite: number;
  startedAt: number;
  endedAt: number;
}

export type Responder = (call: FakeCall, request: ExecRequest) => Partial<ExecResult> | undefined | Promise<Partial<ExecResult> | undefined>;

/** Records calls; each takes `durationMs` of fake time; `responder` may override the fake BMC's answer. */
export class FakeIpmitool {
  readonly calls: FakeCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  power: 'on' | 'off' = 'off';
  bootDevice = 'none';
  /** Status polls after "power soft" before the host reads off (Infinity: never). */
  softOffPolls = 0;
  /** Status polls after "power off" before the host reads off (Infinity: never). */
  hardOffPolls = 0;
  manufacturerId = 4753;
  fru = ' Product Manufacturer  : Ironhook Labs\n Product Name          : IH-1000\n Product Serial        : SN-0042\n';
  responder: Responder | undefined;
  private pollsUntilOff = 0;

  constructor(
    private readonly clock: FakeClock,
    private readonly durationMs = 60,
  ) {}

  exec: IPMIExec = async (request) => {
    const verbose = request.args.indexOf('-v');
    const words = request.args.slice(verbose + 1);
    const suiteIndex = request.args.indexOf('-C');
    const call: FakeCall = {
      args: request.args,
      env: request.env,
      timeoutMs: request.timeoutMs,
      words,
      command: words.join(' '),
      suite: Number(request.args[suiteIndex + 1]),
      startedAt: this.clock.now(),
      endedAt: 0,
    };
    this.calls.push(call);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const override = await this.responder?.(call, request);
      this.clock.time += this.durationMs;
      return { exitCode: 0, stdout: '', stderr: '', timedOut: false, ...(override ?? this.answer(call.command)) };
    } finally {
      call.endedAt = this.clock.now();
      this.inFlight -= 1;
    }
  };

  get commands(): string[] {
    return this.calls.map((call) => call.command);
  }

  private answer(command: string): Partial<ExecResult> {
    const fixed = this.fixedAnswer(command);
    if (fixed !== undefined) {
      return { stdout: fixed };
    }
    const bootdev = /^chassis bootdev (\w+)/.exec(command);
    if (bootdev !== null) {
      this.bootDevice = bootdev[1] ?? this.bootDevice;
      return { stdout: `Set Boot Device to ${this.bootDevice}\n` };
    }
    if (command.startsWith('raw ')) {
      return { stdout: '\n' };
    }
    return { exitCode: 1, stderr: `fake ipmitool: no answer for ${command}\n` };
  }

  private fixedAnswer(command: string): string | undefined {
    switch (command) {
      case 'chassis power status':
        return `Chassis Power is ${this.poll()}\n`;
      case 'chassis power on':
        this.power = 'on';
        return 'Chassis Power Control: Up/On\n';
      case 'chassis power off':
        this.pollsUntilOff = this.hardOffPolls;
        this.settleIfDue();
        return 'Chassis Power Control: Down/Off\n';
      case 'chassis power soft':
        this.pollsUntilOff = this.softOffPolls;
        this.settleIfDue();
        return 'Chassis Power Control: Soft\n';
      case 'mc info':
        return `Device ID                 : 0\nFirmware Revision         : 9.08\nIPMI Version              : 2.0\nManufacturer ID           : ${this.manufacturerId}\nManufacturer Name         : Example Vendor\nProduct ID                : 3842 (0x0f02)\nProduct Name              : Unknown (0xF02)\n`;
      case 'fru print 0':
        return this.fru;
      case 'chassis bootparam get 5':
        return ` Boot Flags :\n   - Boot Flag Invalid\n   - Options apply to only next boot\n   - Boot Device Selector : Force PXE\n`;
      default:
        return undefined;
    }
  }

  private settleIfDue(): void {
    if (this.pollsUntilOff === 0) {
      this.power = 'off';
    }
  }

  private poll(): 'on' | 'off' {
    if (this.power === 'on' && this.pollsUntilOff > 0) {
      this.pollsUntilOff -= 1;
      this.settleIfDue();
    }
    return this.power;
  }
}

/** Connection options for a parsed address (throws when it does not parse). */
export function connection(address = 'ipmi://127.0.0.1:6230', password = 'Canary-Pw-7781', timeoutMs = 30_000): BMCConnectionOptions {
  const parsed = parseBMCAddress(address);
  if (parsed.kind !== 'parsed') {
    throw new Error(`test address ${address} does not parse`);
  }
  return { address: parsed.bmc, credentials: { username: 'admin', password }, disableCertificateVerification: false, timeoutMs };
}
