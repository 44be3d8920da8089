// The soak's process killer: every killIntervalMs one process kind is SIGKILLed and restarted
// (the first round takes every kind once, in a seeded order; later ones are random), and a
// supervisor restarts any process that exited on its own (a pool replica that lost its lease
// exits, ADR 0022: the kubelet's job in a cluster). Kills and restarts never overlap.
import type { Environment } from '../environment.js';
import { isAlive } from '../processes.js';
import { KILL_KINDS } from './settings.js';
import type { KillKind } from './settings.js';

export interface KillRecord {
  kind: KillKind;
  /** What was killed (a pool replica's name, the emulator's down time). */
  target: string;
  at: number;
  /** How long the restart took until the process was ready again (ms). */
  restartMs: number;
}

const sleep = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** The replica whose metrics say it leads (ironhook_pool_is_leader 1), else the first. */
async function leaderReplica(env: Environment): Promise<number> {
  const ports = env.pool?.metricsPorts ?? [];
  for (const [index, port] of ports.entries()) {
    try {
      const text = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
      if (/^ironhook_pool_is_leader 1$/mu.test(text)) return index;
    } catch {
      // a replica that does not answer is not the leader
    }
  }
  return 0;
}

export class Chaos {
  readonly kills: KillRecord[] = [];
  /** Processes that exited without being killed, restarted by the supervisor, by name. */
  readonly selfExits: Record<string, number> = {};
  /** Kills or restarts that failed (the run fails with them). */
  readonly errors: string[] = [];
  private lock: Promise<unknown> = Promise.resolve();
  private supervising = false;
  private supervisor: Promise<void> | undefined;

  constructor(
    private readonly env: Environment,
    private readonly random: () => number,
  ) {}

  /** Runs `work` after every earlier kill or restart finished. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.lock.then(work, work);
    this.lock = next.catch(() => undefined);
    return next;
  }

  async kill(kind: KillKind): Promise<KillRecord> {
    return this.exclusive(async () => {
      const at = Date.now();
      const target = await this.killOne(kind);
      const record = { kind, target, at, restartMs: Date.now() - at };
      this.kills.push(record);
      return record;
    });
  }

  private async killOne(kind: KillKind): Promise<string> {
    const env = this.env;
    switch (kind) {
      case 'hooks':
        await env.restartHooks({ kill: true });
        return 'hooks';
      case 'pool': {
        const replica = await leaderReplica(env);
        await env.pool?.restart({ kill: true, replica });
        return `driver-pool-${String(replica)} (leader)`;
      }
      case 'metacontroller':
        await env.restartMetacontroller();
        return 'metacontroller';
      case 'apiserver':
        await env.restartApiserver();
        return 'kube-apiserver';
      case 'emulators': {
        const downMs = 1_000 + Math.round(this.random() * 4_000);
        await env.bmcs?.redfish.restart(downMs);
        return `redfish emulator (down ${String(downMs)} ms)`;
      }
    }
  }

  /** The kill loop: one kill every interval until `until()` says stop; every kind at least once first. */
  async loop(intervalMs: readonly [number, number], until: () => boolean): Promise<void> {
    const first = [...KILL_KINDS].sort(() => this.random() - 0.5);
    while (!until() || first.length > 0) {
      const [min, max] = intervalMs;
      await sleep(min + Math.round((max - min) * this.random()));
      const kind = first.shift() ?? KILL_KINDS[Math.floor(this.random() * KILL_KINDS.length)] ?? 'hooks';
      try {
        const record = await this.kill(kind);
        process.stdout.write(`soak: killed ${record.target}, ready again after ${String(record.restartMs)} ms\n`);
      } catch (error) {
        this.errors.push(`kill ${kind}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** Checks every second that each process runs and restarts the ones that exited on their own. */
  supervise(): void {
    this.supervising = true;
    const tick = async (): Promise<void> => {
      while (this.supervising) {
        await this.exclusive(async () => this.reviveDead()).catch((error: unknown) => {
          this.errors.push(`supervisor: ${error instanceof Error ? error.message : String(error)}`);
        });
        await sleep(1_000);
      }
    };
    this.supervisor = tick();
  }

  async stopSupervising(): Promise<void> {
    this.supervising = false;
    await this.supervisor;
  }

  private async reviveDead(): Promise<void> {
    const env = this.env;
    const dead = (name: string): boolean => env.processes.some((started) => started.name === name && !isAlive(started.pid));
    const revive = async (name: string, restart: () => Promise<void>): Promise<void> => {
      if (!dead(name)) return;
      this.selfExits[name] = (this.selfExits[name] ?? 0) + 1;
      process.stdout.write(`soak: ${name} exited on its own; restarting it\n`);
      await restart();
    };
    await revive('kube-apiserver', async () => env.restartApiserver());
    await revive('metacontroller', async () => env.restartMetacontroller());
    await revive('hooks', async () => env.restartHooks({ kill: true }));
    for (const [replica, started] of (env.pool?.replicas ?? []).entries()) {
      await revive(started.name, async () => env.pool?.restart({ kill: true, replica }));
    }
  }
}
