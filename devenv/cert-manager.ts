// cert-manager beside the local control plane, as a site installs it before `clusterctl init`:
// its CRDs, and its controller and CA injector (built by scripts/setup-test-binaries.sh from the
// release tools/cert-manager pins) as processes with the admin kubeconfig. They issue the
// providers' webhook certificates and write the CAs into webhook configurations and CRDs.
// cert-manager's own admission webhook is not run: it only validates and defaults cert-manager's
// objects, and the controller accepts what it would have defaulted. clusterctl sees an installed
// cert-manager whose API answers, which is what it checks before it installs providers.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubectlOrThrow, REPO_ROOT } from './environment.js';
import { binary, freePort, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';

const run = promisify(execFile);

/** The namespace of ClusterIssuer-owned Secrets, as cert-manager's own install names it. */
const CERT_MANAGER_NAMESPACE = 'cert-manager';

export interface CertManager {
  processes: StartedProcess[];
  stop(): Promise<void>;
}

export interface CertManagerOptions {
  dir: string;
  kubeconfig: string;
  /** Leave the processes running after this Node process exits (scripts/env.ts). */
  detached?: boolean;
}

/** cert-manager's module directory as tools/cert-manager resolves it (downloaded if needed). */
async function moduleDir(): Promise<string> {
  const tools = join(REPO_ROOT, 'tools', 'cert-manager');
  await run('go', ['mod', 'download', 'github.com/cert-manager/cert-manager'], { cwd: tools });
  const { stdout } = await run('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/cert-manager/cert-manager'], { cwd: tools });
  return stdout.trim();
}

/**
 * The release's CRDs (deploy/crds). They are the Helm chart's templates, whose only template
 * expressions are the chart's labels: those lines are left out.
 */
async function certManagerCRDs(): Promise<string> {
  const crds = join(await moduleDir(), 'deploy', 'crds');
  return readdirSync(crds)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) =>
      readFileSync(join(crds, name), 'utf8')
        .split('\n')
        .filter((line) => !line.includes('{{'))
        .join('\n'),
    )
    .join('\n---\n');
}

export async function startCertManager(options: CertManagerOptions): Promise<CertManager> {
  const { kubeconfig } = options;
  await kubectlOrThrow(kubeconfig, ['apply', '--server-side', '-f', '-'], await certManagerCRDs());
  await kubectlOrThrow(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CERT_MANAGER_NAMESPACE } };
  await kubectlOrThrow(kubeconfig, ['apply', '-f', '-'], JSON.stringify(namespace));
  const logDir = join(options.dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const metrics = await freePort();
  const detached = options.detached === true;
  const controller = startProcess({
    name: 'cert-manager-controller',
    command: binary('cert-manager-controller'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      `--cluster-resource-namespace=${CERT_MANAGER_NAMESPACE}`,
      `--metrics-listen-address=127.0.0.1:${String(metrics)}`,
      '--v=2',
    ],
    logDir,
    detached,
  });
  const cainjector = startProcess({
    name: 'cert-manager-cainjector',
    command: binary('cert-manager-cainjector'),
    args: [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--v=2'],
    logDir,
    detached,
  });
  const processes = [controller, cainjector];
  const stop = async (): Promise<void> => {
    await Promise.all(processes.map((started) => stopProcess(started.pid)));
  };
  try {
    await waitFor('cert-manager controller metrics', async () => (await fetch(`http://127.0.0.1:${String(metrics)}/metrics`)).ok, 60_000, 250);
  } catch (error) {
    await stop();
    throw error;
  }
  return { processes, stop };
}
