// baremetal-operator v0.13.2 out of cluster, as upstream-baseline.md ran it: its own kubeconfig,
// no webhook server, leader election off (its default), metrics off, health probes on
// 127.0.0.1, Ironic at IRONIC_ENDPOINT without authentication, and upstream's defaults for
// its concurrency (BMO_CONCURRENCY: clamp(cores, 2, 8)) and PROVISIONING_LIMIT (20).
import { join } from 'node:path';
import { freePort, startProcess, waitFor, type StartedProcess } from '../processes.js';

export interface BMOOptions {
  dir: string;
  binary: string;
  kubeconfig: string;
  ironicAPI: string;
  kernelURL: string;
  ramdiskURL: string;
  processes: StartedProcess[];
}

export async function startBMO(options: BMOOptions): Promise<StartedProcess> {
  const health = await freePort();
  const started = startProcess({
    name: 'baremetal-operator',
    command: options.binary,
    args: [`--kubeconfig=${options.kubeconfig}`, '--webhook-port=0', '--metrics-addr=0', `--health-addr=127.0.0.1:${String(health)}`],
    cwd: options.dir,
    logDir: join(options.dir, 'logs'),
    env: {
      IRONIC_ENDPOINT: `${options.ironicAPI}/`,
      DEPLOY_KERNEL_URL: options.kernelURL,
      DEPLOY_RAMDISK_URL: options.ramdiskURL,
      // No ironic/ credentials directory under it: noauth, as Ironic is configured.
      METAL3_AUTH_ROOT_DIR: join(options.dir, 'no-auth'),
    },
  });
  options.processes.push(started);
  await waitFor('baremetal-operator to be ready', async () => (await fetch(`http://127.0.0.1:${String(health)}/readyz`)).ok, 120_000, 500);
  return started;
}
