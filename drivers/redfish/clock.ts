// Time as a port: the driver never reads Date.now() or calls setTimeout
// directly, so unit tests drive waiting with a virtual clock and never sleep.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
};

/** Something that logs like pino (`logger.warn({fields}, 'message')`); never given secrets. */
export interface RedfishLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export const silentLogger: RedfishLogger = {
  debug: () => undefined,
  warn: () => undefined,
};
