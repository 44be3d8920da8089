// Follows the chassis script's events.log: mirrors the host state, tells listeners about every
// event and every boot. Polls (default every 50 ms, timer unref'd) because ipmi_sim runs the
// script in its own process; nothing else tells us when it ran.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { applyEvent, parseEventLine, readHostState } from './state.js';
import type { BootEvent, SimulatedHostState, SimulatorEvent } from './state.js';

type EventListener = (event: SimulatorEvent, state: SimulatedHostState) => void;
type BootListener = (event: BootEvent) => void;

function notify<T extends unknown[]>(listeners: Iterable<(...args: T) => void>, ...args: T): void {
  for (const listener of listeners) {
    try {
      listener(...args);
    } catch {
      // a listener's failure is its own; the watcher keeps going
    }
  }
}

export class EventLogWatcher {
  private offset: number | undefined;
  private partial = '';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private mirror: SimulatedHostState = { power: 'off', bootDevice: 'none' };
  private readonly eventListeners = new Set<EventListener>();
  private readonly bootListeners = new Set<BootListener>();

  constructor(
    private readonly stateDir: string,
    private readonly pollIntervalMs: number,
  ) {}

  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onBoot(listener: BootListener): () => void {
    this.bootListeners.add(listener);
    return () => this.bootListeners.delete(listener);
  }

  /** Starts following from the current end of the log (or where it stopped before a restart). */
  async start(): Promise<void> {
    this.mirror = await readHostState(this.stateDir);
    this.offset ??= await this.size();
    this.timer = setInterval(() => {
      this.polling ??= this.poll().finally(() => {
        this.polling = undefined;
      });
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    const chunk = await this.readNew();
    if (chunk === '') {
      return;
    }
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const event = parseEventLine(line);
      if (event !== undefined) {
        this.deliver(event);
      }
    }
  }

  private deliver(event: SimulatorEvent): void {
    const { state, boot } = applyEvent(this.mirror, event);
    this.mirror = state;
    notify(this.eventListeners, event, state);
    if (boot !== undefined) {
      notify(this.bootListeners, boot);
    }
  }

  private async size(): Promise<number> {
    return stat(this.logPath).then(
      (info) => info.size,
      () => 0,
    );
  }

  private get logPath(): string {
    return join(this.stateDir, 'events.log');
  }

  private async readNew(): Promise<string> {
    const handle = await open(this.logPath, 'r').catch(() => undefined);
    if (handle === undefined) {
      return '';
    }
    try {
      const { size } = await handle.stat();
      const from = this.offset ?? 0;
      if (size <= from) {
        return '';
      }
      const buffer = Buffer.alloc(size - from);
      await handle.read(buffer, 0, buffer.length, from);
      this.offset = size;
      return buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  }
}
