// Cluster API's own core controller manager (sigs.k8s.io/cluster-api/core, built by
// scripts/setup-test-binaries.sh capi-manager) against the local control plane: it sets the
// Machine ownerReference on infrastructure machines, clones Metal3MachineTemplates for
// MachineSets, copies providerIDs and sets Machine.status.nodeRef by reading the workload cluster
// through the `<cluster>-kubeconfig` Secret. No webhook is registered with the API server (no
// cert-manager): the few defaults its webhooks would add are written out in the test objects.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { selfSignedCertificate } from '../emulators/redfish/index.js';
import { clusterAPICRDFiles } from './capi.js';
import { binary, freePort, startProcess, stopProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';

const run = promisify(execFile);

export interface CAPIManager {
  readonly process: StartedProcess;
  stop(): Promise<void>;
}

export interface CAPIManagerOptions {
  dir: string;
  kubeconfig: string;
  /** Leave the manager running after this Node process exits (scripts/env.ts). */
  detached?: boolean;
}

/**
 * Every CRD of Cluster API's core (ClusterClass, MachinePool, ExtensionConfig, ClusterResourceSet…):
 * the manager starts an informer for each and exits when one is missing.
 */
async function installAllCoreCRDs(kubeconfig: string): Promise<void> {
  const [someFile] = await clusterAPICRDFiles();
  if (someFile === undefined) {
    throw new Error('no Cluster API CRD files');
  }
  const bases = dirname(someFile);
  const files = readdirSync(bases)
    .filter((name) => name.endsWith('.yaml'))
    .sort();
  for (const file of files) {
    await run(binary('kubectl'), ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', join(bases, file)], { maxBuffer: 16 * 1024 * 1024 });
  }
  await run(binary('kubectl'), ['--kubeconfig', kubeconfig, 'wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}

export async function startCAPIManager(options: CAPIManagerOptions): Promise<CAPIManager> {
  await installAllCoreCRDs(options.kubeconfig);
  // The webhook server always starts; it needs a serving certificate even though no webhook
  // configuration points at it.
  const certDir = join(options.dir, 'capi-webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const certificate = await selfSignedCertificate();
  writeFileSync(join(certDir, 'tls.crt'), certificate.cert);
  writeFileSync(join(certDir, 'tls.key'), certificate.key, { mode: 0o600 });
  const [webhook, health, diagnostics] = [await freePort(), await freePort(), await freePort()];
  const started = startProcess({
    name: 'capi-manager',
    command: binary('capi-manager'),
    args: [
      `--kubeconfig=${options.kubeconfig}`,
      '--leader-elect=false',
      `--webhook-port=${String(webhook)}`,
      `--webhook-cert-dir=${certDir}`,
      `--health-addr=127.0.0.1:${String(health)}`,
      `--diagnostics-address=127.0.0.1:${String(diagnostics)}`,
      '--insecure-diagnostics',
      '--v=2',
    ],
    logDir: join(options.dir, 'logs'),
    detached: options.detached === true,
  });
  const stop = async (): Promise<void> => stopProcess(started.pid);
  try {
    await waitFor('capi-manager /readyz', async () => (await fetch(`http://127.0.0.1:${String(health)}/readyz`)).ok, 120_000, 250);
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: started, stop };
}
