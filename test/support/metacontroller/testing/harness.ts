// Integration-test harness for the Metacontroller stand-in: a real kube-apiserver
// (test/support/controlplane.ts), the stand-in's CRDs plus test CRDs, the stand-in running
// in-process, and a tiny hook server on 127.0.0.1 whose answers each test scripts.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startControlPlane } from '../../controlplane.js';
import type { ControlPlane } from '../../controlplane.js';
import { binary, waitFor } from '../../processes.js';
import { defaults } from '../flags.js';
import { startStandIn } from '../run.js';
import type { StandIn } from '../run.js';

const run = promisify(execFile);
const CRDS = fileURLToPath(new URL('../crds.yaml', import.meta.url));

export interface HookCall {
  path: string;
  body: Record<string, unknown>;
}

export interface HookAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

export type HookHandler = (body: Record<string, unknown>) => HookAnswer | Promise<HookAnswer>;

/** Routes by path; unknown paths answer 404. Every call is recorded. */
export class HookServer {
  readonly calls: HookCall[] = [];
  private readonly handlers = new Map<string, HookHandler>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        this.calls.push({ path, body });
        const handler = this.handlers.get(path);
        Promise.resolve(handler === undefined ? { status: 404, body: { error: 'no handler' } } : handler(body))
          .then((answer) => {
            res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
            res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
          })
          .catch((error: unknown) => {
            res.writeHead(500).end(String(error));
          });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
  }

  url(path: string): string {
    return `http://127.0.0.1:${String(this.port)}${path}`;
  }

  on(path: string, handler: HookHandler): void {
    this.handlers.set(path, handler);
  }

  callsTo(path: string): Record<string, unknown>[] {
    return this.calls.filter((call) => call.path === path).map((call) => call.body);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => { resolve(); }));
  }
}

export interface Harness {
  controlPlane: ControlPlane;
  hooks: HookServer;
  standIn: StandIn;
  logs: string[];
  kubectl(...args: string[]): Promise<string>;
  apply(yaml: string): Promise<void>;
  getJSON<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  stop(): Promise<void>;
}

async function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const child = run(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 32 * 1024 * 1024 });
  if (input !== undefined) child.child.stdin?.end(input);
  try {
    return (await child).stdout;
  } catch (error) {
    const failure = error as { stderr?: string };
    throw new Error(`kubectl ${args.join(' ')}: ${failure.stderr ?? String(error)}`);
  }
}

/** Control plane + stand-in CRDs + `crds` (YAML) + stand-in + hook server. */
export async function startHarness(crds: string): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'ironhook-mc-'));
  const controlPlane = await startControlPlane({ dir });
  try {
    return await startOn(dir, controlPlane, crds);
  } catch (error) {
    await controlPlane.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startOn(dir: string, controlPlane: ControlPlane, crds: string): Promise<Harness> {
  const { kubeconfig } = controlPlane;
  const apply = async (yaml: string): Promise<void> => {
    await kubectl(kubeconfig, ['apply', '-f', '-'], yaml);
  };
  await kubectl(kubeconfig, ['apply', '--server-side', '-f', CRDS]);
  if (crds.trim() !== '') await apply(crds);
  await kubectl(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  const hooks = new HookServer();
  await hooks.start();
  const logs: string[] = [];
  const options = { ...defaults(), kubeconfig, discoveryIntervalMs: 1000, healthProbeBindAddress: '0', metricsAddress: '0', verbosity: Number(process.env.MC_VERBOSITY ?? 4) };
  const standIn = await startStandIn(options, (line) => {
    logs.push(line);
    if (process.env.MC_LOG === '1') process.stdout.write(`${line}\n`);
  });
  const stop = async (): Promise<void> => {
    await standIn.stop();
    await hooks.close();
    await controlPlane.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const getJSON = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(kubeconfig, ['get', ...args, '-o', 'json'])) as T;
  return { controlPlane, hooks, standIn, logs, kubectl: async (...args) => kubectl(kubeconfig, args), apply, getJSON, stop };
}

/** Poll until `probe` returns a value that is not undefined. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  let found: T | undefined;
  await waitFor(
    what,
    async () => {
      found = await probe();
      return found !== undefined;
    },
    timeoutMs,
    100,
  );
  return found as T;
}
