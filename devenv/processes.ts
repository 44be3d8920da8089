// Local processes for tests and the demo environment: started on 127.0.0.1, logged to files,
// stopped by PID. Used by devenv/controlplane.ts, scripts/env.ts and the tests.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CACHE_DIR = process.env.IRONHOOK_CACHE ?? join(homedir(), '.cache', 'ironhook');
const BIN_DIR = join(CACHE_DIR, 'bin');

export function binary(name: string): string {
  return join(BIN_DIR, name);
}

/** The first port of the kernel's ephemeral range: outgoing connections take ports from there on. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/u)[0]);
    return Number.isInteger(low) && low > PORT_FLOOR + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const PORT_FLOOR = 15_000;
const handedOut = new Set<number>();

function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(undefined);
    });
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => {
        resolve(bound);
      });
    });
  });
}

/**
 * A free TCP port on 127.0.0.1, released before it is used. Chosen below the ephemeral range:
 * a port the OS picks from that range can be taken by an outgoing connection (the apiserver's,
 * kubelet's) between this check and the process binding it. Never the same port twice per process.
 */
export async function freePort(): Promise<number> {
  const span = ephemeralLow() - PORT_FLOOR;
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const candidate = PORT_FLOOR + Math.floor(Math.random() * span);
    if (handedOut.has(candidate)) continue;
    const port = await bindable(candidate);
    if (port !== undefined) {
      handedOut.add(port);
      return port;
    }
  }
  const fallback = await bindable(0);
  if (fallback === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return fallback;
}

export interface StartedProcess {
  name: string;
  pid: number;
  log: string;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  logDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Leave the process running after this Node process exits (scripts/env.ts). */
  detached?: boolean;
}

/** Start a process with stdout and stderr appended to `<logDir>/<name>.log`. */
export function startProcess(options: StartOptions): StartedProcess {
  const log = join(options.logDir, `${options.name}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', fd, fd],
    detached: options.detached === true,
  });
  closeSync(fd);
  if (child.pid === undefined) {
    throw new Error(`could not start ${options.name} (${options.command})`);
  }
  if (options.detached === true) {
    child.unref();
  }
  return { name: options.name, pid: child.pid, log };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const delay = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  if (!isAlive(pid)) {
    return;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) {
    await delay(50);
  }
  if (isAlive(pid)) {
    process.kill(pid, 'SIGKILL');
  }
}

/** Poll `probe` every `intervalMs` until it returns true, or fail after `timeoutMs` with `what`. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await probe()) {
        return;
      }
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await delay(intervalMs);
  }
  throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}`);
}

/**
 * Node's arguments for one of Ironhook's programs (`hooks/main`, `drivers/main`): its TypeScript
 * source through tsx, or with IRONHOOK_RUN_FROM=dist the compiled `dist/<entry>.js` that the
 * image runs (`npm run build` first). The scale bench measures the latter: tsx's loader holds
 * the compiler and every transpiled module in memory. IRONHOOK_NODE_ARGS adds Node flags that
 * NODE_OPTIONS refuses (`--cpu-prof --cpu-prof-dir=…` to profile them under load).
 */
export function programArgs(root: string, entry: 'hooks/main' | 'drivers/main'): string[] {
  const flags = (process.env.IRONHOOK_NODE_ARGS ?? '').split(/\s+/u).filter((flag) => flag !== '');
  return [...flags, ...(process.env.IRONHOOK_RUN_FROM === 'dist' ? [join(root, 'dist', `${entry}.js`)] : ['--import', 'tsx', join(root, `${entry}.ts`)])];
}
