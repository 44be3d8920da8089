// One command at a time per BMC, with a minimum quiet time between two commands (Ironic's
// min_command_interval: some BMCs crash when polled faster). Gates are keyed by "host:port" and
// shared by every driver instance in the process, as Ironic keeps its map process-global.

/** The two clock operations a gate needs (structurally the driver's IPMIClock). */
export interface GateClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export class CommandGate {
  private tail: Promise<unknown> = Promise.resolve();
  private lastEnd = Number.NEGATIVE_INFINITY;
  /** The cipher suite that last worked for this BMC, tried first next time. */
  workingCipherSuite: number | undefined;

  /** Runs `task` after every earlier task of this gate, and at least `minIntervalMs` after the last one ended. */
  async run<T>(clock: GateClock, minIntervalMs: number, task: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    const turn = (async (): Promise<T> => {
      await previous.catch(() => undefined);
      const wait = this.lastEnd + minIntervalMs - clock.now();
      if (wait > 0) {
        await clock.sleep(wait);
      }
      try {
        return await task();
      } finally {
        this.lastEnd = clock.now();
      }
    })();
    this.tail = turn;
    return turn;
  }
}

export class GateRegistry {
  private readonly gates = new Map<string, CommandGate>();

  gate(key: string): CommandGate {
    let gate = this.gates.get(key);
    if (gate === undefined) {
      gate = new CommandGate();
      this.gates.set(key, gate);
    }
    return gate;
  }
}

/** The process-wide registry the driver uses unless settings inject another. */
export const processGates = new GateRegistry();
