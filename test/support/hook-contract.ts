// Harness for the hook-contract e2e tests (test/e2e/metacontroller-contract-*.test.ts): a real
// kube-apiserver (devenv/controlplane.ts), Metacontroller's own CRDs from its source tree
// plus the test's CRDs, the REAL Metacontroller v4.17.2 binary (devenv/metacontroller.ts,
// with the chart's flags), and a tiny hook server on 127.0.0.1 whose answers each test scripts.
// Everything listens on 127.0.0.1 and is stopped by PID.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlOrThrow } from '../../devenv/environment.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { METACONTROLLER_CRDS, startMetacontroller } from '../../devenv/metacontroller.js';
import type { MetacontrollerProcess } from '../../devenv/metacontroller.js';
import { stopProcess, waitFor } from '../../devenv/processes.js';

interface HookCall {
  path: string;
  /** Milliseconds since the epoch when the request arrived. */
  at: number;
  body: Record<string, unknown>;
}

interface HookAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent verbatim (to send malformed JSON). */
  body: unknown;
}

type HookHandler = (body: Record<string, unknown>) => HookAnswer | Promise<HookAnswer>;

/** Routes by path; unknown paths answer 404. Every call is recorded. */
class HookServer {
  readonly calls: HookCall[] = [];
  private readonly handlers = new Map<string, HookHandler>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.answer(req, res, Buffer.concat(chunks).toString('utf8'));
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
  }

  private answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    const path = req.url ?? '/';
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      res.writeHead(400).end('request body is not JSON');
      return;
    }
    this.calls.push({ path, at: Date.now(), body });
    const handler = this.handlers.get(path);
    Promise.resolve(handler === undefined ? { status: 404, body: { error: 'no handler' } } : handler(body))
      .then((answer) => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  }

  url(path: string): string {
    return `http://127.0.0.1:${String(this.port)}${path}`;
  }

  on(path: string, handler: HookHandler): void {
    this.handlers.set(path, handler);
  }

  callsTo(path: string): Record<string, unknown>[] {
    return this.timedCallsTo(path).map((call) => call.body);
  }

  timedCallsTo(path: string): HookCall[] {
    return this.calls.filter((call) => call.path === path);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }
}

/** The parts of a Kubernetes object the contract tests look at. */
export interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    resourceVersion?: string;
    generation?: number;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
}

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string; namespace?: string };
}

export interface Harness {
  controlPlane: ControlPlane;
  hooks: HookServer;
  metacontroller: MetacontrollerProcess;
  kubectl(...args: string[]): Promise<string>;
  apply(yaml: string): Promise<void>;
  getJSON<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** The object, or undefined when the get fails (not found). */
  tryGet(...args: string[]): Promise<Obj | undefined>;
  /** Events whose involvedObject is `name` in `namespace` (cluster-scoped objects: "default"). */
  events(namespace: string, name: string): Promise<KubeEvent[]>;
  /** `reason: message` of the Warning events on an object. */
  warnings(namespace: string, name: string): Promise<string[]>;
  /** A fresh namespace. */
  namespace(name: string): Promise<string>;
  /** Metacontroller's log so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Extra or replacing Metacontroller flags (the chart's are the base). */
  flags?: readonly string[];
}

/** Control plane + Metacontroller's CRDs + `crds` (YAML) + real Metacontroller + hook server. */
export async function startHarness(crds: string, options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'ironhook-mc-contract-'));
  const controlPlane = await startControlPlane({ dir });
  try {
    return await startOn(dir, controlPlane, crds, options);
  } catch (error) {
    await controlPlane.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function installCRDs(kubeconfig: string, crds: string): Promise<void> {
  await kubectlOrThrow(kubeconfig, ['apply', '--server-side', '-f', METACONTROLLER_CRDS]);
  if (crds.trim() !== '') await kubectlOrThrow(kubeconfig, ['apply', '-f', '-'], crds);
  await kubectlOrThrow(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}

async function startOn(dir: string, controlPlane: ControlPlane, crds: string, options: HarnessOptions): Promise<Harness> {
  const { kubeconfig } = controlPlane;
  await installCRDs(kubeconfig, crds);
  const hooks = new HookServer();
  await hooks.start();
  let metacontroller: MetacontrollerProcess;
  try {
    metacontroller = await startMetacontroller({ kubeconfig, logDir: join(dir, 'logs'), flags: options.flags ?? [] });
  } catch (error) {
    await hooks.close();
    throw error;
  }
  const kube = async (...args: string[]): Promise<string> => kubectlOrThrow(kubeconfig, args);
  const getJSON = async <T>(...args: string[]): Promise<T> => JSON.parse(await kube('get', ...args, '-o', 'json')) as T;
  const events = async (namespace: string, name: string): Promise<KubeEvent[]> =>
    (await getJSON<{ items: KubeEvent[] }>('events', '-n', namespace, '--field-selector', `involvedObject.name=${name}`)).items;
  const stop = async (): Promise<void> => {
    await stopProcess(metacontroller.pid);
    await hooks.close();
    await controlPlane.stop();
    if (process.env.KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  };
  return {
    controlPlane,
    hooks,
    metacontroller,
    kubectl: kube,
    apply: async (yaml) => {
      await kubectlOrThrow(kubeconfig, ['apply', '-f', '-'], yaml);
    },
    getJSON,
    tryGet: async (...args) => getJSON<Obj>(...args).catch(() => undefined),
    events,
    warnings: async (namespace, name) =>
      (await events(namespace, name)).filter((event) => event.type === 'Warning').map((event) => `${event.reason}: ${event.message}`),
    namespace: async (name) => {
      await kube('create', 'namespace', name);
      return name;
    },
    log: () => readFileSync(metacontroller.log, 'utf8'),
    stop,
  };
}

/** Poll until `probe` returns a value that is not undefined. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
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

/** A namespaced test CRD `<plural>.test.ironhook.dev` (v1, free-form spec and status). */
export function testCRD(kind: string, options: { statusSubresource?: boolean } = {}): string {
  const plural = `${kind.toLowerCase()}s`;
  const subresources = options.statusSubresource === false ? '' : '\n      subresources: {status: {}}';
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.test.ironhook.dev}
spec:
  group: test.ironhook.dev
  scope: Namespaced
  names: {kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()}}
  versions:
    - name: v1
      served: true
      storage: true${subresources}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
            status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
}
