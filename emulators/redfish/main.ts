// The Redfish BMC emulator as a program, for local demos and users' own CI:
//   npx tsx emulators/redfish/main.ts --config hosts.yaml [--port 8000] [--http] [--ca-out ca.pem]
// Listens on 127.0.0.1 only, prints one BMC address per system, stops on SIGINT/SIGTERM.
// Credentials come from the config file only; there is no flag for them.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadEmulatorConfig } from './config.js';
import { startRedfishEmulator } from './server.js';

const USAGE = 'usage: main.ts --config <hosts.yaml> [--port <port>] [--http] [--ca-out <file>]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      http: { type: 'boolean' },
      'ca-out': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help === true || values.config === undefined) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = values.help === true ? 0 : 2;
    return;
  }
  const config = await loadEmulatorConfig(values.config);
  const port = values.port === undefined ? (config.port ?? 8000) : Number.parseInt(values.port, 10);
  const emulator = await startRedfishEmulator({ ...config, port, http: values.http === true || config.http === true });
  process.stdout.write(`Redfish emulator listening on ${emulator.url}\n`);
  if (emulator.ca !== undefined) {
    const caFile = values['ca-out'] ?? join(tmpdir(), `ironhook-redfish-emulator-${emulator.port}.pem`);
    await writeFile(caFile, emulator.ca, { mode: 0o644 });
    process.stdout.write(`certificate (trust it, or set disableCertificateVerification): ${caFile}\n`);
  }
  for (const id of emulator.systemIds()) {
    process.stdout.write(`${id}\t${emulator.address(id)}\n`);
  }
  const stop = (): void => {
    emulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`redfish emulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
