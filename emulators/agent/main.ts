// The fake agent as a process (docs/agent.md, "Fake agent"):
//
//   npx tsx emulators/agent/main.ts --api-url http://127.0.0.1:6385 \
//     --redfish-config emulator.yaml --redfish-url http://127.0.0.1:8000 --listen 127.0.0.1:8100
//
// Hosts come from the Redfish emulator's own config file (same MACs and hardware; standby.power_off
// powers the system off through the Redfish driver with that system's credentials) and/or a hosts
// file. Start the emulator with notifyURL http://127.0.0.1:8100/events so its power-ons boot agents;
// POST /boot {hostId, device} boots one by hand (ipmi_sim hosts); GET /hosts shows the records.
// Agents serve /v1/commands over HTTPS with a self-signed certificate (auto TLS, as IPA) unless
// --plain-http.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { parse as parseYAML } from 'yaml';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import { loadEmulatorConfig } from '../redfish/config.js';
import { hostFromRedfishConfig } from './boot-events.js';
import { startControlServer } from './control.js';
import { startFakeAgent } from './fleet.js';
import type { FakeHostSpec } from './types.js';

const USAGE = `Usage: tsx emulators/agent/main.ts --api-url <ipa-api-url> [options]
  --redfish-config <file>    the Redfish emulator's YAML config: one host per system
  --redfish-url <url>        where that emulator listens (for standby.power_off), e.g. http://127.0.0.1:8000
  --hosts <file>             YAML list of {id, macs: [..], bmc?: address}; BMC_USERNAME/BMC_PASSWORD power them off
  --listen <host:port>       control endpoint (default 127.0.0.1:8100): POST /events, POST /boot, GET /hosts
  --heartbeat-interval <ms>  default 1000
  --command-delay <ms>       how long commands stay RUNNING (default 200)
  --plain-http               serve the agents' /v1/commands over plain HTTP (default: HTTPS with a
                             self-signed certificate sent as agent_verify_ca, as IPA's auto TLS)
  --insecure                 do not verify the emulator's TLS certificate (power off only)`;

/** standby.power_off: power the system off through its BMC with the project's driver. */
function bmcPowerOff(address: string, credentials: { username: string; password: string }, insecure: boolean): () => Promise<void> {
  return async () => {
    const parsed = parseBMCAddress(address);
    if (parsed.kind !== 'parsed') throw new Error(`bad BMC address ${address}`);
    const driver = createBMCDriver({ address: parsed.bmc, credentials, disableCertificateVerification: insecure, timeoutMs: 30_000 });
    try {
      await driver.setPower('off');
    } finally {
      await driver.close();
    }
  };
}

async function redfishHosts(file: string, baseURL: string | undefined, insecure: boolean): Promise<FakeHostSpec[]> {
  const config = await loadEmulatorConfig(file);
  return config.systems.map((system) => {
    const address =
      baseURL === undefined ? undefined : `redfish+${new URL(baseURL).protocol.replace(':', '')}://${new URL(baseURL).host}/redfish/v1/Systems/${system.id}`;
    return hostFromRedfishConfig(system, address === undefined ? undefined : bmcPowerOff(address, system, insecure));
  });
}

async function fileHosts(file: string, insecure: boolean): Promise<FakeHostSpec[]> {
  const entries = parseYAML(await readFile(file, 'utf8')) as { id?: unknown; macs?: unknown; bmc?: unknown }[];
  if (!Array.isArray(entries)) throw new Error(`${file}: expected a list of hosts`);
  const credentials = { username: process.env.BMC_USERNAME ?? '', password: process.env.BMC_PASSWORD ?? '' };
  return entries.map((entry, index) => {
    if (typeof entry.id !== 'string' || !Array.isArray(entry.macs)) throw new Error(`${file}[${String(index)}]: needs id and macs`);
    const spec: FakeHostSpec = { id: entry.id, nics: entry.macs.map((mac) => ({ mac: String(mac) })) };
    if (typeof entry.bmc === 'string') spec.powerOff = bmcPowerOff(entry.bmc, credentials, insecure);
    return spec;
  });
}

function number(text: string | undefined, fallback: number): number {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a number of milliseconds: ${String(text)}`);
  return value;
}

async function run(logger: Logger): Promise<void> {
  const { values } = parseArgs({
    options: {
      'api-url': { type: 'string' },
      'redfish-config': { type: 'string' },
      'redfish-url': { type: 'string' },
      hosts: { type: 'string' },
      listen: { type: 'string', default: '127.0.0.1:8100' },
      'heartbeat-interval': { type: 'string' },
      'command-delay': { type: 'string' },
      'plain-http': { type: 'boolean', default: false },
      insecure: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const apiURL = values['api-url'];
  if (values.help || apiURL === undefined) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const hosts = [
    ...(values['redfish-config'] === undefined ? [] : await redfishHosts(values['redfish-config'], values['redfish-url'], values.insecure)),
    ...(values.hosts === undefined ? [] : await fileHosts(values.hosts, values.insecure)),
  ];
  const fleet = startFakeAgent({
    apiURL,
    hosts,
    logger,
    heartbeatIntervalMs: number(values['heartbeat-interval'], 1_000),
    commandDelayMs: number(values['command-delay'], 200),
    autoTLS: !values['plain-http'],
  });
  const [host = '127.0.0.1', port = '8100'] = values.listen.split(/:(?=\d+$)/);
  const control = await startControlServer(fleet, { host, port: Number(port) });
  logger.info({ control: control.url, apiURL, hosts: fleet.hosts() }, 'fake agent ready');
  const stop = (): void => {
    void Promise.all([control.close(), fleet.close()]).then(() => {
      logger.info('fake agent stopped');
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { component: 'fake-agent' } });
run(logger).catch((err: unknown) => {
  logger.error({ err: err instanceof Error ? err.message : String(err) }, 'fake agent failed to start');
  process.exitCode = 1;
});
