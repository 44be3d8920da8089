// `npm run env:up` / `npm run env:down`: the local environment in .ironhook/ (git-ignored),
// left running in the background; everything listens on 127.0.0.1 and is stopped by PID.
// Besides the control plane, hooks and Metacontroller it runs, as detached processes: a file
// server for images, Ironhook's Redfish emulator (demo-02, demo-03), an ipmi_sim host (demo-01),
// the fake agent (booted by the Redfish emulator's notifications) and the driver pool, and it
// creates the hosts' credentials Secret. examples/demo/hosts.yaml describes exactly these BMCs.
// The hook server also serves the CRD conversion webhook over HTTPS (CONVERSION_TLS_PORT, 8443)
// with a CA made in .ironhook/conversion-tls, so v1beta1 Cluster API objects work too.
// With Cluster API's core manager built (~/.cache/ironhook/bin/capi-manager) it also starts a
// workload cluster (a second etcd + kube-apiserver in .ironhook/workload, published as the Secret
// default/demo-kubeconfig) and the manager, for examples/demo/cluster.yaml (docs/dev/capm3-e2e.md).
// With `--node` (`npm run env:up -- --node`) the control plane runs in node mode and a real node
// (containerd + kubelet, devenv/node.ts) runs beside it with the images `npm run image` exported
// (docs/dev/real-node.md); env:down stops the node first: its pods, processes, mounts and cgroups.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { imageFiles } from '../devenv/bmcs.js';
import { startCAPIManager } from '../devenv/capi-manager.js';
import { clusterAPICRDFiles } from '../devenv/capi.js';
import { startControlPlane, type ControlPlane } from '../devenv/controlplane.js';
import { kubectlApply, kubectlOrThrow, REPO_ROOT, startEnvironment } from '../devenv/environment.js';
import { startPoolProcess } from '../devenv/pool.js';
import type { Environment } from '../devenv/environment.js';
import { localImageArchives } from '../devenv/images.js';
import { startNode, stopNodeIn } from '../devenv/node.js';
import { binary, isAlive, startProcess, stopProcess, waitFor } from '../devenv/processes.js';
import type { StartedProcess } from '../devenv/processes.js';
import { startWorkloadCluster, workloadDir } from '../devenv/workload.js';

const DIR = join(REPO_ROOT, '.ironhook');
/** Debug by default here: one log line per hook call (controller, parent, its resourceVersion, duration). */
const HOOK_LOG_LEVEL = process.env.LOG_LEVEL ?? 'debug';
const PIDS = join(DIR, 'pids.json');
const LOGS = join(DIR, 'logs');
const NODE_DIR = join(DIR, 'node');
/** Written by `env:up -- --node`; scripts/demo.sh installs the chart with it. */
const NODE_VALUES = join(DIR, 'local-node-values.yaml');

/** The demo's fixed loopback ports and credentials (examples/demo/hosts.yaml uses them). */
export const DEMO = {
  username: 'admin',
  password: 'demo-password',
  ipmiPort: 16230,
  redfishPort: 18000,
  filesPort: 18080,
  agentControlPort: 18100,
  agentAPIPort: 16385,
  poolMetricsPort: 19090,
  redfish: [
    { id: 'demo-02', mac: '52:54:00:00:00:02' },
    { id: 'demo-03', mac: '52:54:00:00:00:03' },
    // The Cluster API machine's host (examples/demo/cluster.yaml).
    { id: 'demo-04', mac: '52:54:00:00:00:04' },
  ],
  /** The Cluster of examples/demo/cluster.yaml: its kubeconfig Secret is `<cluster>-kubeconfig`. */
  cluster: 'demo',
} as const;

function running(): StartedProcess[] {
  if (!existsSync(PIDS)) {
    return [];
  }
  const processes = JSON.parse(readFileSync(PIDS, 'utf8')) as StartedProcess[];
  return processes.filter((started) => isAlive(started.pid));
}

async function down(): Promise<void> {
  // The node first, while the control plane can still delete its pods.
  try {
    if (await stopNodeIn(NODE_DIR)) process.stdout.write('stopped the node (pods, kubelet, containerd, mounts, kubepods cgroups)\n');
  } catch (error) {
    process.stderr.write(`stopping the node: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
  const processes = existsSync(PIDS) ? (JSON.parse(readFileSync(PIDS, 'utf8')) as StartedProcess[]) : [];
  for (const started of [...processes].reverse()) {
    await stopProcess(started.pid);
    process.stdout.write(`stopped ${started.name} (pid ${String(started.pid)})\n`);
  }
  rmSync(PIDS, { force: true });
}

function tsx(name: string, script: string, args: string[], env: NodeJS.ProcessEnv = {}): StartedProcess {
  return startProcess({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO_ROOT, script), ...args],
    cwd: REPO_ROOT,
    logDir: LOGS,
    detached: true,
    env: { LOG_LEVEL: 'info', ...env },
  });
}

async function reachable(url: string, init?: RequestInit): Promise<boolean> {
  return (await fetch(url, init)).ok;
}

/** Config files (credentials only in 0600 files, never on argv). */
function writeConfigs(): { redfish: string; ipmiCredentials: string; agentHosts: string } {
  const redfish = join(DIR, 'redfish-emulator.yaml');
  const systems = DEMO.redfish.map((system) => ({ id: system.id, username: DEMO.username, password: DEMO.password, powerState: 'Off', macs: [system.mac] }));
  writeFileSync(
    redfish,
    stringify({
      port: DEMO.redfishPort,
      http: true,
      notifyURL: `http://127.0.0.1:${String(DEMO.agentControlPort)}/events`,
      powerDelayMs: 500,
      sessionService: true,
      systems,
    }),
    { mode: 0o600 },
  );
  const ipmiCredentials = join(DIR, 'ipmi-credentials.json');
  writeFileSync(ipmiCredentials, JSON.stringify({ username: DEMO.username, password: DEMO.password }), { mode: 0o600 });
  const agentHosts = join(DIR, 'agent-hosts.yaml');
  writeFileSync(agentHosts, stringify([{ id: 'demo-01', macs: ['52:54:00:00:00:01'], bmc: `ipmi://127.0.0.1:${String(DEMO.ipmiPort)}` }]));
  return { redfish, ipmiCredentials, agentHosts };
}

async function startFiles(): Promise<StartedProcess> {
  const root = join(DIR, 'www');
  imageFiles(join(root, 'images'));
  const files = startProcess({
    name: 'file-server',
    command: 'python3',
    args: ['-m', 'http.server', '--bind', '127.0.0.1', '--directory', root, String(DEMO.filesPort)],
    logDir: LOGS,
    detached: true,
  });
  await waitFor('file server', () => reachable(`http://127.0.0.1:${String(DEMO.filesPort)}/images/live.iso`), 30_000);
  return files;
}

async function startBMCProcesses(kubeconfig: string, withPool: boolean): Promise<StartedProcess[]> {
  const configs = writeConfigs();
  const started: StartedProcess[] = [await startFiles()];
  started.push(tsx('redfish-emulator', 'emulators/redfish/main.ts', ['--config', configs.redfish, '--port', String(DEMO.redfishPort), '--http']));
  const basic = `Basic ${Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64')}`;
  await waitFor(
    'redfish emulator',
    () => reachable(`http://127.0.0.1:${String(DEMO.redfishPort)}/redfish/v1/Systems`, { headers: { authorization: basic } }),
    30_000,
  );
  const ipmi = tsx('ipmi-sim', 'emulators/ipmi/main.ts', [
    '--port',
    String(DEMO.ipmiPort),
    '--name',
    'demo-01',
    '--dir',
    join(DIR, 'ipmi_sim'),
    '--credentials-file',
    configs.ipmiCredentials,
  ]);
  started.push(ipmi);
  await waitFor('ipmi_sim', async () => Promise.resolve(existsSync(ipmi.log) && readFileSync(ipmi.log, 'utf8').includes('"address"')), 30_000);
  const apiURL = `http://127.0.0.1:${String(DEMO.agentAPIPort)}`;
  const agentArgs = [
    '--api-url',
    apiURL,
    '--redfish-config',
    configs.redfish,
    '--redfish-url',
    `http://127.0.0.1:${String(DEMO.redfishPort)}`,
    '--hosts',
    configs.agentHosts,
    '--listen',
    `127.0.0.1:${String(DEMO.agentControlPort)}`,
  ];
  started.push(tsx('fake-agent', 'emulators/agent/main.ts', agentArgs, { BMC_USERNAME: DEMO.username, BMC_PASSWORD: DEMO.password }));
  await waitFor('fake agent', () => reachable(`http://127.0.0.1:${String(DEMO.agentControlPort)}/hosts`), 30_000);
  const poolOptions = {
    dir: DIR,
    kubeconfig,
    metricsPort: DEMO.poolMetricsPort,
    agentPort: DEMO.agentAPIPort,
    filesURL: `http://127.0.0.1:${String(DEMO.filesPort)}`,
    detached: true,
    env: { LOG_LEVEL: 'info' },
  };
  if (withPool) started.push(await startPoolProcess(poolOptions));
  return started;
}

async function createSecret(kubeconfig: string): Promise<void> {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'demo-bmc-secret', namespace: 'default' },
    type: 'Opaque',
    stringData: { username: DEMO.username, password: DEMO.password },
  };
  const result = await kubectlApply(kubeconfig, JSON.stringify(secret));
  if (result.code !== 0) {
    throw new Error(`creating the credentials Secret failed: ${result.stderr}`);
  }
}

/**
 * The workload cluster and Cluster API's manager, when the manager is built; returns the workload
 * cluster's server. Started processes go into `processes` as soon as they run.
 */
async function startClusterAPI(kubeconfig: string, processes: StartedProcess[]): Promise<string | undefined> {
  if (!existsSync(binary('capi-manager'))) {
    process.stdout.write('Cluster API manager not built (scripts/setup-test-binaries.sh capi-manager): no workload cluster\n');
    return undefined;
  }
  const workload = await startWorkloadCluster({ dir: workloadDir(DIR), detached: true });
  processes.push(...workload.controlPlane.processes.map((started) => ({ ...started, name: `workload-${started.name}` })));
  const secret = await kubectlApply(kubeconfig, workload.kubeconfigSecret(DEMO.cluster, 'default'));
  if (secret.code !== 0) {
    throw new Error(`creating the workload kubeconfig Secret failed: ${secret.stderr}`);
  }
  processes.push((await startCAPIManager({ dir: DIR, kubeconfig, detached: true })).process);
  return workload.controlPlane.server;
}

/** Runs one phase of env:up between a heading and its duration, so a slow start says where it is. */
async function phase<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  process.stdout.write(`== ${name}\n`);
  const result = await run();
  process.stdout.write(`   ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
}

/** One line per started process: name, PID and log. */
function printStarted(processes: StartedProcess[]): void {
  for (const started of processes) {
    process.stdout.write(`started ${started.name.padEnd(24)} pid ${String(started.pid).padEnd(8)} log ${started.log}\n`);
  }
}

/** What runs where (printed by env:up). */
function report(environment: Environment, workloadServer: string | undefined): void {
  printStarted(environment.processes);
  process.stdout.write(`\nkube-apiserver ${environment.controlPlane.server}, hooks http://127.0.0.1:${String(environment.hookPort)}\n`);
  process.stdout.write(`conversion webhook ${environment.conversion.url} (CA ${environment.conversion.caFile})\n`);
  process.stdout.write(
    `BMCs: ipmi://127.0.0.1:${String(DEMO.ipmiPort)} (demo-01), redfish-virtualmedia+http://127.0.0.1:${String(DEMO.redfishPort)}/redfish/v1/Systems/{demo-02,demo-03,demo-04}; Secret default/demo-bmc-secret\n`,
  );
  process.stdout.write(
    `images http://127.0.0.1:${String(DEMO.filesPort)}/images/, driver pool metrics http://127.0.0.1:${String(DEMO.poolMetricsPort)}/metrics\n`,
  );
  if (workloadServer !== undefined) {
    process.stdout.write(
      `workload cluster ${workloadServer} (kubeconfig ${join(workloadDir(DIR), 'kubeconfig')}, Secret default/${DEMO.cluster}-kubeconfig), Cluster API's manager\n`,
    );
  }
  process.stdout.write(`export KUBECONFIG=${environment.kubeconfig}\n`);
}

/** The image archives for --node, or undefined (and why, on stderr) when they are not built. */
function nodeImages(): string[] | undefined {
  try {
    return localImageArchives();
  } catch (error) {
    process.stderr.write(`--node needs the image archives: ${(error as Error).message}\n`);
    return undefined;
  }
}

/** With --node: the node beside the control plane (its processes are in .ironhook/node/node.json, not pids.json). */
async function startLocalNode(controlPlane: ControlPlane, images: string[]): Promise<void> {
  const node = await startNode({ controlPlane, dir: NODE_DIR, images, detached: true });
  printStarted(node.processes);
  process.stdout.write(`node ${node.name} Ready with ${images.map((image) => basename(image)).join(', ')}; every pod runs on the host network\n`);
}

/** The chart's values for this environment (ports and files of the emulated BMCs), on top of ci/local-node-values.yaml. */
function nodeValues(): Record<string, unknown> {
  const files = `http://127.0.0.1:${String(DEMO.filesPort)}/images/ironic-python-agent`;
  const agent = `http://127.0.0.1:${String(DEMO.agentAPIPort)}`;
  return {
    hooks: { bmcMonitorIntervalSeconds: 10, logLevel: HOOK_LOG_LEVEL },
    drivers: {
      port: DEMO.poolMetricsPort,
      agentAPI: { port: DEMO.agentAPIPort, advertiseURL: agent },
      deployImages: { isoURL: `${files}.iso`, kernelURL: `${files}.kernel`, ramdiskURL: `${files}.initramfs` },
    },
  };
}

/**
 * --node: the control plane, a real node and the emulated BMCs, without hook server, Metacontroller
 * or driver pool: those come from the Helm chart (`KUBECONFIG=.ironhook/kubeconfig npm run demo`).
 */
async function upWithNode(images: string[]): Promise<void> {
  const controlPlane = await startControlPlane({ dir: DIR, detached: true, node: true });
  const processes = [...controlPlane.processes];
  try {
    // The chart's defaults serve Cluster API objects too, as on a management cluster.
    for (const file of await clusterAPICRDFiles()) await kubectlOrThrow(controlPlane.kubeconfig, ['apply', '--server-side', '-f', file]);
    processes.push(...(await startBMCProcesses(controlPlane.kubeconfig, false)));
    await createSecret(controlPlane.kubeconfig);
    await startLocalNode(controlPlane, images);
    writeFileSync(NODE_VALUES, stringify(nodeValues()));
  } finally {
    writeFileSync(PIDS, JSON.stringify(processes, null, 2));
  }
  printStarted(processes);
  process.stdout.write(`\nkube-apiserver ${controlPlane.server}; the chart's values for this environment: ${NODE_VALUES}\n`);
  process.stdout.write(`install the chart and watch the demo hosts: KUBECONFIG=${controlPlane.kubeconfig} npm run demo\n`);
}

async function up(withNode: boolean): Promise<void> {
  if (running().length > 0) {
    process.stdout.write('the environment is already running; `npm run env:down` stops it\n');
    return;
  }
  const images = withNode ? nodeImages() : [];
  if (images === undefined) {
    process.exitCode = 1;
    return;
  }
  await phase('test binaries (built once into ~/.cache/ironhook/bin)', () => {
    execFileSync('bash', [join(REPO_ROOT, 'scripts', 'setup-test-binaries.sh')], { stdio: 'inherit' });
    return Promise.resolve();
  });
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(LOGS, { recursive: true });
  await (withNode ? upWithNode(images) : upWithProcesses());
}

/** The default: hook server, Metacontroller and driver pool as processes beside the control plane. */
async function upWithProcesses(): Promise<void> {
  const started = Date.now();
  const environment = await phase('etcd, kube-apiserver, controller-manager, the hook server and Metacontroller', () =>
    startEnvironment({
      dir: DIR,
      detached: true,
      hookPort: Number(process.env.PORT ?? 8080),
      conversionPort: Number(process.env.CONVERSION_TLS_PORT ?? 8443),
      hookEnv: { BMC_MONITOR_INTERVAL_SECONDS: '10', LOG_LEVEL: HOOK_LOG_LEVEL },
    }),
  );
  let workloadServer: string | undefined;
  try {
    const bmcs = await phase('file server, emulated BMCs, fake agent and driver pool', () => startBMCProcesses(environment.kubeconfig, true));
    environment.processes.push(...bmcs);
    await createSecret(environment.kubeconfig);
    workloadServer = await phase('workload cluster and Cluster API manager', () => startClusterAPI(environment.kubeconfig, environment.processes));
    process.stdout.write(`== environment up in ${((Date.now() - started) / 1000).toFixed(1)} s\n\n`);
  } finally {
    writeFileSync(PIDS, JSON.stringify(environment.processes, null, 2));
  }
  report(environment, workloadServer);
}

const command = process.argv[2];
if (command === 'up') {
  await up(process.argv.includes('--node'));
} else if (command === 'down') {
  await down();
} else {
  process.stderr.write('usage: tsx scripts/env.ts up [--node] | down\n');
  process.exitCode = 2;
}
