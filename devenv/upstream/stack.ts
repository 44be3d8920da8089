// Upstream Metal3 on the scale bench's emulated rack, for the side-by-side run (docs/dev/scale.md,
// "Upstream"): etcd and kube-apiserver as for Ironhook, baremetal-operator v0.13.2 with its own
// CRDs, Ironic 39 standalone, the same Redfish emulator processes with the same systems, and the
// inspection stand-in (inspection.ts). Built by scripts/setup-upstream.sh; every process is
// stopped by PID.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { apiTextReader } from '../chaos/api.js';
import { startControlPlane } from '../controlplane.js';
import { startFileServer } from '../bmcs.js';
import { kubectlOrThrow } from '../environment.js';
import { CACHE_DIR, stopProcess, type StartedProcess } from '../processes.js';
import { hostsManifest } from '../scale/hosts.js';
import type { MeasuredStack } from '../scale/phases.js';
import { parseExposition } from '../scale/prometheus.js';
import { startScaleFleet } from '../scale/fleet.js';
import { roleOf } from '../scale/stack.js';
import { descendants } from '../scale/usage.js';
import { startBMO } from './bmo.js';
import { startInspectionStandIn } from './inspection.js';
import { startIronic } from './ironic.js';

const UPSTREAM_DIR = join(CACHE_DIR, 'upstream');

export interface UpstreamOptions {
  dir: string;
  hosts: number;
  hostsPerEmulator: number;
  powerDelayMs: number;
  /** Ironic's power sync interval, the same as the BMCMonitor interval on Ironhook's side. */
  powerSyncSeconds: number;
}

export interface UpstreamStack extends MeasuredStack {
  stop(): Promise<void>;
}

/** What scripts/setup-upstream.sh built, or why the run cannot start. */
function upstreamBuild(): { bmo: string; venv: string; crds: string } {
  const built = {
    bmo: join(UPSTREAM_DIR, 'bmo', 'manager'),
    venv: join(UPSTREAM_DIR, 'ironic-venv'),
    crds: join(UPSTREAM_DIR, 'bmo', 'src', 'config', 'base', 'crds', 'bases'),
  };
  if (!existsSync(built.bmo) || !existsSync(join(built.venv, 'bin', 'ironic'))) throw new Error('upstream Metal3 is not built: run scripts/setup-upstream.sh');
  return built;
}

/** The rack's BMC addresses as redfish+http (iPXE boot): the inspection stand-in boots nothing, and virtual media would make Ironic build an ISO. */
function ipxeAddresses(addresses: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...addresses].map(([id, address]) => [id, address.replace(/^redfish-virtualmedia\+/u, 'redfish+')]));
}

/** What the phases see of the upstream stack: it enrols only (provisioning would need fake-ipa). */
function measured(kubeconfig: string, processes: readonly StartedProcess[], enrolment: string): MeasuredStack {
  const apiserver = apiTextReader(kubeconfig, 30_000);
  return {
    kubeconfig,
    roles: () =>
      processes.flatMap((started) =>
        [started.pid, ...(started.name === 'ironic' ? descendants(started.pid) : [])].map((pid) => ({ role: roleOf(started.name), pid })),
      ),
    manifest: (image) => {
      if (image !== undefined) throw new Error('the upstream run enrols only: provisioning needs fake-ipa (not run here)');
      return enrolment;
    },
    scrape: async () => ({ apiserver: parseExposition(await apiserver('/metrics')), hooks: [], metacontroller: [], pool: [] }),
  };
}

export async function startUpstreamStack(options: UpstreamOptions): Promise<UpstreamStack> {
  const built = upstreamBuild();
  const controlPlane = await startControlPlane({ dir: options.dir });
  const processes: StartedProcess[] = [...controlPlane.processes];
  const files = await startFileServer(join(options.dir, 'images'));
  let inspection: ReturnType<typeof startInspectionStandIn> | undefined;
  const stop = async (): Promise<void> => {
    await inspection?.stop();
    for (const started of [...processes].reverse()) await stopProcess(started.pid);
    await files.close();
  };
  try {
    const { kubeconfig } = controlPlane;
    const crds = readdirSync(built.crds).filter((file) => file.endsWith('.yaml'));
    await kubectlOrThrow(kubeconfig, ['apply', '--server-side', ...crds.flatMap((file) => ['-f', join(built.crds, file)])]);
    const password = 'upstream-bench';
    const fleet = await startScaleFleet({ ...options, perProcess: options.hostsPerEmulator, password, agentAPIURL: '', agents: false, processes });
    const urls = { kernelURL: files.kernelURL, ramdiskURL: files.ramdiskURL };
    const ironic = await startIronic({ dir: options.dir, venv: built.venv, ...urls, powerSyncSeconds: options.powerSyncSeconds, processes });
    inspection = startInspectionStandIn(ironic.api);
    await startBMO({ dir: options.dir, binary: built.bmo, kubeconfig, ironicAPI: ironic.api, ...urls, processes });
    return { ...measured(kubeconfig, processes, hostsManifest({ fleet: { ...fleet, addresses: ipxeAddresses(fleet.addresses) }, password, files })), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
