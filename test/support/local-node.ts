// The chart's local profile (charts/ironhook/ci/local-node-values.yaml) with one run's ports: on
// the loopback-only test node every pod listens on the host's 127.0.0.1, so each run takes free
// ports for the hook server, the conversion listener, the driver pool, the agent API and
// Metacontroller's probes and metrics. Used by the helm-install and clusterctl-init e2e tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { BMCs } from '../../devenv/bmcs.js';
import { freePort } from '../../devenv/processes.js';
import { CHART_DIR } from './helm.js';

export const LOCAL_PROFILE = join(CHART_DIR, 'ci', 'local-node-values.yaml');

export interface LocalNodePorts {
  hooks: number;
  conversion: number;
  pool: number;
  agent: number;
  metacontrollerProbes: number;
  metacontrollerMetrics: number;
}

export async function chooseLocalNodePorts(): Promise<LocalNodePorts> {
  return {
    hooks: await freePort(),
    conversion: await freePort(),
    pool: await freePort(),
    agent: await freePort(),
    metacontrollerProbes: await freePort(),
    metacontrollerMetrics: await freePort(),
  };
}

/** The local profile's Metacontroller flags (a list: values replace it whole, so the run's ports go into a copy). */
function profileMetacontrollerArgs(): string[] {
  return (parse(readFileSync(LOCAL_PROFILE, 'utf8')) as { metacontroller: { commandArgs: string[] } }).metacontroller.commandArgs;
}

/** Writes `<dir>/run-values.yaml`: the run's ports and the emulated BMCs' image files (JSON is YAML). */
export function writeRunValues(dir: string, ports: LocalNodePorts, files: BMCs['files']): string {
  const values = {
    controllers: { hookBaseURL: `http://127.0.0.1:${String(ports.hooks)}` },
    hooks: { port: ports.hooks, service: { port: ports.hooks }, conversion: { port: ports.conversion } },
    drivers: {
      port: ports.pool,
      agentAPI: { port: ports.agent, advertiseURL: `http://127.0.0.1:${String(ports.agent)}` },
      deployImages: { isoURL: files.agentISOURL, kernelURL: files.kernelURL, ramdiskURL: files.ramdiskURL },
    },
    metacontroller: {
      probes: { port: ports.metacontrollerProbes },
      commandArgs: profileMetacontrollerArgs().map((arg) =>
        arg
          .replace(/^(--health-probe-bind-address=127\.0\.0\.1:)\d+$/u, `$1${String(ports.metacontrollerProbes)}`)
          .replace(/^(--metrics-address=127\.0\.0\.1:)\d+$/u, `$1${String(ports.metacontrollerMetrics)}`),
      ),
    },
  };
  const file = join(dir, 'run-values.yaml');
  writeFileSync(file, JSON.stringify(values, null, 2));
  return file;
}
